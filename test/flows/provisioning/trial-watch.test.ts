import type { Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { getBusiness } from '#functions/store/business.ts';
import { findTrialsEndingBefore } from '#functions/store/trial-index.ts';
import type { TrialWatchReport } from '#functions/trial-watch/trial-watch.ts';
import {
  inboundEvent,
  provisionAccount,
  runTrialWatch,
  sandboxNow,
  scheduledEvent,
  sqsFifoBatch,
  US_BILLING_ADDRESS,
  uniqueAccountId,
  useFlowHarness,
} from '#test/flows/support/harness.ts';
import { lambdaContext } from '#test/support/lambda-context.ts';

/**
 * One trial's life on the sandbox clock, in order: the `it`s below are its chapters and share the
 * clock and the table, so they run in sequence (vitest's default within a file).
 */

const flow = useFlowHarness();
let onTrial: string;
let converted: string;

beforeAll(async () => {
  onTrial = uniqueAccountId('trial');
  converted = uniqueAccountId('converted');
  await provisionAccount(flow, onTrial);
  await provisionAccount(flow, converted);
  await flow.invokeBatch(
    'change-plan',
    sqsFifoBatch([
      inboundEvent('PlanChosen', {
        accountId: converted,
        plan: 'PREMIUM',
        billingAddress: US_BILLING_ADDRESS,
      }),
    ]),
  );
});

/** As deployed: the route table gives the trial watch 300 s. */
const watchContext = (): Context => lambdaContext('trial-watch', { timeoutMs: 300_000 });

async function advanceDays(days: number): Promise<void> {
  await flow.sandbox('POST', '/_sandbox/clock', { advanceDays: days });
}

/** Runs the scheduled function as the local runtime does: the event's time is the sandbox clock. */
async function runTrialWatchNow(): Promise<TrialWatchReport> {
  return runTrialWatch(flow, await sandboxNow(flow));
}

const expiring = (accountId: string) =>
  flow.publishedFor(accountId, 'TrialExpiring').map((event) => event.detail);

describe('trial watch across the sandbox clock', () => {
  it('reads nothing while every trial is further away than the largest threshold', async () => {
    // Act
    const report = await runTrialWatchNow();

    // Assess
    expect(report).toMatchObject({ itemsRead: 0, processed: 0, complete: true });
    expect(flow.published('TrialExpiring')).toEqual([]);
  });

  it('announces TrialExpiring with 7 days left, once, and never for a converted business', async () => {
    // Prepare
    await advanceDays(23);

    // Act
    const report = await runTrialWatchNow();
    const rerun = await runTrialWatchNow();

    // Assess
    const [business] = await flow
      .sandbox<Array<{ trialEndDate: string; externalId: string }>>('GET', '/_sandbox/businesses')
      .then((all) => all.filter((candidate) => candidate.externalId === onTrial));
    const hostname = (await getBusiness(flow.store, onTrial))?.hostname;
    expect(expiring(onTrial)).toEqual([
      {
        accountId: onTrial,
        hostname,
        causationId: expect.any(String),
        daysLeft: 7,
        trialEndDate: business?.trialEndDate,
      },
    ]);
    expect(report).toMatchObject({ processed: 1, expiringAnnounced: 1 });
    expect(rerun).toMatchObject({ processed: 1, expiringAnnounced: 0 });
    expect(flow.publishedFor(converted, 'TrialExpiring')).toEqual([]);
  });

  it('uses the run id as causationId', async () => {
    // Prepare
    await advanceDays(4);
    const event = scheduledEvent(await sandboxNow(flow));

    // Act
    await flow.invoke('trial-watch', event, watchContext());

    // Assess
    expect(flow.publishedFor(onTrial, 'TrialExpiring').at(-1)?.detail).toMatchObject({
      daysLeft: 3,
      causationId: event.id,
    });
  });

  it('announces the 1-day threshold exactly once when two runs overlap', async () => {
    // Prepare
    await advanceDays(2);

    // Act
    const reports = await Promise.all([runTrialWatchNow(), runTrialWatchNow()]);

    // Assess
    expect(expiring(onTrial).map((detail) => detail['daysLeft'])).toEqual([7, 3, 1]);
    expect(reports.map((report) => report.expiringAnnounced).sort()).toEqual([0, 1]);
  });

  it('announces TrialEnded with the edition the service reports and takes the business out of the index', async () => {
    // Prepare
    await advanceDays(1);

    // Act
    const reports = await Promise.all([runTrialWatchNow(), runTrialWatchNow()]);
    const later = await runTrialWatchNow();

    // Assess
    expect(flow.publishedFor(onTrial, 'TrialEnded').map((event) => event.detail)).toEqual([
      expect.objectContaining({ accountId: onTrial, edition: 'SUBSCRIPTION_FREE' }),
    ]);
    expect(reports.map((report) => report.endedAnnounced).sort()).toEqual([0, 1]);
    expect(later).toMatchObject({ itemsRead: 0, endedAnnounced: 0 });
    expect(await getBusiness(flow.store, onTrial)).toMatchObject({ edition: 'SUBSCRIPTION_FREE' });
    const trials = await findTrialsEndingBefore(flow.store, '2999-01-01T00:00:00Z');
    expect(trials.items.map((trial) => trial.accountId)).not.toContain(onTrial);
    expect(expiring(onTrial)).toHaveLength(3);
    expect(flow.publishedFor(converted, 'TrialEnded')).toEqual([]);
  });
});
