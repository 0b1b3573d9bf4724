import { describe, expect, it } from 'vitest';
import type { DriftWatchReport } from '#functions/drift-watch/drift-watch.ts';
import { getBusiness } from '#functions/store/business.ts';
import {
  driftChecksDue,
  provisionAccount,
  provisioningCalls,
  runDriftWatch,
  uniqueAccountId,
  useFlowHarness,
  withProvisioningBudgetPaused,
} from '#test/flows/support/harness.ts';

/**
 * A business the drift watch cannot check (the service answers 500 for it every time) is counted
 * as failed and stays due; the run goes on with the others and the next run checks it. A request
 * budget with no request to give is not a failure: the run stops starting checks and leaves them
 * due for the next one.
 */

const flow = useFlowHarness();

describe('drift watch with a business the service cannot answer for', () => {
  it('counts it as failed, checks the others, and checks it on the next run', async () => {
    // Prepare: two US businesses and one UK business; every UK provisioning call answers 500.
    const first = uniqueAccountId('us-1');
    const second = uniqueAccountId('us-2');
    const broken = uniqueAccountId('uk');
    await provisionAccount(flow, first);
    await provisionAccount(flow, second);
    await provisionAccount(flow, broken, { region: 'UK' });
    const { now } = await flow.sandbox<{ now: string }>('POST', '/_sandbox/clock', { advanceDays: 2 });
    await flow.sandbox('POST', '/_sandbox/faults', {
      rate: 1,
      kinds: ['500'],
      seed: 1,
      pathPrefix: '/regions/uk/connect/v1/partner/',
    });
    let failedRun: DriftWatchReport;
    let stillDue: string[];
    try {
      // Act
      failedRun = await runDriftWatch(flow, now);
      stillDue = await driftChecksDue(flow.store, now);
    } finally {
      await flow.sandbox('DELETE', '/_sandbox/faults');
    }
    const ukCalls = (await provisioningCalls(flow, 'subscription-status')).filter((call) =>
      call.path.startsWith('/regions/uk/'),
    );
    const nextRun = await runDriftWatch(flow, now);

    // Assess
    expect(failedRun).toMatchObject({
      itemsRead: 3,
      checked: 2,
      failed: 1,
      remaining: 0,
      complete: true,
      goneAnnounced: 0,
      editionChangedAnnounced: 0,
    });
    expect(ukCalls.length).toBeGreaterThanOrEqual(1);
    expect(stillDue).toEqual([broken]);
    expect(await getBusiness(flow.store, broken)).toMatchObject({ status: 'ACTIVE', region: 'UK' });
    expect(nextRun).toMatchObject({ itemsRead: 1, checked: 1, failed: 0, complete: true });
    expect(await driftChecksDue(flow.store, now)).toEqual([]);
    expect(
      flow
        .published()
        .filter(
          (event) => event.detailType === 'BusinessGone' || event.detailType === 'BusinessEditionChanged',
        ),
    ).toEqual([]);
  });
});

describe('drift watch with a contended request budget', () => {
  it('stops starting checks, leaves every business due and counts no failure; the next run checks them', async () => {
    // Prepare: more due businesses than the watch checks at once (8), and no request to give.
    const accounts: string[] = [];
    for (let index = 0; index < 10; index++) {
      const accountId = uniqueAccountId(`budget-${index}`);
      await provisionAccount(flow, accountId);
      accounts.push(accountId);
    }
    const { now } = await flow.sandbox<{ now: string }>('POST', '/_sandbox/clock', { advanceDays: 2 });
    const callsBefore = (await provisioningCalls(flow, 'subscription-status')).length;

    // Act
    const { throttledRun, stillDue, callsDuringRun } = await withProvisioningBudgetPaused(flow, async () => ({
      throttledRun: await runDriftWatch(flow, now),
      stillDue: await driftChecksDue(flow.store, now),
      callsDuringRun: (await provisioningCalls(flow, 'subscription-status')).length - callsBefore,
    }));
    const nextRun = await runDriftWatch(flow, now);

    // Assess
    expect(throttledRun).toMatchObject({
      checked: 0,
      failed: 0,
      complete: false,
      stoppedBy: 'throttling',
      goneAnnounced: 0,
      editionChangedAnnounced: 0,
    });
    expect(throttledRun.throttled).toBeGreaterThan(0);
    expect(throttledRun.remaining).toBeGreaterThan(0);
    expect(throttledRun.throttled + throttledRun.remaining).toBe(throttledRun.itemsRead);
    expect(callsDuringRun).toBe(0);
    expect(stillDue).toEqual(expect.arrayContaining(accounts));
    expect(nextRun).toMatchObject({ failed: 0, throttled: 0, complete: true });
    expect(nextRun.checked).toBe(throttledRun.itemsRead);
    expect(await driftChecksDue(flow.store, now)).toEqual([]);
  });
});
