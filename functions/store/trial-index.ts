import * as z from 'zod';
import { allTrialShards } from './keys.ts';
import { type DuePage, type DueQueryOptions, dueItems, type ShardedDueIndex } from './sharded-index.ts';
import { normalizeTimestamp, type Store } from './store.ts';
import { TRIAL_INDEX_NAME } from './table.ts';

const trialSchema = z.object({
  accountId: z.string(),
  hostname: z.string(),
  trialEndDate: z.string(),
  region: z.string(),
  trialEndsAt: z.string(),
});

export interface DueTrial {
  accountId: string;
  hostname: string;
  /** As the service reported it. */
  trialEndDate: string;
  region: string;
}

export type DueTrialPage = DuePage<DueTrial>;

const trialIndex: ShardedDueIndex<DueTrial> = {
  indexName: TRIAL_INDEX_NAME,
  shardAttribute: 'trialShard',
  shards: allTrialShards(),
  dueAttribute: 'trialEndsAt',
  read: (item) => {
    const { accountId, hostname, trialEndDate, region, trialEndsAt } = trialSchema.parse(item);
    return { due: trialEndsAt, accountId, value: { accountId, hostname, trialEndDate, region } };
  },
};

/**
 * Businesses still on trial whose trial ends at or before `isoTime`, page by page (dueItems:
 * memory bounded by shards × pageSize). The index holds trials only (sparse) and is sorted by end
 * time within each shard.
 */
export function trialsEndingBefore(
  store: Store,
  isoTime: string | Date,
  options: DueQueryOptions = {},
): AsyncGenerator<DueTrialPage> {
  return dueItems(store, trialIndex, normalizeTimestamp(isoTime), options.pageSize);
}

/** All due trials at once; for due sets that fit in memory (the trial watch's usual run). */
export async function findTrialsEndingBefore(
  store: Store,
  isoTime: string | Date,
  options: DueQueryOptions = {},
): Promise<DueTrialPage> {
  const items: DueTrial[] = [];
  let itemsRead = 0;
  for await (const page of trialsEndingBefore(store, isoTime, options)) {
    items.push(...page.items);
    itemsRead += page.itemsRead;
  }
  return { items, itemsRead };
}
