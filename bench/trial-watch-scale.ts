import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClient } from '#functions/runtime/clients/dynamodb.ts';
import { businessKey, trialShardOf } from '#functions/store/keys.ts';
import { createStore } from '#functions/store/store.ts';
import type { TrialWatchReport } from '#functions/trial-watch/trial-watch.ts';
import type { BenchEnvironment } from './environment.ts';
import { median, sum } from './stats.ts';
import { scheduleEvent } from './workload.ts';

/**
 * Issue #9 §4: the trial watch with 1k / 10k / 100k tracked businesses, 50 of them due each run.
 * The table is seeded directly (BatchWrite), with items shaped as `recordProvisioned` writes them.
 * Due businesses end their trial in two days (TrialExpiring, no service call needed); the rest end
 * in 20–29 days, outside the 7-day read window. After each run the due ones are deleted, so every
 * run of a size reads a fresh 50.
 */

export const DUE_PER_RUN = 50;
const DAY_MS = 86_400_000;

export interface TrialWatchScale {
  readonly tracked: number;
  readonly runs: number;
  readonly timeMsMedian: number;
  /** Each run's time, in run order. */
  readonly timesMs: readonly number[];
  /** Items the run's queries read, as the handler reports them and as the recorder counted them. */
  readonly itemsReadReported: number;
  readonly itemsReadRecorded: number;
  readonly announced: number;
  readonly seedMs: number;
  /** Per run, medians: what the cost model charges the run. */
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly putEventsEntries: number;
  readonly serviceCalls: number;
}

function businessItem(accountId: string, trialEnd: Date, at: string) {
  const trialEndDate = trialEnd.toISOString();
  return {
    ...businessKey(accountId),
    type: 'Business',
    accountId,
    status: 'ACTIVE',
    region: 'US',
    hostname: `${accountId}.us.sandbox.test`,
    edition: 'SUBSCRIPTION_PRO_TRIAL',
    trialEndDate,
    provisionedAt: at,
    editionSyncedAt: at,
    eventId: randomUUID(),
    attempts: 1,
    claimedAt: at,
    trialShard: trialShardOf(accountId),
    trialEndsAt: trialEndDate,
  };
}

/** Writes the requests 25 at a time, 8 batches in flight, until nothing is left unprocessed. */
export async function batchWrite(tableName: string, requests: Record<string, unknown>[]): Promise<void> {
  // The store's document client, on the clients the handlers share.
  const client = createStore({ tableName, client: dynamoDbClient() }).doc;
  const chunks: Record<string, unknown>[][] = [];
  for (let start = 0; start < requests.length; start += 25) chunks.push(requests.slice(start, start + 25));
  const writeChunk = async (chunk: Record<string, unknown>[]) => {
    let pending = chunk;
    while (pending.length > 0) {
      const { UnprocessedItems } = await client.send(
        new BatchWriteCommand({ RequestItems: { [tableName]: pending } }),
      );
      pending = (UnprocessedItems?.[tableName] ?? []) as Record<string, unknown>[];
    }
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < chunks.length) {
        const chunk = chunks[next++];
        if (chunk) await writeChunk(chunk);
      }
    }),
  );
}

export async function measureTrialWatchScale(
  environment: BenchEnvironment,
  { sizes, runsPerSize }: { sizes: readonly number[]; runsPerSize: number },
): Promise<TrialWatchScale[]> {
  const tableName = environment.runtime.tableName;
  const handler = await environment.handler('trial-watch');
  const now = new Date();
  const at = now.toISOString();
  const results: TrialWatchScale[] = [];
  let seeded = 0;
  for (const tracked of sizes) {
    const fillers = tracked - DUE_PER_RUN - seeded;
    const seedStarted = performance.now();
    await batchWrite(
      tableName,
      Array.from({ length: Math.max(0, fillers) }, (_, index) => ({
        PutRequest: {
          Item: businessItem(
            `tracked-${seeded + index}`,
            new Date(now.getTime() + (20 + (index % 10)) * DAY_MS),
            at,
          ),
        },
      })),
    );
    seeded += Math.max(0, fillers);
    const seedMs = performance.now() - seedStarted;

    const times: number[] = [];
    const reported: number[] = [];
    const recorded: number[] = [];
    const announced: number[] = [];
    const readUnits: number[] = [];
    const writeUnits: number[] = [];
    const entries: number[] = [];
    const serviceCalls: number[] = [];
    // The first size gets one more run, not counted: it loads the handler and warms every path
    // (claims, publishing) so the sizes compare warm runs only.
    const discarded = results.length === 0 ? 1 : 0;
    for (let run = 0; run < runsPerSize + discarded; run++) {
      const due = Array.from({ length: DUE_PER_RUN }, () => `due-${randomUUID()}`);
      const trialEnd = new Date(now.getTime() + 2 * DAY_MS);
      await batchWrite(
        tableName,
        due.map((accountId) => ({ PutRequest: { Item: businessItem(accountId, trialEnd, at) } })),
      );
      environment.recorder.start();
      const started = performance.now();
      const report = (await handler(
        scheduleEvent('trial-watch', now),
        environment.contextFor('trial-watch'),
      )) as TrialWatchReport | undefined;
      const elapsedMs = performance.now() - started;
      const requests = environment.recorder.stop();
      if (run < discarded) {
        await batchWrite(
          tableName,
          due.map((accountId) => ({ DeleteRequest: { Key: businessKey(accountId) } })),
        );
        continue;
      }
      times.push(elapsedMs);
      reported.push(report?.itemsRead ?? Number.NaN);
      announced.push(report?.expiringAnnounced ?? 0);
      readUnits.push(sum(requests.map((request) => request.readUnits)));
      writeUnits.push(sum(requests.map((request) => request.writeUnits)));
      serviceCalls.push(requests.filter((request) => request.system === 'service').length);
      entries.push(
        sum(
          requests
            .filter((request) => request.system === 'eventbridge')
            .map((request) => ((request.input as { Entries?: unknown[] }).Entries ?? []).length),
        ),
      );
      recorded.push(
        sum(
          requests
            .filter((request) => request.operation === 'QueryCommand')
            .map((request) => request.itemsRead),
        ),
      );
      await batchWrite(
        tableName,
        due.map((accountId) => ({ DeleteRequest: { Key: businessKey(accountId) } })),
      );
    }
    results.push({
      tracked,
      runs: runsPerSize,
      timeMsMedian: median(times),
      timesMs: times,
      itemsReadReported: median(reported),
      itemsReadRecorded: median(recorded),
      announced: median(announced),
      seedMs,
      readUnits: median(readUnits),
      writeUnits: median(writeUnits),
      putEventsEntries: median(entries),
      serviceCalls: median(serviceCalls),
    });
  }
  return results;
}
