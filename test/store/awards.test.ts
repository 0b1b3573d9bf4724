import { describe, expect, it } from 'vitest';
import { AWARD_CACHE_TTL_SECONDS, getCachedAward, putCachedAward } from '#functions/store/awards.ts';
import { useTestStore } from './support.ts';

const store = useTestStore();

const entry = {
  AwardCode: 'RetailAward2024',
  CountryCode: 'us',
  BasePayRule: 'pr-1',
  BasePayRuleObject: { Id: 'pr-1', HourlyRate: 21.5 },
  Id: null,
};
const cachedAt = new Date('2030-01-01T00:00:00Z');

describe('award library cache', () => {
  it('returns the cached entry per install and code within its lifetime', async () => {
    // Prepare
    await putCachedAward(store, 'a.us.sandbox.test', 'RetailAward2024', entry, { now: cachedAt });

    // Act
    const hit = await getCachedAward(
      store,
      'a.us.sandbox.test',
      'RetailAward2024',
      new Date('2030-01-01T23:00:00Z'),
    );
    const otherInstall = await getCachedAward(store, 'b.us.sandbox.test', 'RetailAward2024', cachedAt);

    // Assess
    expect(hit).toEqual(entry);
    expect(otherInstall).toBeUndefined();
  });

  it('treats an entry past its TTL as absent even before DynamoDB deletes it', async () => {
    // Prepare
    await putCachedAward(store, 'c.us.sandbox.test', 'RetailAward2024', entry, { now: cachedAt });
    const expiry = new Date(cachedAt.getTime() + AWARD_CACHE_TTL_SECONDS * 1000);

    // Act
    const expired = await getCachedAward(store, 'c.us.sandbox.test', 'RetailAward2024', expiry);

    // Assess
    expect(expired).toBeUndefined();
  });

  it('replaces an entry with a newer one', async () => {
    // Prepare
    await putCachedAward(store, 'd.us.sandbox.test', 'RetailAward2024', entry, { now: cachedAt });

    // Act
    await putCachedAward(
      store,
      'd.us.sandbox.test',
      'RetailAward2024',
      { ...entry, BasePayRule: 'pr-2' },
      {
        now: cachedAt,
        ttlSeconds: 60,
      },
    );

    // Assess
    expect(await getCachedAward(store, 'd.us.sandbox.test', 'RetailAward2024', cachedAt)).toMatchObject({
      BasePayRule: 'pr-2',
    });
    expect(
      await getCachedAward(
        store,
        'd.us.sandbox.test',
        'RetailAward2024',
        new Date(cachedAt.getTime() + 61_000),
      ),
    ).toBeUndefined();
  });
});
