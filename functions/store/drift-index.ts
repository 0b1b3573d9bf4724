import * as z from 'zod';
import { mapWithConcurrency } from '#functions/runtime/concurrency.ts';
import { getBusiness, type SyncError } from './business.ts';
import { allDriftShards, UNCONFIRMED_SIGNUPS_SHARD } from './keys.ts';
import { queryAll } from './query-all.ts';
import { type DuePage, type DueQueryOptions, dueItems, type ShardedDueIndex } from './sharded-index.ts';
import { normalizeTimestamp, type Store } from './store.ts';
import { DRIFT_INDEX_NAME } from './table.ts';

const dueSchema = z.object({ accountId: z.string(), driftDueAt: z.string() });

export interface DueDriftCheck {
  accountId: string;
  /** The due time the index held when read. */
  driftDueAt: string;
}

export type DueDriftPage = DuePage<DueDriftCheck>;

const driftIndex: ShardedDueIndex<DueDriftCheck> = {
  indexName: DRIFT_INDEX_NAME,
  shardAttribute: 'driftShard',
  shards: allDriftShards(),
  dueAttribute: 'driftDueAt',
  read: (item) => {
    const { accountId, driftDueAt } = dueSchema.parse(item);
    return { due: driftDueAt, accountId, value: { accountId, driftDueAt } };
  },
};

/**
 * Businesses whose drift check is due at or before `isoTime`, page by page (dueItems, as for the
 * trial index): the key condition reads only due items (sparse index, sorted by due time within a
 * shard).
 */
export function driftChecksDueBefore(
  store: Store,
  isoTime: string | Date,
  options: DueQueryOptions = {},
): AsyncGenerator<DueDriftPage> {
  return dueItems(store, driftIndex, normalizeTimestamp(isoTime), options.pageSize);
}

/**
 * Accounts whose signup is UNCONFIRMED (markSignupUnconfirmed files them in a partition of the
 * drift index the watch never reads), oldest first: one Query over a handful of items. Query
 * returns a partition's items by sort key, ascending by default (DynamoDB Developer Guide, "Key
 * condition expressions for the Query operation"), and the sort key here is the ISO time the signup
 * became unconfirmed.
 */
export function listUnconfirmedSignups(store: Store): Promise<{ accountId: string; since: string }[]> {
  return queryAll(
    store,
    {
      IndexName: DRIFT_INDEX_NAME,
      KeyConditionExpression: 'driftShard = :shard',
      ExpressionAttributeValues: { ':shard': UNCONFIRMED_SIGNUPS_SHARD },
    },
    (item) => {
      const { accountId, driftDueAt } = dueSchema.parse(item);
      return { accountId, since: driftDueAt };
    },
  );
}

export interface UnconfirmedSignup {
  accountId: string;
  since: string;
  region: string;
  lastError?: SyncError;
}

/**
 * The businesses of `listed` (listUnconfirmedSignups) that are still UNCONFIRMED, in the same
 * order, with what their records say: one read each (a few at a time), so callers pass only
 * those they show.
 */
export async function readUnconfirmedSignups(
  store: Store,
  listed: readonly { accountId: string; since: string }[],
): Promise<UnconfirmedSignup[]> {
  const read = await mapWithConcurrency(
    listed,
    UNCONFIRMED_READ_CONCURRENCY,
    async ({ accountId, since }) => {
      const business = await getBusiness(store, accountId);
      if (business?.status !== 'UNCONFIRMED') return undefined; // resolved since the index was read
      const signup: UnconfirmedSignup = { accountId, since, region: business.region };
      if (business.lastError) signup.lastError = business.lastError;
      return signup;
    },
  );
  return read.filter((signup) => signup !== undefined);
}

/** Business reads in flight at once while reading unconfirmed signups. */
const UNCONFIRMED_READ_CONCURRENCY = 4;
