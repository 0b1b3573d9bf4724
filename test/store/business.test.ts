import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  getAccountByHostname,
  getBusiness,
  recordSyncError,
  recordSyncSuccess,
  TRIAL_EDITION,
  updateEdition,
} from '#functions/store/business.ts';
import {
  claimSignup,
  markSignupUnconfirmed,
  recordProvisioned,
  releaseSignupClaim,
} from '#functions/store/signup.ts';
import { useTestStore } from './support.ts';

const store = useTestStore();
let sequence = 0;
const newAccountId = () => `acct-${++sequence}`;

const provisioned = (accountId: string, hostname: string) => ({
  accountId,
  hostname,
  edition: TRIAL_EDITION,
  trialEndDate: '2030-02-01T00:00:00+00:00',
  region: 'US',
  eventId: 'evt-1',
  at: new Date('2030-01-02T00:00:00Z'),
});

async function rawBusinessItem(accountId: string) {
  const { Item } = await store.doc.send(
    new GetCommand({ TableName: store.tableName, Key: { pk: `ACCOUNT#${accountId}`, sk: 'BUSINESS' } }),
  );
  return Item;
}

describe('claimSignup', () => {
  it('claims an account that has no business yet', async () => {
    // Prepare
    const accountId = newAccountId();

    // Act
    const claim = await claimSignup(store, { accountId, eventId: 'evt-1', region: 'US' });

    // Assess
    expect(claim).toEqual({ claimed: true });
    expect(await getBusiness(store, accountId)).toMatchObject({
      status: 'PENDING',
      eventId: 'evt-1',
      attempts: 1,
    });
  });

  it('lets exactly one of two concurrent deliveries claim the signup', async () => {
    // Prepare
    const accountId = newAccountId();

    // Act
    const claims = await Promise.all([
      claimSignup(store, { accountId, eventId: 'evt-a', region: 'US' }),
      claimSignup(store, { accountId, eventId: 'evt-b', region: 'US' }),
    ]);

    // Assess
    const winners = claims.filter((claim) => claim.claimed);
    const loser = claims.find((claim) => !claim.claimed);
    expect(winners).toHaveLength(1);
    expect(loser).toMatchObject({ claimed: false, existing: { status: 'PENDING' } });
  });

  it('counts a redelivery of the claiming event as another attempt', async () => {
    // Prepare
    const accountId = newAccountId();
    await claimSignup(store, { accountId, eventId: 'evt-1', region: 'US' });

    // Act
    const again = await claimSignup(store, { accountId, eventId: 'evt-1', region: 'US' });

    // Assess
    expect(again).toMatchObject({
      claimed: false,
      existing: { status: 'PENDING', eventId: 'evt-1', attempts: 2 },
    });
  });

  it('reports the active business with its hostname to a later signup event', async () => {
    // Prepare
    const accountId = newAccountId();
    await claimSignup(store, { accountId, eventId: 'evt-1', region: 'US' });
    await recordProvisioned(store, provisioned(accountId, `${accountId}.us.sandbox.test`));

    // Act
    const claim = await claimSignup(store, { accountId, eventId: 'evt-2', region: 'US' });

    // Assess
    expect(claim).toMatchObject({
      claimed: false,
      existing: { status: 'ACTIVE', hostname: `${accountId}.us.sandbox.test` },
    });
  });
});

