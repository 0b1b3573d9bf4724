import { describe, expect, it } from 'vitest';
import { getBusiness, markBusinessGone, TRIAL_EDITION } from '#functions/store/business.ts';
import {
  claimSignup,
  markSignupUnconfirmed,
  noteAccountCreatedReceived,
  recordProvisioned,
  recordSignupFailed,
  releaseSignupClaim,
} from '#functions/store/signup.ts';
import { useTestStore } from './support.ts';

/**
 * The statuses an AccountCreated leaves on its account before the business exists: RECEIVED (noted
 * on arrival), PENDING (signup claimed), FAILED (ended in a SyncFailed), and how a later
 * AccountCreated claims the account again.
 */

const store = useTestStore();
let sequence = 0;
const newAccountId = () => `acct-status-${++sequence}`;
const at = new Date('2030-01-02T00:00:00Z');

const failure = (accountId: string, eventId: string, code = 'REGION_NOT_AVAILABLE') => ({
  accountId,
  eventId,
  region: 'US',
  code,
  message: `${code}: refused`,
  at,
});

async function activate(accountId: string, eventId: string): Promise<void> {
  await recordProvisioned(store, {
    accountId,
    hostname: `${accountId}.us.sandbox.test`,
    edition: TRIAL_EDITION,
    trialEndDate: '2030-02-01T00:00:00+00:00',
    region: 'US',
    eventId,
    at,
  });
}

describe('noteAccountCreatedReceived', () => {
  it('notes an account without a record as RECEIVED, without a claim', async () => {
    // Prepare
    const accountId = newAccountId();

    // Act
    const noted = await noteAccountCreatedReceived(store, { accountId, eventId: 'evt-1', region: 'UK', at });

    // Assess
    expect(noted).toBe(true);
    const business = await getBusiness(store, accountId);
    expect(business).toMatchObject({ status: 'RECEIVED', eventId: 'evt-1', region: 'UK' });
    expect(business?.attempts).toBeUndefined();
  });

  it('leaves a business that is claimed, active, unconfirmed or gone as it is', async () => {
    // Prepare
    const [pending, active, unconfirmed, gone] = [
      newAccountId(),
      newAccountId(),
      newAccountId(),
      newAccountId(),
    ];
    for (const accountId of [pending, active, unconfirmed, gone]) {
      await claimSignup(store, { accountId, eventId: 'evt-1', region: 'US' });
    }
    await activate(active, 'evt-1');
    await markSignupUnconfirmed(store, unconfirmed, { eventId: 'evt-1', message: 'lost' });
    await activate(gone, 'evt-1');
    await markBusinessGone(store, gone, { hostname: `${gone}.us.sandbox.test`, reason: 'test', at });

    // Act
    const noted = await Promise.all(
      [pending, active, unconfirmed, gone].map((accountId) =>
        noteAccountCreatedReceived(store, { accountId, eventId: 'evt-2', region: 'US' }),
      ),
    );

    // Assess
    expect(noted).toEqual([false, false, false, false]);
    expect((await getBusiness(store, pending))?.status).toBe('PENDING');
    expect((await getBusiness(store, active))?.status).toBe('ACTIVE');
    expect((await getBusiness(store, unconfirmed))?.status).toBe('UNCONFIRMED');
    expect((await getBusiness(store, gone))?.status).toBe('GONE');
  });

  it('notes a new AccountCreated over a FAILED account, but not a redelivery of the event that failed', async () => {
    // Prepare
    const accountId = newAccountId();
    await recordSignupFailed(store, failure(accountId, 'evt-failed'));

    // Act
    const redelivery = await noteAccountCreatedReceived(store, {
      accountId,
      eventId: 'evt-failed',
      region: 'US',
    });
    const afterRedelivery = await getBusiness(store, accountId);
    const newEvent = await noteAccountCreatedReceived(store, { accountId, eventId: 'evt-new', region: 'US' });

    // Assess
    expect(redelivery).toBe(false);
    expect(afterRedelivery).toMatchObject({ status: 'FAILED', failure: { eventId: 'evt-failed' } });
    expect(newEvent).toBe(true);
    const business = await getBusiness(store, accountId);
    expect(business).toMatchObject({ status: 'RECEIVED', eventId: 'evt-new' });
    expect(business?.failure).toBeUndefined();
  });
});

