import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Store } from './store.ts';

/** One sharded, sparse index sorted by a due time within each shard (the trial and drift indexes). */
export interface ShardedDueIndex<T> {
  readonly indexName: string;
  /** The partition key attribute, and every value it takes. */
  readonly shardAttribute: string;
  readonly shards: readonly string[];
  /** The sort key attribute: an ISO timestamp. */
  readonly dueAttribute: string;
  /** One index item as the caller needs it, with its due time and account for the order. */
  read(item: Record<string, unknown>): {
    readonly due: string;
    readonly accountId: string;
    readonly value: T;
  };
}

export interface DuePage<T> {
  items: T[];
  /** Index items the queries of this page read (what DynamoDB bills); tests hold it to the due count. */
  itemsRead: number;
}

interface ShardCursor {
  shard: string;
  startKey: Record<string, unknown> | undefined;
}

/** Index items per shard query, unless a caller says otherwise (both watches take it from here). */
export const DUE_PAGE_SIZE = 100;

/** How a due index is read. */
export interface DueQueryOptions {
  /** Items per shard query. @default {@link DUE_PAGE_SIZE} */
  pageSize?: number;
}

/**
 * The items of `index` due at or before `dueBy`, page by page. Every round queries the next page of
 * every unfinished shard in parallel, so memory stays bounded by shards × pageSize however many
 * items are due; the key condition reads only due items. Each page is sorted by due time, then
 * account.
 */
export async function* dueItems<T>(
  store: Store,
  index: ShardedDueIndex<T>,
  dueBy: string,
  pageSize = DUE_PAGE_SIZE,
): AsyncGenerator<DuePage<T>> {
  let cursors: ShardCursor[] = index.shards.map((shard) => ({ shard, startKey: undefined }));
  while (cursors.length > 0) {
    const results = await Promise.all(
      cursors.map(async (cursor) => {
        const page = await store.doc.send(
          new QueryCommand({
            TableName: store.tableName,
            IndexName: index.indexName,
            KeyConditionExpression: '#shard = :shard AND #due <= :dueBy',
            ExpressionAttributeNames: { '#shard': index.shardAttribute, '#due': index.dueAttribute },
            ExpressionAttributeValues: { ':shard': cursor.shard, ':dueBy': dueBy },
            Limit: pageSize,
            ExclusiveStartKey: cursor.startKey,
          }),
        );
        return { cursor, page };
      }),
    );
    const items = results
      .flatMap(({ page }) => (page.Items ?? []).map((item) => index.read(item)))
      .sort((a, b) => a.due.localeCompare(b.due) || a.accountId.localeCompare(b.accountId))
      .map(({ value }) => value);
    const itemsRead = results.reduce((sum, { page }) => sum + (page.ScannedCount ?? page.Count ?? 0), 0);
    yield { items, itemsRead };
    cursors = results
      .filter(({ page }) => page.LastEvaluatedKey !== undefined)
      .map(({ cursor, page }) => ({ shard: cursor.shard, startKey: page.LastEvaluatedKey }));
  }
}
