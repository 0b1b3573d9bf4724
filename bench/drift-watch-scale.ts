import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DriftWatchReport } from '#functions/drift-watch/drift-watch.ts';
import { dynamoDbClient } from '#functions/runtime/clients/dynamodb.ts';
import { nextDriftCheck } from '#functions/store/drift-schedule.ts';
import { businessKey, driftShardOf } from '#functions/store/keys.ts';
import { createStore } from '#functions/store/store.ts';
import type { BenchEnvironment } from './environment.ts';
import { median, sum } from './stats.ts';
import { batchWrite } from './trial-watch-scale.ts';
import { scheduleEvent } from './workload.ts';

/**
 * Issue #15: the drift watch with 1k / 10k / 100k tracked businesses, 50 of them due each run.
 * The due ones are real businesses (provisioned through provision-business, so the sandbox knows
 * them and subscription-status answers with the recorded edition: no drift, rescheduled); before
 * each run their due time is put back to their previous slot. The others are seeded directly
 * (BatchWrite) with items shaped as `recordProvisioned` writes them (a paid edition, the drift
 * shard and the next slot of the account's phase, so due later within the cadence).
 */

export const DRIFT_DUE_PER_RUN = 50;
const HOUR_MS = 3_600_000;
/** The default cadence (DRIFT_CHECK_EVERY_HOURS): the slots the seeded due times fall on. */
const EVERY_HOURS = 24;

export interface DriftWatchScale {
  readonly tracked: number;
  readonly runs: number;
  readonly timeMsMedian: number;
  /** Each run's time, in run order. */
  readonly timesMs: readonly number[];
  /** Items the run's queries read, as the handler reports them and as the recorder counted them. */
  readonly itemsReadReported: number;
  readonly itemsReadRecorded: number;
  /** Due businesses compared with the service; failed ones (should be 0). */
  readonly checked: number;
  readonly failed: number;
  readonly seedMs: number;
  /** Per run, medians. */
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly serviceCalls: number;
}

function trackedItem(accountId: string, now: Date, at: string) {
  return {
    ...businessKey(accountId),
    type: 'Business',
    accountId,
    status: 'ACTIVE',
    region: 'US',
    hostname: `${accountId}.us.sandbox.test`,
    edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    trialEndDate: at,
    provisionedAt: at,
    editionSyncedAt: at,
    eventId: randomUUID(),
    attempts: 1,
    claimedAt: at,
    driftShard: driftShardOf(accountId),
    // The next slot of the account's phase: strictly after `now`, within the cadence.
    driftDueAt: nextDriftCheck(accountId, now, EVERY_HOURS),
  };
}

/** Puts each due business back on its previous slot (at or before `now`), as a day ago left it. */
async function makeDue(tableName: string, accountIds: readonly string[], now: Date): Promise<void> {
  // The store's document client, on the clients the handlers share.
  const client = createStore({ tableName, client: dynamoDbClient() }).doc;
  const before = new Date(now.getTime() - EVERY_HOURS * HOUR_MS - 1000);
  await Promise.all(
    accountIds.map((accountId) =>
      client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: businessKey(accountId),
          UpdateExpression: 'SET driftShard = :shard, driftDueAt = :dueAt',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: {
            ':shard': driftShardOf(accountId),
            ':dueAt': nextDriftCheck(accountId, before, EVERY_HOURS),
          },
        }),
      ),
    ),
  );
}

export async function measureDriftWatchScale(
  environment: BenchEnvironment,
  { sizes, runsPerSize }: { sizes: readonly number[]; runsPerSize: number },
): Promise<DriftWatchScale[]> {
  const tableName = environment.runtime.tableName;
  const handler = await environment.handler('drift-watch');
  // Whole seconds: the scheduled event's time (the watch's "now") has no milliseconds.
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const at = now.toISOString();
  const due = await environment.provisionAccounts(DRIFT_DUE_PER_RUN);
  const results: DriftWatchScale[] = [];
  let seeded = 0;
  for (const tracked of sizes) {
    const fillers = Math.max(0, tracked - DRIFT_DUE_PER_RUN - seeded);
    const seedStarted = performance.now();
    await batchWrite(
      tableName,
      Array.from({ length: fillers }, (_, index) => ({
        PutRequest: { Item: trackedItem(`drift-tracked-${seeded + index}`, now, at) },
      })),
    );
    seeded += fillers;
    const seedMs = performance.now() - seedStarted;

    const times: number[] = [];
    const reported: number[] = [];
    const recorded: number[] = [];
    const checked: number[] = [];
    const failed: number[] = [];
    const readUnits: number[] = [];
    const writeUnits: number[] = [];
    const serviceCalls: number[] = [];
    // The first size gets one more run, not counted: it loads the handler and warms every path.
    const discarded = results.length === 0 ? 1 : 0;
    for (let run = 0; run < runsPerSize + discarded; run++) {
      await makeDue(tableName, due, now);
      environment.recorder.start();
      const started = performance.now();
      const report = (await handler(
        scheduleEvent('drift-watch', now),
        environment.contextFor('drift-watch'),
      )) as DriftWatchReport | undefined;
      const elapsedMs = performance.now() - started;
      const requests = environment.recorder.stop();
      if (run < discarded) continue;
      times.push(elapsedMs);
      reported.push(report?.itemsRead ?? Number.NaN);
      checked.push(report?.checked ?? 0);
      failed.push(report?.failed ?? Number.NaN);
      readUnits.push(sum(requests.map((request) => request.readUnits)));
      writeUnits.push(sum(requests.map((request) => request.writeUnits)));
      serviceCalls.push(requests.filter((request) => request.system === 'service').length);
      recorded.push(
        sum(
          requests
            .filter((request) => request.operation === 'QueryCommand')
            .map((request) => request.itemsRead),
        ),
      );
    }
    results.push({
      tracked,
      runs: runsPerSize,
      timeMsMedian: median(times),
      timesMs: times,
      itemsReadReported: median(reported),
      itemsReadRecorded: median(recorded),
      checked: median(checked),
      failed: median(failed),
      seedMs,
      readUnits: median(readUnits),
      writeUnits: median(writeUnits),
      serviceCalls: median(serviceCalls),
    });
  }
  return results;
}
