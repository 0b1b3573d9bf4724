import { describe, expect, it } from 'vitest';
import { getBusiness } from '#functions/store/business.ts';
import {
  driftChecksDue,
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

/** How answers without a code and deletions are read with the default service assumptions (error-readings-support.ts). */
describe('error readings by default', () => {
  const flow = useFlowHarness();

  it('fails a change-plan answered 403 without a code at once as HOSTNAME_NOT_LINKED, instead of waiting for a token', async () => {
    // Prepare
    const accountId = uniqueAccountId('bare-403');
    await provisionAccount(flow, accountId);
    const event = upgradeChosen(accountId);

    // Act
    const response = await whileAnsweredWithoutCode(flow, 'change-plan', 403, () =>
      flow.invokeBatch('change-plan', sqsFifoBatch([event])),
    );

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(flow.publishedFor(accountId, 'SyncFailed').map((failed) => failed.detail)).toEqual([
      expect.objectContaining({ code: 'HOSTNAME_NOT_LINKED', sourceEventId: event.id }),
    ]);
  });

  it('announces no BusinessGone for a deletion answered as a plain 404: a failed check, still due', async () => {
    // Prepare
    const { accountId, now } = await deletedBusiness(flow, 'plain-404-default');

    // Act
    const report = await whileAnsweredWithoutCode(flow, 'subscription-status', 404, () =>
      runDriftWatch(flow, now),
    );

    // Assess
    expect(report.failed).toBeGreaterThanOrEqual(1);
    expect(flow.publishedFor(accountId, 'BusinessGone')).toEqual([]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ status: 'ACTIVE' });
    expect(await driftChecksDue(flow.store, now)).toContain(accountId);
  });

  it('recognises a deletion by the message\'s "not linked" when the code is one the deployment does not name', async () => {
    // Prepare: the refusal says "hostname ... is not linked to partner ..." under another code.
    const { accountId, hostname, now } = await deletedBusiness(flow, 'message-default');

    // Act
    const report = await driftWatchWithNotLinkedCode(flow, 'PARTNER_MISMATCH', now);

    // Assess
    expect(report.goneAnnounced).toBeGreaterThanOrEqual(1);
    expect(flow.publishedFor(accountId, 'BusinessGone').map((event) => event.detail)).toEqual([
      expect.objectContaining({ hostname, reason: 'PARTNER_MISMATCH' }),
    ]);
  });
});
