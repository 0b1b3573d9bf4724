import { describe, expect, it } from 'vitest';
import { getBusiness, updateEdition } from '#functions/store/business.ts';
import { findTrialsEndingBefore } from '#functions/store/trial-index.ts';
import {
  accountCreatedDetail,
  dropNextAnswerAfterCommit,
  inboundEvent,
  occurredNow,
  provisionAccount,
  provisioningCalls,
  sandboxBusinessOf,
  sqsFifoBatch,
  US_BILLING_ADDRESS,
  uniqueAccountId,
  useFlowHarness,
} from '#test/flows/support/harness.ts';

const flow = useFlowHarness();

const changePlanCalls = async () => (await provisioningCalls(flow, 'change-plan')).length;
const statusCalls = async () => (await provisioningCalls(flow, 'subscription-status')).length;

function planChosen(accountId: string, plan: 'PREMIUM' | 'FREE', billingAddress?: object) {
  return inboundEvent('PlanChosen', {
    accountId,
    plan,
    ...(billingAddress === undefined ? {} : { billingAddress }),
    // Choices are newer in the order a test makes them (last writer wins per plan).
    occurredAt: occurredNow(),
  });
}

async function isInTrialIndex(accountId: string): Promise<boolean> {
  const trials = await findTrialsEndingBefore(flow.store, '2999-01-01T00:00:00Z');
  return trials.items.some((trial) => trial.accountId === accountId);
}