describe('recordProvisioned', () => {
  it('activates the business and maps its hostname in one step', async () => {
    // Prepare
    const accountId = newAccountId();
    const hostname = `${accountId}.us.sandbox.test`;
    await claimSignup(store, { accountId, eventId: 'evt-1', region: 'US' });

    // Act
    const result = await recordProvisioned(store, provisioned(accountId, hostname));

    // Assess
    expect(result).toEqual({ recorded: true });
    expect(await getAccountByHostname(store, hostname)).toBe(accountId);
    expect(await getBusiness(store, accountId)).toMatchObject({
      status: 'ACTIVE',
      hostname,
      edition: TRIAL_EDITION,
      trialEndDate: '2030-02-01T00:00:00+00:00',
      region: 'US',
    });
    expect(await rawBusinessItem(accountId)).toMatchObject({ trialEndsAt: '2030-02-01T00:00:00.000Z' });
  });

  it('accepts a replay of the same hostname', async () => {
    // Prepare
    const accountId = newAccountId();
    const hostname = `${accountId}.us.sandbox.test`;
    await recordProvisioned(store, provisioned(accountId, hostname));

    // Act
    const replay = await recordProvisioned(store, provisioned(accountId, hostname));

    // Assess
    expect(replay).toEqual({ recorded: true });
  });

  it('refuses a hostname that belongs to another account and writes nothing', async () => {
    // Prepare
    const owner = newAccountId();
    const intruder = newAccountId();
    const hostname = `${owner}.us.sandbox.test`;
    await recordProvisioned(store, provisioned(owner, hostname));
    await claimSignup(store, { accountId: intruder, eventId: 'evt-9', region: 'US' });

    // Act
    const result = await recordProvisioned(store, provisioned(intruder, hostname));

    // Assess
    expect(result).toEqual({ recorded: false, reason: 'HOSTNAME_TAKEN' });
    expect(await getAccountByHostname(store, hostname)).toBe(owner);
    expect(await getBusiness(store, intruder)).toMatchObject({ status: 'PENDING' });
  });

  it('refuses a second hostname for an active account and leaves no mapping behind', async () => {
    // Prepare
    const accountId = newAccountId();
    await recordProvisioned(store, provisioned(accountId, `${accountId}-a.us.sandbox.test`));

    // Act
    const result = await recordProvisioned(store, provisioned(accountId, `${accountId}-b.us.sandbox.test`));

    // Assess
    expect(result).toEqual({ recorded: false, reason: 'ACCOUNT_HAS_OTHER_HOSTNAME' });
    expect(await getAccountByHostname(store, `${accountId}-b.us.sandbox.test`)).toBeUndefined();
    expect(await getBusiness(store, accountId)).toMatchObject({ hostname: `${accountId}-a.us.sandbox.test` });
  });

  it('keeps a paid business out of the trial index', async () => {
    // Prepare
    const accountId = newAccountId();

    // Act
    await recordProvisioned(store, {
      ...provisioned(accountId, `${accountId}.us.sandbox.test`),
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });

    // Assess
    const item = await rawBusinessItem(accountId);
    expect(item).not.toHaveProperty('trialShard');
    expect(item).not.toHaveProperty('trialEndsAt');
  });
});

describe('markSignupUnconfirmed and releaseSignupClaim', () => {
  it('marks the pending claim of the same event as unconfirmed with the reason', async () => {
    // Prepare
    const accountId = newAccountId();
    await claimSignup(store, { accountId, eventId: 'evt-1', region: 'US' });

    // Act
    const marked = await markSignupUnconfirmed(store, accountId, {
      eventId: 'evt-1',
      message: 'signup answer lost; externalId already used',
      at: new Date('2030-01-01T00:00:00Z'),
    });

    // Assess
    expect(marked).toBe(true);
    expect(await getBusiness(store, accountId)).toMatchObject({
      status: 'UNCONFIRMED',
      lastError: { code: 'SIGNUP_UNCONFIRMED', message: 'signup answer lost; externalId already used' },
    });
  });

  it('does not mark a claim that belongs to another event', async () => {
    // Prepare
    const accountId = newAccountId();
    await claimSignup(store, { accountId, eventId: 'evt-1', region: 'US' });

    // Act
    const marked = await markSignupUnconfirmed(store, accountId, { eventId: 'evt-2', message: 'x' });

    // Assess
    expect(marked).toBe(false);
    expect(await getBusiness(store, accountId)).toMatchObject({ status: 'PENDING' });
  });

  it('releases the pending claim so a corrected event can claim again', async () => {
    // Prepare
    const accountId = newAccountId();
    await claimSignup(store, { accountId, eventId: 'evt-1', region: 'US' });

    // Act
    const released = await releaseSignupClaim(store, accountId, 'evt-1');
    const reclaim = await claimSignup(store, { accountId, eventId: 'evt-2', region: 'US' });

    // Assess
    expect(released).toBe(true);
    expect(reclaim).toEqual({ claimed: true });
  });

  it('never releases an active business or another event’s claim', async () => {
    // Prepare
    const active = newAccountId();
    const pending = newAccountId();
    await recordProvisioned(store, provisioned(active, `${active}.us.sandbox.test`));
    await claimSignup(store, { accountId: pending, eventId: 'evt-1', region: 'US' });

    // Act
    const releasedActive = await releaseSignupClaim(store, active, 'evt-1');
    const releasedOther = await releaseSignupClaim(store, pending, 'evt-2');

    // Assess
    expect([releasedActive, releasedOther]).toEqual([false, false]);
    expect(await getBusiness(store, active)).toMatchObject({ status: 'ACTIVE' });
    expect(await getBusiness(store, pending)).toMatchObject({ status: 'PENDING' });
  });
});

