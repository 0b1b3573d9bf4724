import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIAL_EDITION, updateEdition } from '#functions/store/business.ts';
import { trialShardOf } from '#functions/store/keys.ts';
import { recordProvisioned } from '#functions/store/signup.ts';
import { TRIAL_SHARD_COUNT } from '#functions/store/table.ts';
import { findTrialsEndingBefore, trialsEndingBefore } from '#functions/store/trial-index.ts';
import {
  createTestStore,
  type DynaliteServer,
  startDynalite,
  type TestStore,
} from '#test/support/dynalite.ts';

let dynamo: DynaliteServer;

beforeAll(async () => {
  dynamo = await startDynalite();
});

afterAll(async () => {
  await dynamo.close();
});

async function withStore<T>(work: (store: TestStore) => Promise<T>): Promise<T> {
  const store = await createTestStore(dynamo.endpoint);
  try {
    return await work(store);
  } finally {
    store.client.destroy();
  }
}

const provision = (store: TestStore, accountId: string, trialEndDate: string, edition = TRIAL_EDITION) =>
  recordProvisioned(store, {
    accountId,
    hostname: `${accountId}.us.sandbox.test`,
    edition,
    trialEndDate,
    region: 'US',
    eventId: `evt-${accountId}`,
  });

interface SeededBusiness {
  accountId: string;
  trialEndsAt: string;
  paid?: boolean;
}