describe('PlanChosen → change-plan', () => {
  it('converts a trial to premium, updates the mapping and publishes PlanChanged', async () => {
    // Prepare
    const accountId = uniqueAccountId('upgrade');
    const hostname = await provisionAccount(flow, accountId);
    const [business] = await sandboxBusinessOf(flow, accountId);
    const event = planChosen(accountId, 'PREMIUM', US_BILLING_ADDRESS);

    // Act
    const response = await flow.invokeBatch('change-plan', sqsFifoBatch([event]));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(await sandboxBusinessOf(flow, accountId)).toEqual([
      expect.objectContaining({ hostname, edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM' }),
    ]);
    expect(flow.publishedFor(accountId, 'PlanChanged').map((published) => published.detail)).toEqual([
      {
        accountId,
        hostname,
        causationId: event.id,
        edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
        previousEdition: 'SUBSCRIPTION_PRO_TRIAL',
        // Converted during the trial: billing starts the day after the trial end.
        billingStartsOn: dayAfter(business?.trialEndDate),
      },
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
    expect(await isInTrialIndex(accountId)).toBe(false);
  });

  it('cancels a premium business to free', async () => {
    // Prepare
    const accountId = uniqueAccountId('cancel');
    await provisionAccount(flow, accountId);
    await flow.invokeBatch(
      'change-plan',
      sqsFifoBatch([planChosen(accountId, 'PREMIUM', US_BILLING_ADDRESS)]),
    );

    // Act
    await flow.invokeBatch('change-plan', sqsFifoBatch([planChosen(accountId, 'FREE')]));

    // Assess
    expect(await sandboxBusinessOf(flow, accountId)).toEqual([
      expect.objectContaining({ edition: 'SUBSCRIPTION_FREE' }),
    ]);
    expect(flow.publishedFor(accountId, 'PlanChanged').at(-1)?.detail).toMatchObject({
      edition: 'SUBSCRIPTION_FREE',
      previousEdition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ edition: 'SUBSCRIPTION_FREE' });
  });

  it('makes no second change-plan call when the same event is delivered again', async () => {
    // Prepare
    const accountId = uniqueAccountId('plan-redelivered');
    await provisionAccount(flow, accountId);
    const event = planChosen(accountId, 'PREMIUM', US_BILLING_ADDRESS);
    await flow.invokeBatch('change-plan', sqsFifoBatch([event]));
    const callsBefore = await changePlanCalls();

    // Act
    const response = await flow.invokeBatch('change-plan', sqsFifoBatch([event], { receiveCount: 2 }));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(await changePlanCalls()).toBe(callsBefore);
    expect(flow.publishedFor(accountId, 'PlanChanged')).toHaveLength(1);
    expect(flow.publishedFor(accountId, 'SyncFailed')).toEqual([]);
  });

  it('confirms a plan the table already shows with one subscription-status call and no change-plan call', async () => {
    // Prepare
    const accountId = uniqueAccountId('same-plan');
    const hostname = await provisionAccount(flow, accountId);
    await flow.invokeBatch(
      'change-plan',
      sqsFifoBatch([planChosen(accountId, 'PREMIUM', US_BILLING_ADDRESS)]),
    );
    const callsBefore = await changePlanCalls();
    const statusCallsBefore = await statusCalls();
    const event = planChosen(accountId, 'PREMIUM', US_BILLING_ADDRESS);

    // Act
    const response = await flow.invokeBatch('change-plan', sqsFifoBatch([event]));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(await changePlanCalls()).toBe(callsBefore);
    expect(await statusCalls()).toBe(statusCallsBefore + 1);
    expect(flow.publishedFor(accountId, 'PlanChanged').at(-1)?.detail).toEqual({
      accountId,
      hostname,
      causationId: event.id,
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
      previousEdition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
      alreadyOnPlan: true,
    });
  });

  it('makes no subscription-status call when the table shows a change to make', async () => {
    // Prepare
    const accountId = uniqueAccountId('plain-upgrade');
    await provisionAccount(flow, accountId);
    const statusCallsBefore = await statusCalls();
    const callsBefore = await changePlanCalls();

    // Act
    await flow.invokeBatch(
      'change-plan',
      sqsFifoBatch([planChosen(accountId, 'PREMIUM', US_BILLING_ADDRESS)]),
    );

    // Assess
    expect(await statusCalls()).toBe(statusCallsBefore);
    expect(await changePlanCalls()).toBe(callsBefore + 1);
  });

  it('upgrades a business the service says is free while the table says premium', async () => {
    // Prepare: premium through the connector, then cancelled at the service behind its back.
    const accountId = uniqueAccountId('stale-table-free');
    const hostname = await provisionAccount(flow, accountId);
    await flow.invokeBatch(
      'change-plan',
      sqsFifoBatch([planChosen(accountId, 'PREMIUM', US_BILLING_ADDRESS)]),
    );
    await flow.sandbox('POST', `/_sandbox/businesses/${hostname}/edition`, {
      edition: 'SUBSCRIPTION_FREE',
    });
    const callsBefore = await changePlanCalls();
    const statusCallsBefore = await statusCalls();
    const event = planChosen(accountId, 'PREMIUM', US_BILLING_ADDRESS);

    // Act
    const response = await flow.invokeBatch('change-plan', sqsFifoBatch([event]));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(await statusCalls()).toBe(statusCallsBefore + 1);
    expect(await changePlanCalls()).toBe(callsBefore + 1);
    expect(await sandboxBusinessOf(flow, accountId)).toEqual([
      expect.objectContaining({ edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM' }),
    ]);
    expect(flow.publishedFor(accountId, 'PlanChanged').at(-1)?.detail).toEqual({
      accountId,
      hostname,
      causationId: event.id,
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
      previousEdition: 'SUBSCRIPTION_FREE',
    });
    expect(flow.publishedFor(accountId, 'SyncFailed')).toEqual([]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
  });

  it('records FREE chosen on a stored trial the service already ended, without a change-plan call', async () => {
    // Prepare: the trial ended at the service; the table still says trial.
    const accountId = uniqueAccountId('lapsed-trial');
    const hostname = await provisionAccount(flow, accountId);
    await flow.sandbox('POST', `/_sandbox/businesses/${hostname}/edition`, {
      edition: 'SUBSCRIPTION_FREE',
    });
    const callsBefore = await changePlanCalls();

    // Act
    const response = await flow.invokeBatch('change-plan', sqsFifoBatch([planChosen(accountId, 'FREE')]));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(await changePlanCalls()).toBe(callsBefore);
    expect(flow.publishedFor(accountId, 'PlanChanged').map((published) => published.detail)).toEqual([
      expect.objectContaining({
        edition: 'SUBSCRIPTION_FREE',
        previousEdition: 'SUBSCRIPTION_PRO_TRIAL',
        alreadyOnPlan: true,
      }),
    ]);
    expect(flow.publishedFor(accountId, 'SyncFailed')).toEqual([]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ edition: 'SUBSCRIPTION_FREE' });
  });

  it('cancels FREE chosen on a stored trial the service says was converted to premium', async () => {
    // Prepare: converted at the service behind the table's back.
    const accountId = uniqueAccountId('converted-trial');
    const hostname = await provisionAccount(flow, accountId);
    await flow.sandbox('POST', `/_sandbox/businesses/${hostname}/edition`, {
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });

    // Act
    await flow.invokeBatch('change-plan', sqsFifoBatch([planChosen(accountId, 'FREE')]));

    // Assess
    expect(await sandboxBusinessOf(flow, accountId)).toEqual([
      expect.objectContaining({ edition: 'SUBSCRIPTION_FREE' }),
    ]);
    expect(flow.publishedFor(accountId, 'PlanChanged').map((published) => published.detail)).toEqual([
      expect.objectContaining({
        edition: 'SUBSCRIPTION_FREE',
        previousEdition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
      }),
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ edition: 'SUBSCRIPTION_FREE' });
  });

  it('refuses a US upgrade without a billing address before calling: BILLING_ADDRESS_REQUIRED', async () => {
    // Prepare
    const accountId = uniqueAccountId('no-address');
    await provisionAccount(flow, accountId);
    const callsBefore = await changePlanCalls();
    const event = planChosen(accountId, 'PREMIUM');

    // Act
    await flow.invokeBatch('change-plan', sqsFifoBatch([event]));

    // Assess
    expect(await changePlanCalls()).toBe(callsBefore);
    expect(flow.publishedFor(accountId, 'SyncFailed').map((published) => published.detail)).toEqual([
      expect.objectContaining({
        code: 'BILLING_ADDRESS_REQUIRED',
        sourceEventId: event.id,
        detailType: 'PlanChosen',
      }),
    ]);
    expect(await sandboxBusinessOf(flow, accountId)).toEqual([
      expect.objectContaining({ edition: 'SUBSCRIPTION_PRO_TRIAL' }),
    ]);
  });

  it('refuses FREE on a trial the service confirms, without a change-plan call: CANNOT_CANCEL_TRIAL', async () => {
    // Prepare
    const accountId = uniqueAccountId('cancel-trial');
    await provisionAccount(flow, accountId);
    const callsBefore = await changePlanCalls();
    const statusCallsBefore = await statusCalls();

    // Act
    await flow.invokeBatch('change-plan', sqsFifoBatch([planChosen(accountId, 'FREE')]));

    // Assess
    expect(await changePlanCalls()).toBe(callsBefore);
    expect(await statusCalls()).toBe(statusCallsBefore + 1);
    expect(flow.publishedFor(accountId, 'SyncFailed')).toEqual([
      expect.objectContaining({ detail: expect.objectContaining({ code: 'CANNOT_CANCEL_TRIAL' }) }),
    ]);
    expect(await isInTrialIndex(accountId)).toBe(true);
  });

  it("takes the service's word when the business was converted behind the mapping's back", async () => {
    // Prepare: converted directly at the service, so the table still says trial.
    const accountId = uniqueAccountId('already-premium');
    const hostname = await provisionAccount(flow, accountId);
    await flow.sandbox('POST', '/connect/v1/partner/acme/change-plan', {
      data: { hostname, action: 'upgrade', address: US_BILLING_ADDRESS },
    });

    // Act
    const response = await flow.invokeBatch(
      'change-plan',
      sqsFifoBatch([planChosen(accountId, 'PREMIUM', US_BILLING_ADDRESS)]),
    );

    // Assess: the refusal (ALREADY_PREMIUM) is checked against subscription-status, which shows the plan.
    expect(response.batchItemFailures).toEqual([]);
    expect(flow.publishedFor(accountId, 'SyncFailed')).toEqual([]);
    expect(flow.publishedFor(accountId, 'PlanChanged').map((published) => published.detail)).toEqual([
      expect.objectContaining({
        edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
        previousEdition: 'SUBSCRIPTION_PRO_TRIAL',
      }),
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
  });

  it("reports the service's refusal when the service is not in the chosen plan", async () => {
    // Prepare: the table wrongly says premium while the service still holds the trial.
    const accountId = uniqueAccountId('stale-premium');
    await provisionAccount(flow, accountId);
    await updateEdition(flow.store, accountId, {
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
      syncedAt: new Date(Date.now() + 60_000),
    });
    const event = planChosen(accountId, 'FREE');

    // Act
    const response = await flow.invokeBatch('change-plan', sqsFifoBatch([event]));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(flow.publishedFor(accountId, 'SyncFailed').map((published) => published.detail)).toEqual([
      expect.objectContaining({ code: 'CANNOT_CANCEL', sourceEventId: event.id }),
    ]);
    expect(flow.publishedFor(accountId, 'PlanChanged')).toEqual([]);
    expect(await sandboxBusinessOf(flow, accountId)).toEqual([
      expect.objectContaining({ edition: 'SUBSCRIPTION_PRO_TRIAL' }),
    ]);
  });

  it('retries a plan chosen before the account exists, and applies it once the business is provisioned', async () => {
    // Prepare
    const accountId = uniqueAccountId('early-plan');
    const plan = planChosen(accountId, 'PREMIUM', US_BILLING_ADDRESS);
    const early = sqsFifoBatch([plan]);

    // Act
    const first = await flow.invokeBatch('change-plan', early);
    const hostname = await provisionAccount(flow, accountId);
    const second = await flow.invokeBatch('change-plan', sqsFifoBatch([plan], { receiveCount: 2 }));

    // Assess
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: early.Records[0]?.messageId }]);
    expect(second.batchItemFailures).toEqual([]);
    expect(flow.publishedFor(accountId, 'SyncFailed')).toEqual([]);
    expect(flow.publishedFor(accountId, 'PlanChanged')).toHaveLength(1);
    expect(await sandboxBusinessOf(flow, accountId)).toEqual([
      expect.objectContaining({ hostname, edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM' }),
    ]);
  });

  it('holds back the later events of the same account in a batch when an earlier one must be retried', async () => {
    // Prepare: both events of one message group; the first cannot run yet.
    const accountId = uniqueAccountId('group');
    const batch = sqsFifoBatch([
      planChosen(accountId, 'PREMIUM', US_BILLING_ADDRESS),
      planChosen(accountId, 'FREE'),
    ]);

    // Act
    const response = await flow.invokeBatch('change-plan', batch);

    // Assess
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(
      batch.Records.map((record) => record.messageId),
    );
    expect(flow.publishedFor(accountId)).toEqual([]);
  });

  it('retries an event for an unknown account instead of failing it', async () => {
    // Prepare
    const accountId = uniqueAccountId('unknown');
    const batch = sqsFifoBatch([planChosen(accountId, 'FREE')], { receiveCount: 4 });

    // Act
    const response = await flow.invokeBatch('change-plan', batch);

    // Assess
    expect(response.batchItemFailures).toHaveLength(1);
    expect(flow.publishedFor(accountId)).toEqual([]);
    expect(await getBusiness(flow.store, accountId)).toBeUndefined();
  });

  it('refuses a PlanChosen delivered to the provisioning route with WRONG_ROUTE and still provisions the other account', async () => {
    // Prepare: the provision-business route only takes AccountCreated.
    const accountId = uniqueAccountId('wrong-route');
    const plan = planChosen(accountId, 'PREMIUM', US_BILLING_ADDRESS);
    const other = uniqueAccountId('right-route');

    // Act
    const response = await flow.invokeBatch(
      'provision-business',
      sqsFifoBatch([plan, inboundEvent('AccountCreated', accountCreatedDetail(other))]),
    );

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(flow.publishedFor(accountId, 'SyncFailed')).toEqual([
      expect.objectContaining({ detail: expect.objectContaining({ code: 'WRONG_ROUTE' }) }),
    ]);
    expect(flow.publishedFor(other, 'BusinessProvisioned')).toHaveLength(1);
  });

  it('counts an upgrade as done when its answer was lost and the retry is refused as already premium', async () => {
    // Prepare: the service applies the upgrade, then the connection dies before the answer.
    const accountId = uniqueAccountId('upgrade-lost');
    const hostname = await provisionAccount(flow, accountId);
    await dropNextAnswerAfterCommit(flow, '/connect/v1/partner/acme/change-plan');
    const event = planChosen(accountId, 'PREMIUM', US_BILLING_ADDRESS);
    const first = await flow.invokeBatch('change-plan', sqsFifoBatch([event]));
    await flow.sandbox('DELETE', '/_sandbox/faults');

    // Act: SQS redelivers the record the first invocation could not finish.
    const retry = await flow.invokeBatch('change-plan', sqsFifoBatch([event], { receiveCount: 2 }));

    // Assess
    expect(first.batchItemFailures).toHaveLength(1);
    expect(retry.batchItemFailures).toEqual([]);
    expect(flow.publishedFor(accountId, 'SyncFailed')).toEqual([]);
    expect(flow.publishedFor(accountId, 'PlanChanged').map((published) => published.detail)).toEqual([
      expect.objectContaining({
        hostname,
        edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
        previousEdition: 'SUBSCRIPTION_PRO_TRIAL',
      }),
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
    expect(await sandboxBusinessOf(flow, accountId)).toEqual([
      expect.objectContaining({ edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM' }),
    ]);
  });
});

/** The UTC day after a trial end, as YYYY-MM-DD (computed here, not with the connector's code). */
function dayAfter(trialEndDate: string | undefined): string {
  const end = new Date(trialEndDate ?? '');
  return new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), end.getUTCDate() + 1))
    .toISOString()
    .slice(0, 10);
}
