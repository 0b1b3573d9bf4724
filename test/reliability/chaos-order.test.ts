import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChaosOptions, type ChaosReport, runChaos } from '#scripts/chaos/run.ts';
import { buildWorkload } from '#scripts/chaos/workload.ts';

/**
 * The chaos run's order check is not blind: the same small run twice, once with the connector's
 * last-writer-wins guard switched off for its functions (runChaos `lastWriterWins: false`, which
 * reaches them as the local-only DependencyOptions.lastWriterWins), once with it on. Without the
 * guard the event that arrives last wins, and the order check must see things left with an older
 * event's value; with it, none.
 *
 * The out-of-order arrivals are made certain, not left to timing: each correction (a state-setting
 * event corrected by the very next one, scripts/chaos/workload.ts) is sent just before the event it
 * corrects (`correctionsFirst`), and the runtime delivers in send order (`orderedDelivery`). Whether
 * the delivery model makes a correction overtake its event depends on the machine's speed
 * (docs/reliability.md, "Tests"); that it reorders is shown by test/local/aws/ and chaos.test.ts.
 *
 * Faults, lost deletes and crashes are off: the order alone is what is judged.
 */

/** The events: half the state-setting ones corrected at once, each correction sent first. */
const WORKLOAD = { events: 40, accounts: 2, seed: 1, correctionRate: 0.5, correctionsFirst: true };

const SMALL_RUN: ChaosOptions = {
  ...WORKLOAD,
  faultRate: 0,
  duplicateRate: 0,
  crashRate: 0,
  orderedDelivery: true,
  logLevel: 'SILENT',
};

/** How many corrections the run sends: each one a thing its corrected event must not win. */
const corrections = (() => {
  const { followUps } = buildWorkload(WORKLOAD);
  return followUps.filter((event, index) => followUps[index + 1]?.order === event.order - 1).length;
})();

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
  it('sends corrections ahead of the events they correct, and delivers in send order', () => {
    // Assess
    expect(corrections).toBeGreaterThanOrEqual(3);
    for (const report of [unguarded, guarded]) {
      expect(report.options).toMatchObject({ correctionsFirst: true, orderedDelivery: true });
      // The runtime reordered nothing: every out-of-order arrival is the workload's own.
      expect(report.reordered).toBe(0);
    }
  });

  it('fails without the guard: corrections are undone by the older events that arrive after them', () => {
    // Assess
    expect(unguarded.options.lastWriterWins).toBe(false);
    expect(unguarded.superseded).toBe(0);
    expect(unguarded.orderViolations).toBeGreaterThan(0);
    expect(unguarded.orderViolationList.length).toBe(unguarded.orderViolations);
    expect(unguarded.lost).toBe(0);
    expect(unguarded.passed).toBe(false);
  });

  it('holds with the guard: the older events are superseded and every thing ends as its newest event asks', () => {
    // Assess
    expect(guarded.options.lastWriterWins).toBe(true);
    // A correction the service refuses (a plan change it does not allow) supersedes nothing.
    expect(guarded.superseded).toBeGreaterThan(0);
    expect(guarded.superseded).toBeLessThanOrEqual(corrections);
    expect(guarded.orderViolationList).toEqual([]);
    expect(guarded.lost).toBe(0);
    expect(guarded.passed).toBe(true);
  });
});
