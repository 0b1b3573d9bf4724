import { describe, expect, it } from 'vitest';
import { ThrottledError } from '#functions/domain/errors.ts';
import type { BudgetScope } from '#functions/service/http.ts';
import {
  type BudgetTake,
  createRequestBudget,
  type RequestBudgetSettings,
} from '#functions/store/request-budget.ts';
import { useTestStore } from './support.ts';

const store = useTestStore();
let sequence = 0;
const newScope = (): BudgetScope => ({ kind: 'install', hostname: `budget-${++sequence}.us.sandbox.test` });

/** A budget on a fake clock: `sleep` moves the clock instead of waiting. */
function budgetOnClock(settings: Partial<RequestBudgetSettings>, start = 1_800_000_000_000) {
  const clock = { now: start, slept: [] as number[], requests: 0, takes: [] as BudgetTake[] };
  const budget = createRequestBudget({
    store,
    settings: {
      provisioning: { ratePerSecond: 10, burst: 1 },
      install: { ratePerSecond: 10, burst: 1 },
      ...settings,
    },
    now: () => clock.now,
    sleep: async (ms) => {
      clock.slept.push(ms);
      clock.now += ms;
    },
    onTake: (take) => {
      clock.requests += take.requests;
      clock.takes.push(take);
    },
  });
  return { budget, clock };
}

describe('the shared request budget (GCRA in the table)', () => {
  it('lets a burst through at once, then paces requests at the rate', async () => {
    // Prepare: 5 per second, burst 3.
    const { budget, clock } = budgetOnClock({ install: { ratePerSecond: 5, burst: 3 } });
    const scope = newScope();

    // Act: 6 requests at the same instant.
    for (let index = 0; index < 6; index++) await budget.take(scope);

    // Assess: 3 go at once, the next 3 wait 200 ms each (interval 1 s / 5).
    expect(clock.slept).toEqual([200, 200, 200]);
  });

  it('gives up waiting in process beyond three seconds: ThrottledError with the wait, nothing reserved', async () => {
    // Prepare: one request every 4 s, burst 1, one request already taken.
    const { budget, clock } = budgetOnClock({ install: { ratePerSecond: 0.25, burst: 1 } });
    const scope = newScope();
    await budget.take(scope);

    // Act: the same instant again: the next request is 4 s away.
    const error = await budget.take(scope).then(
      () => undefined,
      (caught: unknown) => caught,
    );

    // Assess
    expect(clock.slept).toEqual([]);
    expect(error).toBeInstanceOf(ThrottledError);
    expect(error).toMatchObject({ code: 'THROTTLED', retryAfterMs: 4000 });
  });

  it('shares one bucket between budgets (two Lambdas), and keeps installs apart', async () => {
    // Prepare: two processes on the same clock instant, burst 2.
    const start = 1_800_000_100_000;
    const first = budgetOnClock({ install: { ratePerSecond: 2, burst: 2 } }, start);
    const second = budgetOnClock({ install: { ratePerSecond: 2, burst: 2 } }, start);
    const scope = newScope();

    // Act
    await first.budget.take(scope);
    await second.budget.take(scope);
    await second.budget.take(scope); // the third request of the bucket: waits 500 ms
    await first.budget.take(newScope()); // another install: its own bucket

    // Assess
    expect(first.clock.slept).toEqual([]);
    expect(second.clock.slept).toEqual([500]);
  });

  it('pauses every taker until the Retry-After, then releases one request per interval', async () => {
    // Prepare
    const { budget, clock } = budgetOnClock({ install: { ratePerSecond: 10, burst: 5 } });
    const scope = newScope();
    await budget.take(scope);

    // Act: the service asked for a 800 ms pause.
    await budget.pause(scope, clock.now + 800);
    await budget.take(scope);
    await budget.take(scope);

    // Assess: the first waits the pause out, the next one interval (no burst after a pause).
    expect(clock.slept).toEqual([800, 100]);
  });

  it('takes from the overall bucket too when one is configured', async () => {
    // Prepare: generous per-install buckets, one overall request per second.
    const { budget, clock } = budgetOnClock({
      install: { ratePerSecond: 100, burst: 100 },
      overall: { ratePerSecond: 1, burst: 1 },
    });

    // Act: two installs, one request each.
    await budget.take(newScope());
    await budget.take(newScope()).catch(() => undefined);

    // Assess: the second install's request waits for the overall bucket.
    expect(clock.slept).toEqual([1000]);
  });

  it('queues concurrent takers in order, one conditional update each', async () => {
    // Prepare: 10 per second, burst 1; eight takers at the same instant.
    const { budget, clock } = budgetOnClock({ install: { ratePerSecond: 10, burst: 1 } });
    const scope = newScope();
    await budget.take(scope);
    clock.requests = 0;

    // Act
    await Promise.all(Array.from({ length: 8 }, () => budget.take(scope)));

    // Assess: each reserved its own slot (100 ms apart on the clock) without losing a race.
    expect(clock.requests).toBe(8);
    expect(clock.slept).toHaveLength(8);
  });

  it('costs one conditional update per request when the clock moves on by more than an interval between requests', async () => {
    // Prepare: 10 per second (interval 100 ms), burst 10; a caller that takes every 150 ms finds
    // the bucket idle each time, but within the burst tolerance of the previous request.
    const { budget, clock } = budgetOnClock({ install: { ratePerSecond: 10, burst: 10 } });
    const scope = newScope();

    // Act
    for (let index = 0; index < 10; index++) {
      await budget.take(scope);
      clock.now += 150;
    }

    // Assess: each take tries the idle update first, and it holds: one request each, no wait.
    expect(clock.requests).toBe(10);
    expect(clock.slept).toEqual([]);
  });

  it('costs one conditional update per request on a steady bucket', async () => {
    // Prepare
    const { budget, clock } = budgetOnClock({ install: { ratePerSecond: 10, burst: 10 } });
    const scope = newScope();

    // Act
    for (let index = 0; index < 10; index++) await budget.take(scope);

    // Assess: the first request creates the bucket (idle path), the rest take the busy path first.
    expect(clock.requests).toBe(10);
  });

  it('tells its observer of each take: the wait it slept, or how long a throttled record waits', async () => {
    // Prepare: one request every 200 ms, then one every 4 s.
    const paced = budgetOnClock({ install: { ratePerSecond: 5, burst: 1 } });
    const sparse = budgetOnClock({ install: { ratePerSecond: 0.25, burst: 1 } });
    const [pacedScope, sparseScope] = [newScope(), newScope()];

    // Act
    await paced.budget.take(pacedScope);
    await paced.budget.take(pacedScope);
    await sparse.budget.take(sparseScope);
    await expect(sparse.budget.take(sparseScope)).rejects.toBeInstanceOf(ThrottledError);

    // Assess
    const seen = (takes: BudgetTake[]) => takes.map(({ requests: _requests, ...take }) => take);
    expect(seen(paced.clock.takes)).toEqual([
      { scope: pacedScope, endedAt: paced.clock.now - 200, waitedMs: 0 },
      { scope: pacedScope, endedAt: paced.clock.now, waitedMs: 200 },
    ]);
    expect(seen(sparse.clock.takes)).toEqual([
      { scope: sparseScope, endedAt: sparse.clock.now, waitedMs: 0 },
      { scope: sparseScope, endedAt: sparse.clock.now, waitedMs: 0, throttledForMs: 4000 },
    ]);
  });
});
