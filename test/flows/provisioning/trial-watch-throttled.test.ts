import { describe, expect, it } from 'vitest';
import type { TrialWatchReport } from '#functions/trial-watch/trial-watch.ts';
import {
  clearProvisioningBudget,
  pauseProvisioningBudget,
  provisionAccount,
  provisioningCalls,
  scheduledEvent,
  uniqueAccountId,
  useFlowHarness,
} from '#test/flows/support/harness.ts';
import { lambdaContext } from '#test/support/lambda-context.ts';

/**
 * A trial watch whose service calls cannot get a request from the shared request budget (paused
 * by a long Retry-After) is not a failing watch: it stops starting businesses, leaves them due and
 * counts no failure (so the TrialWatchFailed alarm stays quiet); the next run announces them.
 */

const flow = useFlowHarness();

async function runTrialWatch(now: string): Promise<TrialWatchReport> {
  return (await flow.invoke(
    'trial-watch',
    scheduledEvent(now),
    lambdaContext('trial-watch', { timeoutMs: 300_000 }),
  )) as TrialWatchReport;
}

describe('trial watch with a contended request budget', () => {
  it('stops starting businesses, counts no failure, and the next run announces every ended trial', async () => {
    // Prepare: ten trials past their end (each needs subscription-status), the budget paused.
    const accounts: string[] = [];
    for (let index = 0; index < 10; index++) {
      const accountId = uniqueAccountId(`trial-budget-${index}`);
      await provisionAccount(flow, accountId);
      accounts.push(accountId);
    }
    const { now } = await flow.sandbox<{ now: string }>('POST', '/_sandbox/clock', { advanceDays: 31 });
    const callsBefore = (await provisioningCalls(flow, 'subscription-status')).length;
    await pauseProvisioningBudget(flow);
    let throttledRun: TrialWatchReport;
    let callsDuringRun: number;
    try {
      // Act
      throttledRun = await runTrialWatch(now);
      callsDuringRun = (await provisioningCalls(flow, 'subscription-status')).length - callsBefore;
    } finally {
      await clearProvisioningBudget(flow);
    }
    const endedAfterThrottledRun = flow.published('TrialEnded').length;
    const nextRun = await runTrialWatch(now);

    // Assess
    expect(throttledRun).toMatchObject({ failed: 0, complete: false, stoppedBy: 'throttling' });
    expect(throttledRun.throttled).toBeGreaterThan(0);
    expect(throttledRun.endedAnnounced).toBe(0);
    expect(callsDuringRun).toBe(0);
    expect(endedAfterThrottledRun).toBe(0);
    expect(nextRun).toMatchObject({ failed: 0, throttled: 0, complete: true });
    const ended = flow.published('TrialEnded').map((event) => event.detail['accountId']);
    expect(ended).toEqual(expect.arrayContaining(accounts));
  });
});
