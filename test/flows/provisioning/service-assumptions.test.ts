import { describe, expect, it } from 'vitest';
import type { DriftWatchReport } from '#functions/drift-watch/drift-watch.ts';
import { getBusiness } from '#functions/store/business.ts';
import { claimSignup } from '#functions/store/signup.ts';
import {
  accountCreatedDetail,
  driftChecksDue,
  inboundEvent,
  runDriftWatch,
  sqsFifoBatch,
  uniqueAccountId,
  useFlowHarness,
} from '#test/flows/support/harness.ts';
import { deletedBusiness } from './error-readings-support.ts';

/**
 * The service's error codes are "not shown": a deployment names the ones it relies on
 * (`serviceAssumptions`, docs/internals.md "Open behaviours"), and the functions take those, not
 * the sandbox's. This deployment believes the service answers an unlinked hostname with
 * BUSINESS_UNKNOWN and a duplicate signup with DUPLICATE_PARTNER_REFERENCE; the sandbox is made to
 * answer the first (its `notLinkedErrorCode` knob) and keeps its own codes for the second.
 */

const NOT_LINKED = 'BUSINESS_UNKNOWN';

const flow = useFlowHarness({
  config: {
    serviceAssumptions: {
      hostnameNotLinkedCodes: [NOT_LINKED],
      // Codes only: the sandbox's message ("... is not linked to ...") would otherwise name it too.
      hostnameNotLinkedMessagePatterns: [],
      signupDuplicateCodes: ['DUPLICATE_PARTNER_REFERENCE'],
      signupDuplicateMessagePatterns: [],
    },
  },
});

describe('service assumptions a deployment configures', () => {
  it('announces BusinessGone for the not-linked code the deployment names, with that code as reason', async () => {
    // Prepare
    const { accountId, hostname, now } = await deletedBusiness(flow, 'gone-configured');
    await flow.sandbox('POST', '/_sandbox/mode', { notLinkedErrorCode: NOT_LINKED });
    let report: DriftWatchReport;
    try {
      // Act
      report = await runDriftWatch(flow, now);
    } finally {
      await flow.sandbox('POST', '/_sandbox/mode', { notLinkedErrorCode: null });
    }

    // Assess
    expect(report.goneAnnounced).toBeGreaterThanOrEqual(1);
    expect(flow.publishedFor(accountId, 'BusinessGone').map((event) => event.detail)).toEqual([
      expect.objectContaining({ hostname, reason: NOT_LINKED }),
    ]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({
      status: 'GONE',
      lastError: { code: 'BUSINESS_GONE' },
    });
  });

  it('counts a refusal with a code the deployment does not name as a failed check: no BusinessGone, still due', async () => {
    // Prepare: the sandbox answers its own HOSTNAME_NOT_LINKED, which this deployment does not rely on.
    const { accountId, now } = await deletedBusiness(flow, 'gone-other-code');

    // Act
    const report = await runDriftWatch(flow, now);

    // Assess
    expect(report.failed).toBeGreaterThanOrEqual(1);
    expect(flow.publishedFor(accountId, 'BusinessGone')).toEqual([]);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({ status: 'ACTIVE' });
    expect((await driftChecksDue(flow.store, now)).includes(accountId)).toBe(true);
  });

  it("reads a resumed signup's refusal with the deployment's duplicate codes: another code is a plain refusal", async () => {
    // Prepare: an earlier delivery claimed, the service committed, the Lambda died. The follow-up
    // is refused EMAIL_ALREADY_EXISTS, a duplicate by the defaults but not by this deployment.
    const accountId = uniqueAccountId('resumed');
    const detail = accountCreatedDetail(accountId);
    const event = inboundEvent('AccountCreated', detail);
    await claimSignup(flow.store, { accountId, eventId: event.id, region: 'US' });
    await flow.sandbox('POST', '/connect/v1/partner/acme/signup', {
      userData: detail['owner'],
      businessData: { externalId: accountId, portfolioName: 'Harbor Cafe' },
    });

    // Act
    const response = await flow.invokeBatch('provision-business', sqsFifoBatch([event], { receiveCount: 2 }));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(flow.publishedFor(accountId, 'SyncFailed').map((failed) => failed.detail['code'])).toEqual([
      'EMAIL_ALREADY_EXISTS',
    ]);
    // The claim is released (a plain refusal created nothing); the account FAILED, naming the event.
    expect(await getBusiness(flow.store, accountId)).toMatchObject({
      status: 'FAILED',
      failure: { eventId: event.id, code: 'EMAIL_ALREADY_EXISTS' },
    });
  });
});
