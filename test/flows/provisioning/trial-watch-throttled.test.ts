import { describe, expect, it } from 'vitest';
import {
  provisionAccount,
  provisioningCalls,
  runTrialWatch,
  uniqueAccountId,
  useFlowHarness,
  withProvisioningBudgetPaused,
} from '#test/flows/support/harness.ts';

/**
 * A trial watch whose service calls cannot get a request from the shared request budget (paused
 * by a long Retry-After) is not a failing watch: it stops starting businesses, leaves them due and
 * counts no failure (so the TrialWatchFailed alarm stays quiet); the next run announces them.
 */

const flow = useFlowHarness();

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

    // Act
    const { throttledRun, callsDuringRun } = await withProvisioningBudgetPaused(flow, async () => ({
      throttledRun: await runTrialWatch(flow, now),
      callsDuringRun: (await provisioningCalls(flow, 'subscription-status')).length - callsBefore,
    }));
    const endedAfterThrottledRun = flow.published('TrialEnded').length;
    const nextRun = await runTrialWatch(flow, now);

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