describe('recordSignupFailed', () => {
  it('fails a RECEIVED account, naming the event and its code', async () => {
    // Prepare
    const accountId = newAccountId();
    await noteAccountCreatedReceived(store, { accountId, eventId: 'evt-1', region: 'US' });

    // Act
    const recorded = await recordSignupFailed(store, failure(accountId, 'evt-1'));

    // Assess
    expect(recorded).toBe(true);
    const business = await getBusiness(store, accountId);
    expect(business).toMatchObject({
      status: 'FAILED',
      eventId: 'evt-1',
      failure: { eventId: 'evt-1', code: 'REGION_NOT_AVAILABLE', message: 'REGION_NOT_AVAILABLE: refused' },
    });
    expect(business?.signupMayHaveCommitted).toBeUndefined();
  });

  it('fails an account whose claim was released after a refusal (no record left)', async () => {
    // Prepare
    const accountId = newAccountId();
    await claimSignup(store, { accountId, eventId: 'evt-1', region: 'AU' });
    await releaseSignupClaim(store, accountId, 'evt-1');

    // Act
    const recorded = await recordSignupFailed(store, {
      ...failure(accountId, 'evt-1', 'EMAIL_ALREADY_EXISTS'),
      region: 'AU',
    });

    // Assess
    expect(recorded).toBe(true);
    expect(await getBusiness(store, accountId)).toMatchObject({
      status: 'FAILED',
      region: 'AU',
      failure: { code: 'EMAIL_ALREADY_EXISTS' },
    });
  });

  it('remembers that a claimed (PENDING) signup may have committed', async () => {
    // Prepare
    const accountId = newAccountId();
    await claimSignup(store, { accountId, eventId: 'evt-1', region: 'US' });

    // Act
    await recordSignupFailed(store, failure(accountId, 'evt-1', 'RETRIES_EXHAUSTED'));

    // Assess
    expect(await getBusiness(store, accountId)).toMatchObject({
      status: 'FAILED',
      signupMayHaveCommitted: true,
      failure: { eventId: 'evt-1', code: 'RETRIES_EXHAUSTED' },
    });
  });

  it('leaves an active, unconfirmed or gone business as it is', async () => {
    // Prepare
    const [active, unconfirmed, gone] = [newAccountId(), newAccountId(), newAccountId()];
    for (const accountId of [active, unconfirmed, gone]) {
      await claimSignup(store, { accountId, eventId: 'evt-1', region: 'US' });
    }
    await activate(active, 'evt-1');
    await markSignupUnconfirmed(store, unconfirmed, { eventId: 'evt-1', message: 'lost' });
    await activate(gone, 'evt-1');
    await markBusinessGone(store, gone, { hostname: `${gone}.us.sandbox.test`, reason: 'test', at });

    // Act: e.g. a second AccountCreated refused ACCOUNT_ALREADY_PROVISIONED or SIGNUP_COMMITTED_UNCONFIRMED.
    const recorded = await Promise.all(
      [active, unconfirmed, gone].map((accountId) =>
        recordSignupFailed(store, failure(accountId, 'evt-2', 'ACCOUNT_ALREADY_PROVISIONED')),
      ),
    );

    // Assess
    expect(recorded).toEqual([false, false, false]);
    expect((await getBusiness(store, active))?.status).toBe('ACTIVE');
    expect((await getBusiness(store, unconfirmed))?.status).toBe('UNCONFIRMED');
    expect((await getBusiness(store, gone))?.status).toBe('GONE');
  });
});

describe('claimSignup after RECEIVED or FAILED', () => {
  it('claims a RECEIVED account like a new one', async () => {
    // Prepare
    const accountId = newAccountId();
    await noteAccountCreatedReceived(store, { accountId, eventId: 'evt-1', region: 'US' });

    // Act
    const claim = await claimSignup(store, { accountId, eventId: 'evt-1', region: 'US' });

    // Assess
    expect(claim).toEqual({ claimed: true });
    const business = await getBusiness(store, accountId);
    expect(business).toMatchObject({ status: 'PENDING', eventId: 'evt-1', attempts: 1 });
    expect(business?.receivedAt).toBeUndefined();
  });

  it('claims a FAILED account for a new event, a follow-up when the failed claim may have committed', async () => {
    // Prepare
    const refused = newAccountId();
    const gaveUp = newAccountId();
    await recordSignupFailed(store, failure(refused, 'evt-1'));
    await claimSignup(store, { accountId: gaveUp, eventId: 'evt-1', region: 'US' });
    await recordSignupFailed(store, failure(gaveUp, 'evt-1', 'RETRIES_EXHAUSTED'));

    // Act
    const afterRefusal = await claimSignup(store, { accountId: refused, eventId: 'evt-2', region: 'US' });
    const afterGivingUp = await claimSignup(store, { accountId: gaveUp, eventId: 'evt-2', region: 'US' });

    // Assess
    expect(afterRefusal).toEqual({ claimed: true });
    expect(afterGivingUp).toEqual({ claimed: true, resumesFailedSignup: true });
    const business = await getBusiness(store, gaveUp);
    expect(business).toMatchObject({ status: 'PENDING', eventId: 'evt-2', attempts: 1 });
    expect(business?.failure).toBeUndefined();
    expect(business?.signupMayHaveCommitted).toBeUndefined();
  });

  it('lets exactly one of two concurrent deliveries claim a FAILED account', async () => {
    // Prepare
    const accountId = newAccountId();
    await recordSignupFailed(store, failure(accountId, 'evt-1'));

    // Act
    const claims = await Promise.all([
      claimSignup(store, { accountId, eventId: 'evt-a', region: 'US' }),
      claimSignup(store, { accountId, eventId: 'evt-b', region: 'US' }),
    ]);

    // Assess
    expect(claims.filter((claim) => claim.claimed)).toHaveLength(1);
    expect(claims.find((claim) => !claim.claimed)).toMatchObject({ existing: { status: 'PENDING' } });
  });
});
