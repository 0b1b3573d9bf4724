import { describe, expect, it } from 'vitest';
import { getBusiness } from '#functions/store/business.ts';
import { claimSignup, recordProvisioned } from '#functions/store/signup.ts';
import {
  inboundEvent,
  provisionAccount,
  provisioningCalls,
  sandboxBusinessOf,
  sqsFifoBatch,
  US_BILLING_ADDRESS,
  uniqueAccountId,
  uniqueEmail,
  useFlowHarness,
} from '#test/flows/support/harness.ts';

/**
 * Service refusals the connector cannot check before calling: they reach the service, and the
 * service's own code must come back in SyncFailed with the record acknowledged (never retried).
 */

const flow = useFlowHarness();

interface Signup {
  data: { hostname: string; edition: string; trialEndDate: string };
}

describe('service refusals on the provisioning routes', () => {
  it('answers a status request for a business linked to another partner with HOSTNAME_NOT_LINKED', async () => {
    // Prepare: the mapping points at a business another partner created, so the service refuses it.
    const accountId = uniqueAccountId('not-linked');
    const foreign = await flow.sandbox<Signup>('POST', '/connect/v1/partner/globex/signup', {
      userData: { firstName: 'Kim', lastName: 'Lee', email: uniqueEmail('globex') },
      businessData: { externalId: accountId, portfolioName: 'Globex Diner' },
    });
    await claimSignup(flow.store, { accountId, eventId: 'operator', region: 'US' });
    await recordProvisioned(flow.store, {
      accountId,
      hostname: foreign.data.hostname,
      edition: foreign.data.edition,
      trialEndDate: foreign.data.trialEndDate,
      region: 'US',
      eventId: 'operator',
    });
    const event = inboundEvent('SubscriptionStatusRequested', { accountId });
    const callsBefore = (await provisioningCalls(flow, 'subscription-status')).length;

    // Act
    const response = await flow.invokeBatch('subscription-status', sqsFifoBatch([event]));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect((await provisioningCalls(flow, 'subscription-status')).length).toBe(callsBefore + 1);
    expect(flow.publishedFor(accountId, 'SubscriptionStatus')).toEqual([]);
    expect(flow.publishedFor(accountId, 'SyncFailed').map((published) => published.detail)).toEqual([
      expect.objectContaining({
        code: 'HOSTNAME_NOT_LINKED',
        sourceEventId: event.id,
        detailType: 'SubscriptionStatusRequested',
      }),
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({
      lastError: expect.objectContaining({ code: 'HOSTNAME_NOT_LINKED' }),
    });
  });

  it("takes the service's word when the business was cancelled behind the mapping's back", async () => {
    // Prepare: converted through the connector, then cancelled directly at the service.
    const accountId = uniqueAccountId('cancelled-elsewhere');
    const hostname = await provisionAccount(flow, accountId);
    await flow.invokeBatch(
      'change-plan',
      sqsFifoBatch([
        inboundEvent('PlanChosen', { accountId, plan: 'PREMIUM', billingAddress: US_BILLING_ADDRESS }),
      ]),
    );
    await flow.sandbox('POST', '/connect/v1/partner/acme/change-plan', {
      data: { hostname, action: 'cancel' },
    });
    const event = inboundEvent('PlanChosen', { accountId, plan: 'FREE' });

    // Act
    const response = await flow.invokeBatch('change-plan', sqsFifoBatch([event]));

    // Assess: the cancel refusal is checked against subscription-status, which shows FREE.
    expect(response.batchItemFailures).toEqual([]);
    expect(flow.publishedFor(accountId, 'SyncFailed')).toEqual([]);
    expect(flow.publishedFor(accountId, 'PlanChanged').map((published) => published.detail)).toEqual([
      expect.objectContaining({ edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM' }),
      expect.objectContaining({
        edition: 'SUBSCRIPTION_FREE',
        previousEdition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
      }),
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ edition: 'SUBSCRIPTION_FREE' });
  });
});

describe('plan events of one account arriving in a row', () => {
  it('applies PREMIUM then FREE in the order they were published within one batch', async () => {
    // Prepare
    const accountId = uniqueAccountId('plan-sequence');
    await provisionAccount(flow, accountId);
    const premium = inboundEvent('PlanChosen', {
      accountId,
      plan: 'PREMIUM',
      billingAddress: US_BILLING_ADDRESS,
    });
    const free = inboundEvent('PlanChosen', { accountId, plan: 'FREE' });

    // Act
    const response = await flow.invokeBatch('change-plan', sqsFifoBatch([premium, free]));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(
      flow
        .publishedFor(accountId, 'PlanChanged')
        .map((published) => [published.detail['causationId'], published.detail['edition']]),
    ).toEqual([
      [premium.id, 'SUBSCRIPTION_PAID_PRO_PREMIUM'],
      [free.id, 'SUBSCRIPTION_FREE'],
    ]);
    expect(await sandboxBusinessOf(flow, accountId)).toEqual([
      expect.objectContaining({ edition: 'SUBSCRIPTION_FREE' }),
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ edition: 'SUBSCRIPTION_FREE' });
  });

  it('does not undo a later plan when an earlier plan event is redelivered after it', async () => {
    // Prepare: PREMIUM applied, then FREE applied; the PREMIUM event comes back late.
    const accountId = uniqueAccountId('plan-late');
    await provisionAccount(flow, accountId);
    const premium = inboundEvent('PlanChosen', {
      accountId,
      plan: 'PREMIUM',
      billingAddress: US_BILLING_ADDRESS,
    });
    await flow.invokeBatch('change-plan', sqsFifoBatch([premium]));
    await flow.invokeBatch(
      'change-plan',
      sqsFifoBatch([inboundEvent('PlanChosen', { accountId, plan: 'FREE' })]),
    );
    const callsBefore = (await provisioningCalls(flow, 'change-plan')).length;

    // Act
    const response = await flow.invokeBatch('change-plan', sqsFifoBatch([premium], { receiveCount: 2 }));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect((await provisioningCalls(flow, 'change-plan')).length).toBe(callsBefore);
    expect(flow.publishedFor(accountId, 'PlanChanged')).toHaveLength(2);
    expect(await sandboxBusinessOf(flow, accountId)).toEqual([
      expect.objectContaining({ edition: 'SUBSCRIPTION_FREE' }),
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ edition: 'SUBSCRIPTION_FREE' });
  });
});
