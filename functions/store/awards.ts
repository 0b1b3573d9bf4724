import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { awardKey } from './keys.ts';
import { epochSeconds, type Store } from './store.ts';

/** Library entries change rarely; a day keeps pay-rate syncs to one lookup per code and install. */
export const AWARD_CACHE_TTL_SECONDS = 24 * 60 * 60;

const cachedSchema = z.object({ entry: z.record(z.string(), z.unknown()), ttl: z.number() });

/**
 * The cached award-library entry, as the service returned it (callers validate its shape), or
 * undefined when absent or expired: TTL deletion lags by up to days, so expiry is checked here.
 */
export async function getCachedAward(
  store: Store,
  hostname: string,
  awardCode: string,
  now: Date = new Date(),
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await store.doc.send(
    new GetCommand({ TableName: store.tableName, Key: awardKey(hostname, awardCode) }),
  );
  if (!Item) return undefined;
  const cached = cachedSchema.parse(Item);
  return cached.ttl > epochSeconds(now) ? cached.entry : undefined;
}

/** Last writer wins: two deliveries caching the same code store equivalent entries. */
export async function putCachedAward(
  store: Store,
  hostname: string,
  awardCode: string,
  entry: Record<string, unknown>,
  options: { ttlSeconds?: number; now?: Date } = {},
): Promise<void> {
  const now = options.now ?? new Date();
  await store.doc.send(
    new PutCommand({
      TableName: store.tableName,
      Item: {
        ...awardKey(hostname, awardCode),
        type: 'AwardCacheEntry',
        hostname,
        awardCode,
        entry,
        cachedAt: now.toISOString(),
        ttl: epochSeconds(now) + (options.ttlSeconds ?? AWARD_CACHE_TTL_SECONDS),
      },
    }),
  );
}
