import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { type ReferenceCacheKind, referenceCacheKey } from './keys.ts';
import { epochSeconds, type Store } from './store.ts';

export type { ReferenceCacheKind } from './keys.ts';

/**
 * Countries and states of an install, kept in the table so that a reference-data request within
 * the refresh age makes no service call (the spec lets callers cache these ids and refresh them
 * from time to time). One item per install and kind, holding the list as one JSON string: its
 * size is then exactly what DynamoDB counts, so the 400 KB item limit can be checked before the
 * write instead of failing it.
 */

/**
 * DynamoDB refuses an item over 400 KB (attribute names and values, UTF-8). The list gets what
 * the key, the type and the timestamps leave, with room to spare: pk alone may take 261 bytes.
 */
export const MAX_CACHED_LIST_BYTES = 400 * 1024 - 4 * 1024;

const cachedItemSchema = z.object({
  entries: z.string(),
  fetchedAt: z.string(),
});

export interface CachedReferenceList {
  /** The list as it was written; the caller validates the entries' shape. */
  entries: unknown[];
  /** When the service was read for it. */
  fetchedAt: string;
}

/**
 * The cached list of a kind, or undefined when there is none, it is older than `maxAgeSeconds`
 * (TTL deletion lags by up to days, so age is checked here), or it cannot be read back.
 */
export async function getCachedReferenceList(
  store: Store,
  hostname: string,
  kind: ReferenceCacheKind,
  options: { maxAgeSeconds: number; now: Date },
): Promise<CachedReferenceList | undefined> {
  const { Item } = await store.doc.send(
    new GetCommand({ TableName: store.tableName, Key: referenceCacheKey(hostname, kind) }),
  );
  const item = cachedItemSchema.safeParse(Item);
  if (!item.success) return undefined;
  const fetchedAtMs = Date.parse(item.data.fetchedAt);
  if (Number.isNaN(fetchedAtMs) || options.now.getTime() - fetchedAtMs >= options.maxAgeSeconds * 1000) {
    return undefined;
  }
  let entries: unknown;
  try {
    entries = JSON.parse(item.data.entries);
  } catch {
    return undefined;
  }
  return Array.isArray(entries) ? { entries, fetchedAt: item.data.fetchedAt } : undefined;
}

export type PutCachedReferenceListResult = { cached: true } | { cached: false; bytes: number };

/**
 * Writes the list read from the service at `fetchedAt`, unless it would not fit one item: then
 * nothing is written (the caller says so in a log) and the next request reads the service again.
 * Last writer wins: two requests refreshing at once store equivalent lists.
 */
export async function putCachedReferenceList(
  store: Store,
  hostname: string,
  kind: ReferenceCacheKind,
  list: { entries: readonly unknown[]; fetchedAt: Date },
  options: { maxAgeSeconds: number },
): Promise<PutCachedReferenceListResult> {
  const entries = JSON.stringify(list.entries);
  const bytes = Buffer.byteLength(entries, 'utf8');
  if (bytes > MAX_CACHED_LIST_BYTES) return { cached: false, bytes };
  await store.doc.send(
    new PutCommand({
      TableName: store.tableName,
      Item: {
        ...referenceCacheKey(hostname, kind),
        type: 'ReferenceCache',
        hostname,
        kind,
        entries,
        count: list.entries.length,
        fetchedAt: list.fetchedAt.toISOString(),
        // Removal only: an item past its age is never used, whether or not TTL got to it yet.
        ttl: epochSeconds(list.fetchedAt) + options.maxAgeSeconds,
      },
    }),
  );
  return { cached: true };
}
