import { afterEach, describe, expect, it } from 'vitest';
import { getAccountByHostname, getBusiness } from '#functions/store/business.ts';
import { claimSignup, recordSignupFailed } from '#functions/store/signup.ts';
import { findTrialsEndingBefore } from '#functions/store/trial-index.ts';
import {
  accountCreatedDetail,
  dropNextAnswerAfterCommit,
  inboundEvent,
  provisioningCalls,
  sandboxBusinessOf,
  sqsFifoBatch,
  uniqueAccountId,
  uniqueEmail,
  useFlowHarness,
} from '#test/flows/support/harness.ts';

const flow = useFlowHarness();
afterEach(async () => {
  await flow.sandbox('DELETE', '/_sandbox/faults');
});

const signupCalls = async () => (await provisioningCalls(flow, 'signup')).length;

function syncFailedFor(accountId: string) {
  return flow.publishedFor(accountId, 'SyncFailed').map((event) => event.detail);
}

describe('AccountCreated → provision-business', () => {
  it('signs the business up, records the mapping and publishes BusinessProvisioned', async () => {
    // Prepare
    const accountId = uniqueAccountId('happy');
    const event = inboundEvent('AccountCreated', accountCreatedDetail(accountId));

    // Act
    const response = await flow.invokeBatch('provision-business', sqsFifoBatch([event]));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    const [business, ...others] = await sandboxBusinessOf(flow, accountId);
    expect(others).toEqual([]);
    expect(business).toMatchObject({ portfolioName: 'Harbor Cafe', edition: 'SUBSCRIPTION_PRO_TRIAL' });
    const hostname = business?.hostname ?? '';
    expect(flow.publishedFor(accountId)).toEqual([
      expect.objectContaining({
        detailType: 'BusinessProvisioned',
        source: 'workforce.connector',
        detail: {
          accountId,
          hostname,
          causationId: event.id,
          edition: 'SUBSCRIPTION_PRO_TRIAL',
          trialEndDate: business?.trialEndDate,
          region: 'US',
        },
      }),
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({
      status: 'ACTIVE',
      hostname,
      edition: 'SUBSCRIPTION_PRO_TRIAL',
      trialEndDate: business?.trialEndDate,
      eventId: event.id,
    });
    expect(await getAccountByHostname(flow.store, hostname)).toBe(accountId);
    const trials = await findTrialsEndingBefore(flow.store, '2999-01-01T00:00:00Z');
    expect(trials.items.map((trial) => trial.accountId)).toContain(accountId);
  });

  it('creates a UK business at the UK root when the deployment configures one', async () => {
    // Prepare: this harness gives every region a root (the sandbox simulates UK under /regions/uk).
    const accountId = uniqueAccountId('uk');

    // Act
    await flow.invokeBatch(
      'provision-business',
      sqsFifoBatch([inboundEvent('AccountCreated', accountCreatedDetail(accountId, { region: 'UK' }))]),
    );

    // Assess
    const [published] = flow.publishedFor(accountId, 'BusinessProvisioned');
    expect(published?.detail).toMatchObject({
      region: 'UK',
      hostname: expect.stringMatching(/\.uk\.sandbox\.test$/),
    });
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ region: 'UK', status: 'ACTIVE' });
  });

  it('never signs up twice when the same event is delivered again', async () => {
    // Prepare
    const accountId = uniqueAccountId('redelivered');
    const event = inboundEvent('AccountCreated', accountCreatedDetail(accountId));
    await flow.invokeBatch('provision-business', sqsFifoBatch([event]));
    const callsBefore = await signupCalls();

    // Act
    const response = await flow.invokeBatch('provision-business', sqsFifoBatch([event], { receiveCount: 2 }));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(await signupCalls()).toBe(callsBefore);
    expect(await sandboxBusinessOf(flow, accountId)).toHaveLength(1);
    expect(flow.publishedFor(accountId, 'BusinessProvisioned')).toHaveLength(1);
    expect(syncFailedFor(accountId)).toEqual([]);
  });

  it('refuses a second AccountCreated for a provisioned account with ACCOUNT_ALREADY_PROVISIONED, without calling signup', async () => {
    // Prepare
    const accountId = uniqueAccountId('second');
    await flow.invokeBatch(
      'provision-business',
      sqsFifoBatch([inboundEvent('AccountCreated', accountCreatedDetail(accountId))]),
    );
    const callsBefore = await signupCalls();
    const second = inboundEvent('AccountCreated', accountCreatedDetail(accountId));

    // Act
    const response = await flow.invokeBatch('provision-business', sqsFifoBatch([second]));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(await signupCalls()).toBe(callsBefore);
    expect(await sandboxBusinessOf(flow, accountId)).toHaveLength(1);
    expect(syncFailedFor(accountId)).toEqual([
      expect.objectContaining({
        sourceEventId: second.id,
        detailType: 'AccountCreated',
        code: 'ACCOUNT_ALREADY_PROVISIONED',
      }),
    ]);
  });

  it('reports a duplicate owner e-mail with EMAIL_ALREADY_EXISTS, releases the claim and leaves the account FAILED', async () => {
    // Prepare
    const email = uniqueEmail('taken');
    const first = uniqueAccountId('email-first');
    const second = uniqueAccountId('email-second');
    const owner = { firstName: 'Avery', lastName: 'Stone', email };
    await flow.invokeBatch(
      'provision-business',
      sqsFifoBatch([inboundEvent('AccountCreated', accountCreatedDetail(first, { owner }))]),
    );

    // Act
    const event = inboundEvent('AccountCreated', accountCreatedDetail(second, { owner }));
    const response = await flow.invokeBatch('provision-business', sqsFifoBatch([event]));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    const [failure] = syncFailedFor(second);
    expect(failure).toMatchObject({ code: 'EMAIL_ALREADY_EXISTS', sourceEventId: event.id });
    expect(String(failure?.message)).not.toContain(email);
    expect(await sandboxBusinessOf(flow, second)).toEqual([]);
    // No claim left (nothing was created); FAILED, so the account's other events end at once.
    const business = await getBusiness(flow.store, second);
    expect(business).toMatchObject({
      status: 'FAILED',
      failure: { eventId: event.id, code: 'EMAIL_ALREADY_EXISTS' },
    });
    expect(business?.signupMayHaveCommitted).toBeUndefined();
  });

  it('reports an externalId the service already holds with EXTERNAL_ID_NOT_UNIQUE', async () => {
    // Prepare: the service already has a business for this externalId that the table does not know.
    const accountId = uniqueAccountId('external');
    await flow.sandbox('POST', '/connect/v1/partner/acme/signup', {
      userData: { firstName: 'Out', lastName: 'OfBand', email: uniqueEmail('oob') },
      businessData: { externalId: accountId, portfolioName: 'Elsewhere' },
    });
    const callsBefore = await signupCalls();

    // Act
    const event = inboundEvent('AccountCreated', accountCreatedDetail(accountId));
    await flow.invokeBatch('provision-business', sqsFifoBatch([event]));

    // Assess
    expect(await signupCalls()).toBe(callsBefore + 1);
    expect(syncFailedFor(accountId)).toEqual([expect.objectContaining({ code: 'EXTERNAL_ID_NOT_UNIQUE' })]);
    expect(await sandboxBusinessOf(flow, accountId)).toHaveLength(1);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({
      status: 'FAILED',
      failure: { eventId: event.id, code: 'EXTERNAL_ID_NOT_UNIQUE' },
    });
  });

  it('reports an invalid mobile number with INVALID_MOBILE_NUMBER, and a corrected event then succeeds', async () => {
    // Prepare: 7 digits pass the contract's shape check but not the service's 8-15 digit rule.
    const accountId = uniqueAccountId('mobile');
    const owner = {
      firstName: 'Avery',
      lastName: 'Stone',
      email: uniqueEmail('mobile'),
      mobileNumber: '1234567',
    };

    // Act
    await flow.invokeBatch(
      'provision-business',
      sqsFifoBatch([inboundEvent('AccountCreated', accountCreatedDetail(accountId, { owner }))]),
    );
    const corrected = inboundEvent(
      'AccountCreated',
      accountCreatedDetail(accountId, { owner: { ...owner, mobileNumber: '+1 415 555 0199' } }),
    );
    await flow.invokeBatch('provision-business', sqsFifoBatch([corrected]));

    // Assess
    expect(syncFailedFor(accountId)).toEqual([expect.objectContaining({ code: 'INVALID_MOBILE_NUMBER' })]);
    expect(flow.publishedFor(accountId, 'BusinessProvisioned')).toEqual([
      expect.objectContaining({ detail: expect.objectContaining({ causationId: corrected.id }) }),
    ]);
    expect(await sandboxBusinessOf(flow, accountId)).toHaveLength(1);
    // The failure of the first event is gone with the corrected one's claim.
    const business = await getBusiness(flow.store, accountId);
    expect(business).toMatchObject({ status: 'ACTIVE', eventId: corrected.id });
    expect(business?.failure).toBeUndefined();
  });

  it('refuses an employee count of 0 before calling the service, naming the field', async () => {
    // Prepare
    const accountId = uniqueAccountId('count');
    const callsBefore = await signupCalls();

    // Act
    await flow.invokeBatch(
      'provision-business',
      sqsFifoBatch([
        inboundEvent('AccountCreated', accountCreatedDetail(accountId, { estimatedEmployeeCount: 0 })),
      ]),
    );

    // Assess
    expect(await signupCalls()).toBe(callsBefore);
    const [failure] = syncFailedFor(accountId);
    expect(failure).toMatchObject({ code: 'INVALID_DETAIL' });
    expect(String(failure?.message)).toContain('estimatedEmployeeCount');
  });

  it('marks a signup whose answer was lost after commit UNCONFIRMED and says SIGNUP_COMMITTED_UNCONFIRMED', async () => {
    // Prepare: the service commits the first signup, then the connection dies before the answer.
    const accountId = uniqueAccountId('dropped');
    await dropNextAnswerAfterCommit(flow, '/connect/v1/partner/acme/signup');
    const event = inboundEvent('AccountCreated', accountCreatedDetail(accountId));

    // Act
    const response = await flow.invokeBatch('provision-business', sqsFifoBatch([event]));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(syncFailedFor(accountId)).toEqual([
      expect.objectContaining({ code: 'SIGNUP_COMMITTED_UNCONFIRMED', sourceEventId: event.id }),
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ status: 'UNCONFIRMED' });
    expect(await sandboxBusinessOf(flow, accountId)).toHaveLength(1);
    expect(flow.publishedFor(accountId, 'BusinessProvisioned')).toEqual([]);
  });

  it('does not call signup again for an UNCONFIRMED account when its event is redelivered', async () => {
    // Prepare
    const accountId = uniqueAccountId('unconfirmed');
    await dropNextAnswerAfterCommit(flow, '/connect/v1/partner/acme/signup');
    const event = inboundEvent('AccountCreated', accountCreatedDetail(accountId));
    await flow.invokeBatch('provision-business', sqsFifoBatch([event]));
    const callsBefore = await signupCalls();

    // Act
    await flow.invokeBatch('provision-business', sqsFifoBatch([event], { receiveCount: 2 }));

    // Assess
    expect(await signupCalls()).toBe(callsBefore);
    expect(syncFailedFor(accountId).map((failure) => failure['code'])).toEqual([
      'SIGNUP_COMMITTED_UNCONFIRMED',
      'SIGNUP_COMMITTED_UNCONFIRMED',
    ]);
    expect(await sandboxBusinessOf(flow, accountId)).toHaveLength(1);
  });

  it('resumes a PENDING claim left by a crash before the call: one signup, business recorded', async () => {
    // Prepare: an earlier delivery claimed the signup and died before calling the service.
    const accountId = uniqueAccountId('crash-before');
    const event = inboundEvent('AccountCreated', accountCreatedDetail(accountId));
    await claimSignup(flow.store, { accountId, eventId: event.id, region: 'US' });
    const callsBefore = await signupCalls();

    // Act
    await flow.invokeBatch('provision-business', sqsFifoBatch([event], { receiveCount: 2 }));

    // Assess
    expect(await signupCalls()).toBe(callsBefore + 1);
    expect(flow.publishedFor(accountId, 'BusinessProvisioned')).toHaveLength(1);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ status: 'ACTIVE' });
  });

  it('reads a duplicate rejection after a crash past the call as a committed signup (UNCONFIRMED)', async () => {
    // Prepare: the earlier delivery claimed, the service committed, and the Lambda died.
    const accountId = uniqueAccountId('crash-after');
    const detail = accountCreatedDetail(accountId);
    const event = inboundEvent('AccountCreated', detail);
    await claimSignup(flow.store, { accountId, eventId: event.id, region: 'US' });
    const owner = detail['owner'] as { firstName: string; lastName: string; email: string };
    await flow.sandbox('POST', '/connect/v1/partner/acme/signup', {
      userData: owner,
      businessData: { externalId: accountId, portfolioName: 'Harbor Cafe' },
    });

    // Act
    await flow.invokeBatch('provision-business', sqsFifoBatch([event], { receiveCount: 2 }));

    // Assess
    expect(syncFailedFor(accountId)).toEqual([
      expect.objectContaining({ code: 'SIGNUP_COMMITTED_UNCONFIRMED' }),
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ status: 'UNCONFIRMED' });
    expect(await sandboxBusinessOf(flow, accountId)).toHaveLength(1);
  });

  it('signs up a new AccountCreated after one that gave up as a follow-up: its committed signup is found, never doubled', async () => {
    // Prepare: an earlier AccountCreated claimed, the service committed, the answer never came
    // back, and the event gave up (RETRIES_EXHAUSTED): the account FAILED with its claim taken.
    const accountId = uniqueAccountId('after-give-up');
    const detail = accountCreatedDetail(accountId);
    await claimSignup(flow.store, { accountId, eventId: 'evt-gave-up', region: 'US' });
    await flow.sandbox('POST', '/connect/v1/partner/acme/signup', {
      userData: detail['owner'],
      businessData: { externalId: accountId, portfolioName: 'Harbor Cafe' },
    });
    await recordSignupFailed(flow.store, {
      accountId,
      eventId: 'evt-gave-up',
      region: 'US',
      code: 'RETRIES_EXHAUSTED',
      message: 'gave up after 5 attempt(s); last error TIMEOUT',
    });

    // Act: the partner publishes AccountCreated again (a new event id).
    const again = inboundEvent('AccountCreated', detail);
    const response = await flow.invokeBatch('provision-business', sqsFifoBatch([again]));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(syncFailedFor(accountId)).toEqual([
      expect.objectContaining({ code: 'SIGNUP_COMMITTED_UNCONFIRMED', sourceEventId: again.id }),
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ status: 'UNCONFIRMED' });
    expect(await sandboxBusinessOf(flow, accountId)).toHaveLength(1);
  });
});
