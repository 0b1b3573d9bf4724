import { describe, expect, it } from 'vitest';
import { getBusiness } from '#functions/store/business.ts';
import {
  provisionAccount,
  runDriftWatch,
  sqsFifoBatch,
  uniqueAccountId,
  useFlowHarness,
} from '#test/flows/support/harness.ts';
import {
  deletedBusiness,
  driftWatchWithNotLinkedCode,
  upgradeChosen,
  whileAnsweredWithoutCode,
} from './error-readings-support.ts';

/** How answers without a code and deletions are read by a deployment that reads them otherwise (error-readings-support.ts). */
describe('error readings a deployment configures', () => {
  const flow = useFlowHarness({
    config: {
      serviceAssumptions: {
        hostnameNotLinkedStatuses: [404],
        hostnameNotLinkedMessagePatterns: [],
        uncodedStatusReadings: { '403': 'token-refused', '404': 'not-linked' },
      },
    },
  });

  it('makes a change-plan answered 403 without a code wait as a refused token when the deployment reads it so', async () => {
    // Prepare
    const accountId = uniqueAccountId('bare-403-token');
    await provisionAccount(flow, accountId);
    const batch = sqsFifoBatch([upgradeChosen(accountId)]);

    // Act
    const response = await whileAnsweredWithoutCode(flow, 'change-plan', 403, () =>
      flow.invokeBatch('change-plan', batch),
    );

    // Assess: the record waits for a fixed token; nothing is refused or changed.
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: batch.Records[0]?.messageId }]);
    expect(flow.publishedFor(accountId, 'SyncFailed')).toEqual([]);
    expect(flow.publishedFor(accountId, 'PlanChanged')).toEqual([]);
  });

  it('announces BusinessGone for a deletion answered as a plain 404, with HTTP 404 as reason', async () => {
    // Prepare
    const { accountId, hostname, now } = await deletedBusiness(flow, 'plain-404-configured');

    // Act
    const report = await whileAnsweredWithoutCode(flow, 'subscription-status', 404, () =>
      runDriftWatch(flow, now),
    );

    // Assess
    expect(report.goneAnnounced).toBeGreaterThanOrEqual(1);
    expect(flow.publishedFor(accountId, 'BusinessGone').map((event) => event.detail)).toEqual([
      expect.objectContaining({ hostname, reason: 'HTTP 404' }),
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ status: 'GONE' });
  });

  it('takes no message for a deletion when the deployment names no pattern: a failed check', async () => {
    // Prepare
    const { accountId, now } = await deletedBusiness(flow, 'message-off');

    // Act
    const report = await driftWatchWithNotLinkedCode(flow, 'PARTNER_MISMATCH', now);

    // Assess
    expect(report.failed).toBeGreaterThanOrEqual(1);
    expect(flow.publishedFor(accountId, 'BusinessGone')).toEqual([]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ status: 'ACTIVE' });
  });
});
