import { describe, expect, it, vi } from 'vitest';
import { type DriftWatchReport, driftWatch } from '#functions/drift-watch/drift-watch.ts';
import { UNCONFIRMED_SIGNUP_LOG_MESSAGE } from '#functions/runtime/metric-names.ts';
import { createLogger } from '#functions/runtime/observability.ts';
import { getBusiness, notePlanChangeRequested } from '#functions/store/business.ts';
import { claimSignup, markSignupUnconfirmed } from '#functions/store/signup.ts';
import { findTrialsEndingBefore } from '#functions/store/trial-index.ts';
import {
  driftChecksDue,
  flowDependencies,
  inboundEvent,
  provisionAccount,
  provisioningCalls,
  runDriftWatch,
  sqsFifoBatch,
  US_BILLING_ADDRESS,
  uniqueAccountId,
  useFlowHarness,
} from '#test/flows/support/harness.ts';
import { captureOutput } from '#test/runtime/captured-output.ts';

const flow = useFlowHarness();

/** Moves the sandbox clock (and so the watch's "now") past every business's next check. */
async function dayLater(days = 2): Promise<string> {
  const { now } = await flow.sandbox<{ now: string }>('POST', '/_sandbox/clock', { advanceDays: days });
  return now;
}

const driftEventsFor = (accountId: string) =>
  flow
    .publishedFor(accountId)
    .filter((event) => event.detailType === 'BusinessGone' || event.detailType === 'BusinessEditionChanged');

