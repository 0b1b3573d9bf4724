import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChaosReport, runChaos } from '#scripts/chaos/run.ts';

/**
 * The chaos run of `npm run chaos`, smaller: 200 events over 40 accounts through the connector's
 * synthesized template (rule → intake queue → pipe → FIFO queue → function) while the sandbox
 * faults 20 % of the service calls (429, 500, timeout, drop-after-commit), 10 % of processed records
 * are delivered again and handlers crash between steps. The connector must create nothing twice
 * and lose nothing; the faults must really have happened for that to mean anything.
 */

let report: ChaosReport;

beforeAll(async () => {
  report = await runChaos({
    events: 200,
    accounts: 40,
    seed: 42,
    crashRate: 0.1,
    // A 'timeout' fault costs one client timeout; shorter keeps the suite fast on two cores.
    httpTimeoutMs: 400,
    logLevel: 'SILENT',
  });
}, 180_000);

afterAll(() => {
  // Printed so a failing CI run shows the figures next to the assertion.
  if (report && !report.passed) console.error(JSON.stringify({ ...report, token: '[run token]' }, null, 2));
});

describe('chaos: faults, duplicates and crashes under load', () => {
  it('creates no second business, location, area or custom-field slot', () => {
    // Assess
    expect(report.duplicates).toEqual({
      businesses: 0,
      locations: 0,
      areas: 0,
      slotsPerApiName: 0,
      apiNamesPerSlot: 0,
      tableSlotCollisions: 0,
      announcements: 0,
      total: 0,
    });
  });

  it('gives every event an outcome: applied, SyncFailed or dead-lettered', () => {
    // Assess
    expect(report.lostEvents).toEqual([]);
    expect(report.applied + report.syncFailedTotal + report.deadLettered + report.acknowledgedNoOp).toBe(
      report.sent,
    );
  });

  it('really injected faults, duplicates and crashes, and retried through them', () => {
    // Assess
    expect(report.faultsInjected).toBeGreaterThan(0);
    expect(report.retries.total).toBeGreaterThan(0);
    expect(report.duplicatesDelivered).toBeGreaterThan(0);
    expect(Object.values(report.crashes).reduce((sum, n) => sum + n, 0)).toBeGreaterThan(0);
  });

  it('keeps the table and the service in agreement', () => {
    // Assess
    expect(report.mismatches).toEqual([]);
  });

  it('refuses each deliberately invalid event with SyncFailed naming its field or its refusal code', () => {
    // Assess
    expect(report.invalidMishandled).toEqual([]);
  });

  it('leaves custom field values in the order the account published them', () => {
    // Assess
    expect(report.orderViolations).toBe(0);
  });
});
