import { beforeAll, describe, expect, it } from 'vitest';
import { type ChaosReport, runChaos } from '#scripts/chaos/run.ts';

/**
 * A burst against a service that accepts 20 requests per second (`startSandbox({ rateLimit: 20 })`)
 * with the connector's request budget set to it (chaos `budgetForLimit`): every event completes,
 * the accepted rate never exceeds the limit, and the budget keeps the service from answering 429. The full 500-event burst, with faults, duplicates and crashes on
 * top, is `npm run chaos -- --rate-limit 20 --events 500` (figures of the last run: docs/results/chaos-rate-limit.md).
 */

const LIMIT = 20;
let report: ChaosReport;

beforeAll(async () => {
  report = await runChaos({
    events: 60,
    accounts: 10,
    faultRate: 0,
    duplicateRate: 0,
    crashRate: 0,
    rateLimit: LIMIT,
    seed: 3,
    logLevel: 'SILENT',
  });
}, 180_000);

describe('rate limit: a burst against a service limited to 20 requests per second', () => {
  it('loses no event and creates nothing twice', () => {
    // Assess
    expect(report.lostEvents).toEqual([]);
    expect(report.duplicates.total).toBe(0);
  });

  it("kept the rate limiter's 429 answers to a few: the shared budget paces every worker", () => {
    // Assess: without the budget about 4 in 10 requests of this burst were refused. This run is
    // short, so the few requests that bunch up while the handlers load weigh more than in the
    // 500-event run, whose figure (under 2 %) is in docs/results/chaos-rate-limit.md.
    expect(report.retries.rateLimited).toBeLessThan(report.requests.total * 0.1);
  });

  it('never had more than the limit accepted in one second', () => {
    // Assess
    expect(report.requests.peakAcceptedPerSecond).toBeLessThanOrEqual(LIMIT);
  });

  it('lets no record run out of receives because of the throttling', () => {
    // Assess: only events without an accountId (undeliverable by design) reach a DLQ.
    expect(report.deadLetteredUnexpectedly).toBe(0);
    expect(report.deadLetteredByCause['throttling'] ?? 0).toBe(0);
    expect(Object.keys(report.syncFailed).filter((code) => code.endsWith('OUTCOME_UNKNOWN'))).toEqual([]);
  });

  it('reports the figures of the burst', () => {
    // Assess
    expect(report.requests.accepted).toBeGreaterThan(0);
    expect(report.requests.meanAcceptedPerSecond).toBeLessThanOrEqual(LIMIT);
    expect(report.wallTimeMs).toBeGreaterThan(0);
  });
});
