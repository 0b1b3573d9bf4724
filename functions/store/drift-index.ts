import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { getBusiness } from './business.ts';
import { allDriftShards, UNCONFIRMED_SIGNUPS_SHARD } from './keys.ts';
import { normalizeTimestamp, type Store } from './store.ts';
import { DRIFT_INDEX_NAME } from './table.ts';

const dueSchema = z.object({ accountId: z.string(), driftDueAt: z.string() });

export interface DueDriftCheck {
  accountId: string;
  /** The due time the index held when read. */
  driftDueAt: string;
}

export interface DueDriftPage {
  items: DueDriftCheck[];
  /** Index items the queries of this page read: held to the due count in tests and the bench. */
  itemsRead: number;
}

interface ShardCursor {
  shard: string;
  startKey: Record<string, unknown> | undefined;
}

/**
 * Businesses whose drift check is due at or before `isoTime`, page by page, like
 * trialsEndingBefore: every round queries the next page of every unfinished shard in parallel;
 * the key condition reads only due items (sparse index, sorted by due time within a shard).
 */
export async function* driftChecksDueBefore(
  store: Store,
  isoTime: string | Date,
  options: { pageSize?: number } = {},
): AsyncGenerator<DueDriftPage> {
  const dueBy = normalizeTimestamp(isoTime);
  const pageSize = options.pageSize ?? 500;
  let cursors: ShardCursor[] = allDriftShards().map((shard) => ({ shard, startKey: undefined }));
  while (cursors.length > 0) {
    const results = await Promise.all(
      cursors.map(async (cursor) => {
        const page = await store.doc.send(
          new QueryCommand({
            TableName: store.tableName,
            IndexName: DRIFT_INDEX_NAME,
            KeyConditionExpression: 'driftShard = :shard AND driftDueAt <= :dueBy',
            ExpressionAttributeValues: { ':shard': cursor.shard, ':dueBy': dueBy },
            Limit: pageSize,
            ExclusiveStartKey: cursor.startKey,
          }),
        );
        return { cursor, page };
      }),
    );
    const items = results
      .flatMap(({ page }) => (page.Items ?? []).map((item) => dueSchema.parse(item)))
      .sort((a, b) => a.driftDueAt.localeCompare(b.driftDueAt) || a.accountId.localeCompare(b.accountId))
      .map(({ accountId, driftDueAt }) => ({ accountId, driftDueAt }));
    const itemsRead = results.reduce((sum, { page }) => sum + (page.ScannedCount ?? page.Count ?? 0), 0);
    yield { items, itemsRead };
    cursors = results
      .filter(({ page }) => page.LastEvaluatedKey !== undefined)
      .map(({ cursor, page }) => ({ shard: cursor.shard, startKey: page.LastEvaluatedKey }));
  }
}

/**
 * Accounts whose signup is UNCONFIRMED (markSignupUnconfirmed files them in a partition of the
 * drift index the watch never reads), oldest first: one Query over a handful of items.
 */
export async function listUnconfirmedSignups(store: Store): Promise<{ accountId: string; since: string }[]> {
  const found: { accountId: string; since: string }[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await store.doc.send(
      new QueryCommand({
        TableName: store.tableName,
        IndexName: DRIFT_INDEX_NAME,
        KeyConditionExpression: 'driftShard = :shard',
        ExpressionAttributeValues: { ':shard': UNCONFIRMED_SIGNUPS_SHARD },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const { accountId, driftDueAt } = dueSchema.parse(item);
      found.push({ accountId, since: driftDueAt });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return found;
}

export interface UnconfirmedSignup {
  accountId: string;
  since: string;
  region: string;
  lastError?: { code: string; message: string; at: string };
}

/**
 * The businesses of `listed` (listUnconfirmedSignups) that are still UNCONFIRMED, in the same
 * order, with what their records say: one read each, so callers pass only those they show.
 */
export async function readUnconfirmedSignups(
  store: Store,
  listed: readonly { accountId: string; since: string }[],
): Promise<UnconfirmedSignup[]> {
  const found: UnconfirmedSignup[] = [];
  for (const { accountId, since } of listed) {
    const business = await getBusiness(store, accountId);
    if (business?.status !== 'UNCONFIRMED') continue; // resolved since the index was read
    found.push({
      accountId,
      since,
      region: business.region,
      ...(business.lastError ? { lastError: business.lastError } : {}),
    });
  }
  return found;
}
