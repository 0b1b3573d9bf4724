import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChaosOptions, type ChaosReport, runChaos } from '#scripts/chaos/run.ts';

/**
 * The chaos run's order check is not blind: the same small run twice, once with the connector's
 * last-writer-wins guard switched off for its functions (runChaos `lastWriterWins: false`, which
 * reaches them as the local-only DependencyOptions.lastWriterWins), once with it on. The runtime's
 * delivery model reorders deliveries as AWS may; without the guard the event that arrives last
 * wins, and the order check must see things left with an older event's value; with it, none.
 *
 * Faults, lost deletes and crashes are off: reordering alone is what is measured, and the run
 * stays short (about 10 s each on a quiet machine).
 *
 * The seed: the workload and the delivery model both follow it, but which deliveries overtake
 * which also depends on timing, so the number of violations varies from run to run. Seeds 1-10
 * were each run once with the guard off (150 events, 3 accounts): violations from 0 (seed 5) to
 * 20 (seed 1); seeds 1 and 4, the highest, four times more: seed 1 gave 18-20 violations each
 * time (seed 4: 10-17), and 14-16 in three later runs on a busier machine, so seed 1, far from 0.
 * Its workload has 11 corrections (a state-setting event corrected by the very next one:
 * scripts/chaos/workload.ts CORRECTION_RATE), the pairs the delivery model most often reorders.
 * With the guard on, the same run supersedes about ten events and leaves no violation.
 */

const SMALL_RUN: ChaosOptions = {
  events: 150,
  accounts: 3,
  seed: 1,
  faultRate: 0,
  duplicateRate: 0,
  crashRate: 0,
  logLevel: 'SILENT',
};

let unguarded: ChaosReport;
let guarded: ChaosReport;

beforeAll(async () => {
  unguarded = await runChaos({ ...SMALL_RUN, lastWriterWins: false });
  guarded = await runChaos(SMALL_RUN);
}, 120_000);

afterAll(() => {
  // Printed so a failing CI run shows what the order check saw next to the assertion.
  if (guarded && !guarded.passed)
    console.error(JSON.stringify({ ...guarded, token: '[run token]' }, null, 2));
  if (unguarded) console.error(`guard off: ${unguarded.orderViolations} order violations`);
});

describe('chaos: the order check with the last-writer-wins guard off and on', () => {
  it('really reordered deliveries in both runs', () => {
    // Assess
    expect(unguarded.reordered).toBeGreaterThan(0);
    expect(guarded.reordered).toBeGreaterThan(0);
  });

  it('fails without the guard: things end with an older event than the newest on them', () => {
    // Assess
    expect(unguarded.options.lastWriterWins).toBe(false);
    expect(unguarded.superseded).toBe(0);
    expect(unguarded.orderViolations).toBeGreaterThan(0);
    expect(unguarded.orderViolationList.length).toBe(unguarded.orderViolations);
    expect(unguarded.passed).toBe(false);
  });

  it('holds with the guard: older events are superseded and every thing ends as its newest event asks', () => {
    // Assess
    expect(guarded.options.lastWriterWins).toBe(true);
    expect(guarded.superseded).toBeGreaterThan(0);
    expect(guarded.orderViolationList).toEqual([]);
    expect(guarded.lost).toBe(0);
    expect(guarded.passed).toBe(true);
  });
});
