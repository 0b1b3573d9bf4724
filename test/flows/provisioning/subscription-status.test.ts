import { describe, expect, it } from 'vitest';
import { getBusiness } from '#functions/store/business.ts';
import { findTrialsEndingBefore } from '#functions/store/trial-index.ts';
import {
  inboundEvent,
  provisionAccount,
  provisioningCalls,
  sandboxBusinessOf,
  sqsFifoBatch,
  US_BILLING_ADDRESS,
  uniqueAccountId,
  useFlowHarness,
} from '#test/flows/support/harness.ts';

const flow = useFlowHarness();

const statusCalls = async () => (await provisioningCalls(flow, 'subscription-status')).length;
const statusRequested = (accountId: string) => inboundEvent('SubscriptionStatusRequested', { accountId });

describe('SubscriptionStatusRequested → subscription-status', () => {
  it('answers with SubscriptionStatus as the service reports it', async () => {
    // Prepare
    const accountId = uniqueAccountId('status');
    const hostname = await provisionAccount(flow, accountId);
    const [business] = await sandboxBusinessOf(flow, accountId);
    const event = statusRequested(accountId);

    // Act
    const response = await flow.invokeBatch('subscription-status', sqsFifoBatch([event]));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(flow.publishedFor(accountId, 'SubscriptionStatus').map((published) => published.detail)).toEqual([
      {
        accountId,
        hostname,
        causationId: event.id,
        edition: 'SUBSCRIPTION_PRO_TRIAL',
        trialEndDate: business?.trialEndDate,
        conversionDate: '',
        status: 'ACTIVE',
      },
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ lastSyncAt: expect.any(String) });
  });

  it('refreshes the mapping from the answer: a business converted at the service leaves the trial index', async () => {
    // Prepare
    const accountId = uniqueAccountId('refresh');
    const hostname = await provisionAccount(flow, accountId);
    await flow.sandbox('POST', '/connect/v1/partner/acme/change-plan', {
      data: { hostname, action: 'upgrade', address: US_BILLING_ADDRESS },
    });

    // Act
    await flow.invokeBatch('subscription-status', sqsFifoBatch([statusRequested(accountId)]));

    // Assess
    expect(flow.publishedFor(accountId, 'SubscriptionStatus').at(-1)?.detail).toMatchObject({
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
    expect(await getBusiness(flow.store, accountId)).toMatchObject({
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
    const trials = await findTrialsEndingBefore(flow.store, '2999-01-01T00:00:00Z');
    expect(trials.items.map((trial) => trial.accountId)).not.toContain(accountId);
  });

  it('makes no second status call when the same event is delivered again', async () => {
    // Prepare
    const accountId = uniqueAccountId('status-redelivered');
    await provisionAccount(flow, accountId);
    const event = statusRequested(accountId);
    await flow.invokeBatch('subscription-status', sqsFifoBatch([event]));
    const callsBefore = await statusCalls();

    // Act
    const response = await flow.invokeBatch(
      'subscription-status',
      sqsFifoBatch([event], { receiveCount: 2 }),
    );

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(await statusCalls()).toBe(callsBefore);
    expect(flow.publishedFor(accountId, 'SubscriptionStatus')).toHaveLength(1);
  });

  it('retries a request for an account that has no business, without calling the service', async () => {
    // Prepare
    const accountId = uniqueAccountId('status-unknown');
    const callsBefore = await statusCalls();
    const batch = sqsFifoBatch([statusRequested(accountId)]);

    // Act
    const response = await flow.invokeBatch('subscription-status', batch);

    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: batch.Records[0]?.messageId }]);
    expect(await statusCalls()).toBe(callsBefore);
    expect(flow.publishedFor(accountId)).toEqual([]);
  });
});
