import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { businessKey, trialShardOf } from '#functions/store/keys.ts';
import { TRIAL_INDEX_NAME } from '#functions/store/table.ts';
import { runTrialWatch, useFlowHarness } from '#test/flows/support/harness.ts';

/**
 * 10,000 tracked businesses, 50 of them due: the watch must read the 50 and nothing else.
 *
 * The businesses are written as the store's recordProvisioned leaves them (keys from keys.ts, the
 * trial-index attributes only while on trial) but in BatchWrite requests of 25: recordProvisioned
 * is a transaction per business, which would make this test take minutes on dynalite.
 */

const TOTAL = 10_000;
const DUE = 50;
const CONVERTED = 50;
const DAY_MS = 86_400_000;

// The test counts index reads through the handler's own DynamoDB client.
const flow = useFlowHarness({ functionModules: 'shared' });
const now = new Date('2031-05-01T12:00:00.000Z');

interface Business {
  accountId: string;
  onTrial: boolean;
  trialEndDate: string;
}

function businessItem(
  { accountId, onTrial, trialEndDate }: Business,
  index: number,
): Record<string, unknown> {
  return {
    ...businessKey(accountId),
    type: 'Business',
    accountId,
    status: 'ACTIVE',
    region: 'US',
    eventId: `seed-${index}`,
    attempts: 1,
    claimedAt: now.toISOString(),
    hostname: `scale-${index}.us.sandbox.test`,
    edition: onTrial ? 'SUBSCRIPTION_PRO_TRIAL' : 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    trialEndDate,
    provisionedAt: now.toISOString(),
    editionSyncedAt: now.toISOString(),
    ...(onTrial
      ? { trialShard: trialShardOf(accountId), trialEndsAt: new Date(trialEndDate).toISOString() }
      : {}),
  };
}

function businesses(): Business[] {
  return Array.from({ length: TOTAL }, (_, index) => {
    const accountId = `acct-scale-${String(index).padStart(5, '0')}`;
    if (index < DUE) {
      // 1 to 6 days left: inside the 7-day window.
      return {
        accountId,
        onTrial: true,
        trialEndDate: new Date(now.getTime() + (1 + (index % 6)) * DAY_MS - 60_000).toISOString(),
      };
    }
    if (index < DUE + CONVERTED) {
      // Converted: its trial end is near but it is no longer in the index.
      return {
        accountId,
        onTrial: false,
        trialEndDate: new Date(now.getTime() + 2 * DAY_MS).toISOString(),
      };
    }
    // Still on trial, 8 to 29 days left: in the index, not due.
    return {
      accountId,
      onTrial: true,
      trialEndDate: new Date(now.getTime() + (8 + (index % 22)) * DAY_MS).toISOString(),
    };
  });
}

async function seed(items: Record<string, unknown>[]): Promise<void> {
  const chunks: Record<string, unknown>[][] = [];
  for (let start = 0; start < items.length; start += 25) chunks.push(items.slice(start, start + 25));
  let next = 0;
  const writer = async () => {
    while (next < chunks.length) {
      const chunk = chunks[next] ?? [];
      next += 1;
      let pending = chunk.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const result = await flow.store.doc.send(
          new BatchWriteCommand({ RequestItems: { [flow.store.tableName]: pending } }),
        );
        pending = (result.UnprocessedItems?.[flow.store.tableName] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, writer));
}

beforeAll(async () => {
  await seed(businesses().map(businessItem));
}, 120_000);

describe('trial watch over 10,000 tracked businesses', () => {
  it('reads only the due trials from the index, never scanning the table', async () => {
    // Prepare: count what the handler's own DynamoDB client reads.
    const { dynamoDbClient } = await import('#functions/runtime/clients/dynamodb.ts');
    const reads = { scans: 0, indexQueries: 0, indexItemsRead: 0 };
    dynamoDbClient().middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        const input = args.input as { IndexName?: string };
        const output = result.output as { ScannedCount?: number };
        if (context.commandName === 'ScanCommand') reads.scans += 1;
        if (context.commandName === 'QueryCommand' && input.IndexName === TRIAL_INDEX_NAME) {
          reads.indexQueries += 1;
          reads.indexItemsRead += output.ScannedCount ?? 0;
        }
        return result;
      },
      { step: 'initialize', name: 'countTrialIndexReads' },
    );
    const serviceCallsBefore = (await flow.sandbox<unknown[]>('GET', '/_sandbox/requests')).length;

    // Act
    const report = await runTrialWatch(flow, now);

    // Assess
    expect(reads.scans).toBe(0);
    expect(reads.indexItemsRead).toBe(DUE);
    expect(report).toMatchObject({
      itemsRead: DUE,
      processed: DUE,
      expiringAnnounced: DUE,
      complete: true,
    });
    expect(flow.published('TrialExpiring')).toHaveLength(DUE);
    expect(new Set(flow.published('TrialExpiring').map((event) => event.detail['accountId'])).size).toBe(DUE);
    expect((await flow.sandbox<unknown[]>('GET', '/_sandbox/requests')).length).toBe(serviceCallsBefore);
  });
});
