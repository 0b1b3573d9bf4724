import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { allTrialShards } from './keys.ts';
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

export interface DueTrialPage {
  items: DueTrial[];
  /** Index items the queries of this page read (what DynamoDB bills); tests hold it to the due count. */
  itemsRead: number;
}

export interface TrialQueryOptions {
  /** Items per shard query. @default 500 */
  pageSize?: number;
}

const DEFAULT_PAGE_SIZE = 500;

interface ShardCursor {
  shard: string;
  startKey: Record<string, unknown> | undefined;
}

/**
 * Businesses still on trial whose trial ends at or before `isoTime`, page by page. Every round
 * queries the next page of every unfinished shard in parallel, so memory stays bounded by
 * shards × pageSize however many trials are due. The key condition reads only due items: the
 * index holds trials only (sparse) and is sorted by end time within each shard.
 */
export async function* trialsEndingBefore(
  store: Store,
  isoTime: string | Date,
  options: TrialQueryOptions = {},
): AsyncGenerator<DueTrialPage> {
  const endsBy = normalizeTimestamp(isoTime);
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  let cursors: ShardCursor[] = allTrialShards().map((shard) => ({ shard, startKey: undefined }));
  while (cursors.length > 0) {
    const results = await Promise.all(
      cursors.map(async (cursor) => {
        const page = await store.doc.send(
          new QueryCommand({
            TableName: store.tableName,
            IndexName: TRIAL_INDEX_NAME,
            KeyConditionExpression: 'trialShard = :shard AND trialEndsAt <= :endsBy',
            ExpressionAttributeValues: { ':shard': cursor.shard, ':endsBy': endsBy },
            Limit: pageSize,
            ExclusiveStartKey: cursor.startKey,
          }),
        );
        return { cursor, page };
      }),
    );
    const items = results
      .flatMap(({ page }) => (page.Items ?? []).map((item) => trialSchema.parse(item)))
      .sort((a, b) => a.trialEndsAt.localeCompare(b.trialEndsAt) || a.accountId.localeCompare(b.accountId))
      .map(({ accountId, hostname, trialEndDate, region }) => ({
        accountId,
        hostname,
        trialEndDate,
        region,
      }));
    const itemsRead = results.reduce((sum, { page }) => sum + (page.ScannedCount ?? page.Count ?? 0), 0);
    yield { items, itemsRead };
    cursors = results
      .filter(({ page }) => page.LastEvaluatedKey !== undefined)
      .map(({ cursor, page }) => ({ shard: cursor.shard, startKey: page.LastEvaluatedKey }));
  }
}

/** All due trials at once; for due sets that fit in memory (the trial watch's usual run). */
export async function findTrialsEndingBefore(
  store: Store,
  isoTime: string | Date,
  options: TrialQueryOptions = {},
): Promise<DueTrialPage> {
  const items: DueTrial[] = [];
  let itemsRead = 0;
  for await (const page of trialsEndingBefore(store, isoTime, options)) {
    items.push(...page.items);
    itemsRead += page.itemsRead;
  }
  return { items, itemsRead };
}
