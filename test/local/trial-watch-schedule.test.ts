import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, type RuntimeActivity, startLocalRuntime } from '#local/runtime.ts';

// One runtime at a time per process (handlers read process.env once), so the schedule gets a file of its own.
describe('schedules on the sandbox clock', () => {
  let runtime: LocalRuntime;
  const runs: Extract<RuntimeActivity, { kind: 'schedule' }>[] = [];

  beforeAll(async () => {
    runtime = await startLocalRuntime({
      schedules: 'sandbox-clock',
      connector: {
        scheduledFunctions: [
          {
            functionName: 'trial-watch',
            entry: 'test/local/fixtures/scheduled-handler.ts',
            handlerExport: 'handler',
            timeoutSeconds: 10,
            memorySizeMb: 128,
            defaultSchedule: 'rate(1 hour)',
            description: 'fixture schedule',
            tableActions: ['GetItem'],
          },
        ],
      },
      onActivity: (activity) => {
        if (activity.kind === 'schedule') runs.push(activity);
      },
    });
  });

  afterAll(async () => {
    await runtime?.close();
  });

  const advanceHours = (hours: number) =>
    fetch(`${runtime.sandboxUrl}/_sandbox/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceDays: hours / 24 }),
    });
  const waitForRuns = async (count: number) => {
    const deadline = Date.now() + 10_000;
    while (runs.length < count && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await runtime.waitForIdle();
  };

  it('does not fire before the rate has passed on the sandbox clock', async () => {
    // Act
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    // Assess
    expect(runs).toEqual([]);
  });

  it('fires the rule once when the sandbox clock passes it, with the event timed at the sandbox clock', async () => {
    // Act
    await advanceHours(1);
    await waitForRuns(1);

    // Assess
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger: 'clock', errors: [] });
    const ticks = runtime.outbound().filter((event) => event['detail-type'] === 'Ticked');
    expect(ticks).toHaveLength(1);
  });

  it('fires once, not once per missed firing, when the clock jumps several periods', async () => {
    // Act
    await advanceHours(5);
    await waitForRuns(2);
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    // Assess
    expect(runs).toHaveLength(2);
  });
});