describe('updateEdition', () => {
  it('removes the trial-index attributes when the business leaves the trial', async () => {
    // Prepare
    const accountId = newAccountId();
    await recordProvisioned(store, provisioned(accountId, `${accountId}.us.sandbox.test`));

    // Act
    const applied = await updateEdition(store, accountId, {
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
      syncedAt: '2030-01-10T00:00:00Z',
    });

    // Assess
    expect(applied).toBe(true);
    const item = await rawBusinessItem(accountId);
    expect(item).toMatchObject({ edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM' });
    expect(item).not.toHaveProperty('trialShard');
    expect(item).not.toHaveProperty('trialEndsAt');
  });

  it('moves the trial-index entry when the trial end changes', async () => {
    // Prepare
    const accountId = newAccountId();
    await recordProvisioned(store, provisioned(accountId, `${accountId}.us.sandbox.test`));

    // Act
    await updateEdition(store, accountId, {
      edition: TRIAL_EDITION,
      trialEndDate: '2030-03-01T12:00:00-05:00',
      syncedAt: '2030-01-10T00:00:00Z',
    });

    // Assess
    expect(await rawBusinessItem(accountId)).toMatchObject({
      trialEndDate: '2030-03-01T12:00:00-05:00',
      trialEndsAt: '2030-03-01T17:00:00.000Z',
    });
  });

  it('ignores an edition observed before the one already recorded', async () => {
    // Prepare
    const accountId = newAccountId();
    await recordProvisioned(store, provisioned(accountId, `${accountId}.us.sandbox.test`));
    await updateEdition(store, accountId, {
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
      syncedAt: '2030-01-10T00:00:00Z',
    });

    // Act
    const applied = await updateEdition(store, accountId, {
      edition: TRIAL_EDITION,
      trialEndDate: '2030-02-01T00:00:00Z',
      syncedAt: '2030-01-09T23:59:59Z',
    });

    // Assess
    expect(applied).toBe(false);
    const item = await rawBusinessItem(accountId);
    expect(item).toMatchObject({ edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM' });
    expect(item).not.toHaveProperty('trialShard');
  });

  it('does not create a business for an unknown account', async () => {
    // Prepare
    const accountId = newAccountId();

    // Act
    const applied = await updateEdition(store, accountId, {
      edition: 'SUBSCRIPTION_FREE',
      syncedAt: new Date(),
    });

    // Assess
    expect(applied).toBe(false);
    expect(await getBusiness(store, accountId)).toBeUndefined();
  });
});

describe('sync outcomes', () => {
  it('records the last sync and the last error, each only moving forward in time', async () => {
    // Prepare
    const accountId = newAccountId();
    await recordProvisioned(store, provisioned(accountId, `${accountId}.us.sandbox.test`));

    // Act
    const results = [
      await recordSyncSuccess(store, accountId, '2030-01-05T00:00:00Z'),
      await recordSyncSuccess(store, accountId, '2030-01-04T00:00:00Z'),
      await recordSyncError(store, accountId, {
        code: 'ADDRESS_REQUIRED',
        message: 'm1',
        at: '2030-01-06T00:00:00Z',
      }),
      await recordSyncError(store, accountId, { code: 'OLDER', message: 'm0', at: '2030-01-03T00:00:00Z' }),
    ];

    // Assess
    expect(results).toEqual([true, false, true, false]);
    expect(await getBusiness(store, accountId)).toMatchObject({
      lastSyncAt: '2030-01-05T00:00:00.000Z',
      lastError: { code: 'ADDRESS_REQUIRED', message: 'm1', at: '2030-01-06T00:00:00.000Z' },
    });
  });

  it('does not create a business when recording a sync for an unknown account', async () => {
    // Prepare
    const accountId = newAccountId();

    // Act
    const recorded = await recordSyncSuccess(store, accountId, new Date());

    // Assess
    expect(recorded).toBe(false);
    expect(await getBusiness(store, accountId)).toBeUndefined();
  });
});