/** Seeds business items shaped exactly as recordProvisioned writes them, 25 per BatchWrite. */
async function seedTrials(store: TestStore, trials: SeededBusiness[]) {
  const batches: (typeof trials)[] = [];
  for (let index = 0; index < trials.length; index += 25) batches.push(trials.slice(index, index + 25));
  let next = 0;
  const writer = async () => {
    while (next < batches.length) {
      const batch = batches[next++]!;
      const { UnprocessedItems } = await store.doc.send(
        new BatchWriteCommand({
          RequestItems: {
            [store.tableName]: batch.map(({ accountId, trialEndsAt, paid }) => ({
              PutRequest: {
                Item: {
                  pk: `ACCOUNT#${accountId}`,
                  sk: 'BUSINESS',
                  type: 'Business',
                  accountId,
                  status: 'ACTIVE',
                  region: 'US',
                  eventId: `evt-${accountId}`,
                  attempts: 1,
                  claimedAt: '2030-01-01T00:00:00.000Z',
                  hostname: `${accountId}.us.sandbox.test`,
                  trialEndDate: trialEndsAt,
                  ...(paid
                    ? { edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM' }
                    : { edition: TRIAL_EDITION, trialShard: trialShardOf(accountId), trialEndsAt }),
                },
              },
            })),
          },
        }),
      );
      if (Object.keys(UnprocessedItems ?? {}).length > 0) throw new Error('dynalite left items unprocessed');
    }
  };
  await Promise.all(Array.from({ length: 8 }, writer));
}

describe('findTrialsEndingBefore', () => {
  it('returns the trials ending at or before the time with what the trial watch needs', async () => {
    await withStore(async (store) => {
      // Prepare
      await provision(store, 'due-1', '2030-01-10T00:00:00+00:00');
      await provision(store, 'due-2', '2030-01-15T00:00:00.000Z');
      await provision(store, 'later', '2030-01-15T00:00:00.001Z');

      // Act
      const result = await findTrialsEndingBefore(store, '2030-01-15T00:00:00Z');

      // Assess
      expect(result.items).toEqual([
        {
          accountId: 'due-1',
          hostname: 'due-1.us.sandbox.test',
          trialEndDate: '2030-01-10T00:00:00+00:00',
          region: 'US',
        },
        {
          accountId: 'due-2',
          hostname: 'due-2.us.sandbox.test',
          trialEndDate: '2030-01-15T00:00:00.000Z',
          region: 'US',
        },
      ]);
      expect(result.itemsRead).toBe(2);
    });
  });

  it('drops businesses that left the trial from the index (sparse index)', async () => {
    await withStore(async (store) => {
      // Prepare
      await provision(store, 'converted', '2030-01-10T00:00:00Z');
      await provision(store, 'cancelled', '2030-01-10T00:00:00Z');
      await provision(store, 'still-trial', '2030-01-10T00:00:00Z');
      await provision(store, 'paid-from-start', '2030-01-10T00:00:00Z', 'SUBSCRIPTION_PAID_PRO_PREMIUM');
      await updateEdition(store, 'converted', {
        edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
        syncedAt: new Date(),
      });
      await updateEdition(store, 'cancelled', { edition: 'SUBSCRIPTION_FREE', syncedAt: new Date() });

      // Act
      const result = await findTrialsEndingBefore(store, '2031-01-01T00:00:00Z');

      // Assess
      expect(result.items.map((trial) => trial.accountId)).toEqual(['still-trial']);
      expect(result.itemsRead).toBe(1);
    });
  });

  it('pages through every shard without losing or repeating a trial', async () => {
    await withStore(async (store) => {
      // Prepare
      const trials = Array.from({ length: 300 }, (_, index) => ({
        accountId: `paged-${index}`,
        trialEndsAt: new Date(Date.UTC(2030, 0, 1) + index * 60_000).toISOString(),
      }));
      await seedTrials(store, trials);

      // Act
      const pages = [];
      for await (const page of trialsEndingBefore(store, '2030-01-02T00:00:00Z', { pageSize: 5 }))
        pages.push(page);

      // Assess
      const seen = pages.flatMap((page) => page.items.map((trial) => trial.accountId));
      expect(pages.length).toBeGreaterThan(1);
      expect(Math.max(...pages.map((page) => page.items.length))).toBeLessThanOrEqual(5 * TRIAL_SHARD_COUNT);
      expect(new Set(seen).size).toBe(300);
      expect(seen).toHaveLength(300);
    });
  });

  it('reads only the due trials among 10,000 tracked businesses, paid ones included', async () => {
    await withStore(async (store) => {
      // Prepare
      const total = 10_000;
      const due = 137;
      const cutoff = Date.UTC(2030, 0, 1);
      // The first `due` trials end before the cutoff; of the rest, every third is paid (its old trial
      // end also before the cutoff, so only sparseness keeps it out) and the others end later.
      const trials: SeededBusiness[] = Array.from({ length: total }, (_, index) => {
        const paid = index >= due && index % 3 === 0;
        const endsAt =
          index < due || paid ? cutoff - (index + 1) * 60_000 : cutoff + 1 + (index % 43_200) * 60_000;
        return { accountId: `acct-${index}`, trialEndsAt: new Date(endsAt).toISOString(), paid };
      });
      const seedingStarted = performance.now();
      await seedTrials(store, trials);
      const seedingMs = performance.now() - seedingStarted;

      // Act
      const result = await findTrialsEndingBefore(store, new Date(cutoff));

      // Assess
      expect(result.items).toHaveLength(due);
      expect(new Set(result.items.map((trial) => trial.accountId))).toEqual(
        new Set(trials.slice(0, due).map((trial) => trial.accountId)),
      );
      expect(result.itemsRead).toBe(due);
      // Informational: how long dynalite took to take 10k items on this machine.
      console.info(`seeded ${total} trials in ${Math.round(seedingMs)} ms`);
    });
  });

  it('spreads trials over every shard', () => {
    // Prepare
    const accountIds = Array.from({ length: 2_000 }, (_, index) => `acct-${index}`);

    // Act
    const perShard = new Map<string, number>();
    for (const accountId of accountIds) {
      const shard = trialShardOf(accountId);
      perShard.set(shard, (perShard.get(shard) ?? 0) + 1);
    }

    // Assess
    expect(perShard.size).toBe(TRIAL_SHARD_COUNT);
    const fairShare = accountIds.length / TRIAL_SHARD_COUNT;
    for (const count of perShard.values()) expect(count).toBeLessThan(fairShare * 1.5);
    expect(trialShardOf('acct-42')).toBe(trialShardOf('acct-42'));
  });
});
