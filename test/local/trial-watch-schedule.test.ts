import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime, type TrialWatchActivity } from '#local/runtime.ts';

// One runtime per process (handlers read process.env once), so the schedule gets a file of its own.
describe('local runtime trial watch schedule', () => {
  let runtime: LocalRuntime;
  const runs: TrialWatchActivity[] = [];

  beforeAll(async () => {
    runtime = await startLocalRuntime({
      routes: [],
      trialWatch: {
        functionName: 'trial-watch',
        entry: 'test/local/fixtures/scheduled-handler.ts',
        handlerExport: 'handler',
        timeoutSeconds: 10,
      },
      trialWatchEveryMs: 100,
      onActivity: (activity) => {
        if (activity.kind === 'trial-watch') runs.push(activity);
      },
    });
  });

  afterAll(async () => {
    await runtime?.close();
  });

  it('runs the trial watch on its own schedule, without a request', async () => {
    // Act
    const deadline = Date.now() + 10_000;
    while (runs.filter((run) => run.result !== undefined).length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await runtime.waitForIdle();

    // Assess
    const completed = runs.filter((run) => run.result !== undefined);
    expect(completed.length).toBeGreaterThanOrEqual(2);
    expect(completed.every((run) => run.trigger === 'schedule')).toBe(true);
    const ticks = runtime.outbound().filter((event) => event['detail-type'] === 'Ticked');
    expect(ticks.length).toBeGreaterThanOrEqual(2);
  });
});
