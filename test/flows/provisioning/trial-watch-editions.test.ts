import { describe, expect, it } from 'vitest';
import { getBusiness } from '#functions/store/business.ts';
import { findTrialsEndingBefore } from '#functions/store/trial-index.ts';
import {
  provisionAccount,
  provisioningCalls,
  runTrialWatch,
  US_BILLING_ADDRESS,
  uniqueAccountId,
  useFlowHarness,
} from '#test/flows/support/harness.ts';

const flow = useFlowHarness();

describe('trial watch after the trial end', () => {
  it('announces TrialEnded with the edition the service reports, also for a business converted outside the connector', async () => {
    // Prepare: one trial runs out; the other was converted directly at the service, so the
    // table still files it as a trial.
    const lapsed = uniqueAccountId('lapsed');
    const convertedElsewhere = uniqueAccountId('converted-elsewhere');
    await provisionAccount(flow, lapsed);
    const convertedHostname = await provisionAccount(flow, convertedElsewhere);
    await flow.sandbox('POST', '/connect/v1/partner/acme/change-plan', {
      data: { hostname: convertedHostname, action: 'upgrade', address: US_BILLING_ADDRESS },
    });
    const { now } = await flow.sandbox<{ now: string }>('POST', '/_sandbox/clock', { advanceDays: 31 });
    const statusCallsBefore = (await provisioningCalls(flow, 'subscription-status')).length;

    // Act
    const report = await runTrialWatch(flow, now);

    // Assess
    expect(report).toMatchObject({ itemsRead: 2, endedAnnounced: 2, failed: 0, complete: true });
    expect((await provisioningCalls(flow, 'subscription-status')).length).toBe(statusCallsBefore + 2);
    expect(flow.publishedFor(lapsed, 'TrialEnded').map((event) => event.detail['edition'])).toEqual([
      'SUBSCRIPTION_FREE',
    ]);
    expect(
      flow.publishedFor(convertedElsewhere, 'TrialEnded').map((event) => event.detail['edition']),
    ).toEqual(['SUBSCRIPTION_PAID_PRO_PREMIUM']);
    expect(flow.published('TrialExpiring')).toEqual([]);
    expect(await getBusiness(flow.store, lapsed)).toMatchObject({ edition: 'SUBSCRIPTION_FREE' });
    expect(await getBusiness(flow.store, convertedElsewhere)).toMatchObject({
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
    const stillIndexed = (await findTrialsEndingBefore(flow.store, '2999-01-01T00:00:00Z')).items;
    expect(stillIndexed.map((trial) => trial.accountId)).toEqual([]);
  });
});