describe('drift watch', () => {
  it('publishes one BusinessGone and one BusinessEditionChanged for what the service changed, none on the next run', async () => {
    // Prepare: three businesses; the service deletes one and changes another's edition.
    const deleted = uniqueAccountId('deleted');
    const changed = uniqueAccountId('changed');
    const untouched = uniqueAccountId('untouched');
    const deletedHostname = await provisionAccount(flow, deleted);
    const changedHostname = await provisionAccount(flow, changed);
    await provisionAccount(flow, untouched);
    await flow.sandbox('DELETE', `/_sandbox/businesses/${deletedHostname}`);
    await flow.sandbox('POST', `/_sandbox/businesses/${changedHostname}/edition`, {
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
    const now = await dayLater();

    // Act
    const first = await runDriftWatch(flow, now);
    const second = await runDriftWatch(flow, await dayLater());

    // Assess
    expect(first).toMatchObject({ failed: 0, complete: true });
    expect(first.goneAnnounced).toBeGreaterThanOrEqual(1);
    expect(driftEventsFor(deleted).map((event) => [event.detailType, event.detail])).toEqual([
      [
        'BusinessGone',
        {
          accountId: deleted,
          hostname: deletedHostname,
          causationId: expect.any(String),
          lastKnownEdition: 'SUBSCRIPTION_PRO_TRIAL',
          detectedAt: expect.any(String),
          reason: 'HOSTNAME_NOT_LINKED',
        },
      ],
    ]);
    expect(driftEventsFor(changed).map((event) => [event.detailType, event.detail])).toEqual([
      [
        'BusinessEditionChanged',
        {
          accountId: changed,
          hostname: changedHostname,
          causationId: expect.any(String),
          previousEdition: 'SUBSCRIPTION_PRO_TRIAL',
          edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
        },
      ],
    ]);
    expect(driftEventsFor(untouched)).toEqual([]);
    expect(second).toMatchObject({ failed: 0, goneAnnounced: 0, editionChangedAnnounced: 0 });
    expect(await getBusiness(flow.store, deleted)).toMatchObject({
      status: 'GONE',
      lastError: { code: 'BUSINESS_GONE' },
    });
    expect(await getBusiness(flow.store, changed)).toMatchObject({
      status: 'ACTIVE',
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
    const trials = (await findTrialsEndingBefore(flow.store, '2999-01-01T00:00:00Z')).items;
    expect(trials.map((trial) => trial.accountId)).not.toContain(changed);
    expect(trials.map((trial) => trial.accountId)).not.toContain(deleted);
  });

  it('leaves a gone business out of later runs, and its events end in SyncFailed BUSINESS_GONE without a call', async () => {
    // Prepare
    const accountId = uniqueAccountId('gone-events');
    const hostname = await provisionAccount(flow, accountId);
    await flow.sandbox('DELETE', `/_sandbox/businesses/${hostname}`);
    await runDriftWatch(flow, await dayLater());
    const callsBefore = (await provisioningCalls(flow, 'change-plan')).length;
    const event = inboundEvent('PlanChosen', {
      accountId,
      plan: 'PREMIUM',
      billingAddress: US_BILLING_ADDRESS,
    });

    // Act
    const response = await flow.invokeBatch('change-plan', sqsFifoBatch([event]));
    const dueLater = (await driftChecksDue(flow.store)).includes(accountId);

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(flow.publishedFor(accountId, 'SyncFailed').map((failed) => failed.detail['code'])).toEqual([
      'BUSINESS_GONE',
    ]);
    expect((await provisioningCalls(flow, 'change-plan')).length).toBe(callsBefore);
    expect(dueLater).toBe(false);
  });

  it('does not report an edition changed by PlanChosen, nor one whose plan change is still in flight', async () => {
    // Prepare: one converted through the connector; for the other change-plan has called the
    // service but not recorded the result yet.
    const chosen = uniqueAccountId('plan-chosen');
    const inFlight = uniqueAccountId('in-flight');
    await provisionAccount(flow, chosen);
    const inFlightHostname = await provisionAccount(flow, inFlight);
    const response = await flow.invokeBatch(
      'change-plan',
      sqsFifoBatch([
        inboundEvent('PlanChosen', {
          accountId: chosen,
          plan: 'PREMIUM',
          billingAddress: US_BILLING_ADDRESS,
        }),
      ]),
    );
    const now = await dayLater();
    await notePlanChangeRequested(flow.store, inFlight, new Date(now));
    await flow.sandbox('POST', '/connect/v1/partner/acme/change-plan', {
      data: { hostname: inFlightHostname, action: 'upgrade', address: US_BILLING_ADDRESS },
    });

    // Act
    const report = await runDriftWatch(flow, now);

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(flow.publishedFor(chosen, 'PlanChanged')).toHaveLength(1);
    expect(report.failed).toBe(0);
    expect(driftEventsFor(chosen)).toEqual([]);
    expect(driftEventsFor(inFlight)).toEqual([]);
    expect(await getBusiness(flow.store, inFlight)).toMatchObject({ edition: 'SUBSCRIPTION_PRO_TRIAL' });
  });

  it('reads only the businesses due, and counts unconfirmed signups', async () => {
    // Prepare: everything provisioned above was checked (or is gone) except the business whose
    // plan change is in flight, which stays due; one signup's answer was lost.
    const unconfirmed = uniqueAccountId('unconfirmed');
    await claimSignup(flow.store, { accountId: unconfirmed, eventId: 'event-lost', region: 'US' });
    await markSignupUnconfirmed(flow.store, unconfirmed, {
      eventId: 'event-lost',
      message: 'answer lost',
    });
    const { now } = await flow.sandbox<{ now: string }>('GET', '/_sandbox/clock');

    // Act
    const report = await runDriftWatch(flow, now);

    // Assess
    expect(report).toMatchObject({ itemsRead: 1, checked: 1, failed: 0, unconfirmedSignups: 1 });
  });

  it('logs each unconfirmed signup for the dashboard list: account, since, region, last error code, no personal data', async () => {
    // Prepare: a signup whose answer was lost, its last error quoting the owner's e-mail.
    const accountId = uniqueAccountId('unconfirmed-listed');
    await claimSignup(flow.store, { accountId, eventId: 'event-listed', region: 'UK' });
    await markSignupUnconfirmed(flow.store, accountId, {
      eventId: 'event-listed',
      message: 'answer lost for owner avery@example.com',
    });
    const { now } = await flow.sandbox<{ now: string }>('GET', '/_sandbox/clock');
    // The connector's logger as deployed (redacting), at INFO whatever level the runtime gave the handlers.
    const logger = createLogger();
    logger.setLogLevel('INFO');
    const dependencies = { ...(await flowDependencies()), logger };
    const output = captureOutput();

    // Act
    let report: DriftWatchReport;
    try {
      report = await driftWatch(
        { runId: 'run-listed', scheduledTime: now, remainingTimeMs: () => 300_000 },
        dependencies,
      );
    } finally {
      vi.restoreAllMocks();
    }

    // Assess
    const lines = output
      .jsonLines()
      .map(({ level, message, timestamp, service, sampling_rate, ...fields }) => ({
        message,
        fields,
      }));
    const listed = lines.filter((line) => line.message === UNCONFIRMED_SIGNUP_LOG_MESSAGE);
    expect(listed.map((line) => line.fields)).toContainEqual({
      accountId,
      since: expect.any(String),
      region: 'UK',
      lastErrorCode: 'SIGNUP_UNCONFIRMED',
    });
    expect(report.unconfirmedSignupsListed).toBe(listed.length);
    expect(report.unconfirmedSignups).toBeGreaterThanOrEqual(listed.length);
    expect(JSON.stringify(lines)).not.toContain('avery@example.com');
    // The logger masks the e-mail itself; the rest of the last error's message shows whether it was logged.
    expect(output.text()).not.toContain('answer lost for owner');
  });
});
