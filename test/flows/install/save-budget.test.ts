import { describe, expect, it } from 'vitest';
import { occurredNow, useFlowHarness } from '#test/flows/support/harness.ts';
import {
  callsDuring,
  deliver,
  deliverWithCalls,
  type InstallRecords,
  type InvalidDetailCase,
  installRecords,
  itAnswersInvalidDetails,
  onlyPublished,
  provisionedInstall,
} from './install-support.ts';

const flow = useFlowHarness();

// Seeded: location 1 Main Street Store with area 1; location 2 with area 2.
const LOCATION = 1;
const AREA = 1;

function metricsOf(records: InstallRecords) {
  return records['Metric'] ?? [];
}

function budgetSet(accountId: string, overrides: Record<string, unknown> = {}) {
  return {
    accountId,
    locationId: LOCATION,
    areaId: AREA,
    kind: 'WAGE',
    timeZone: 'America/New_York',
    days: [
      { date: '2026-03-07', value: 1200 },
      { date: '2026-03-08', value: 1300 },
      { date: '2026-03-09', value: 1400 },
      { date: '2026-03-10', value: 1500 },
    ],
    reference: 'week-10',
    // Budgets are newer in the order a test makes them (last writer wins per day).
    occurredAt: occurredNow(),
    ...overrides,
  };
}

function daysFrom(start: string, count: number, value = 100) {
  return Array.from({ length: count }, (_, index) => ({
    date: new Date(Date.parse(`${start}T00:00:00Z`) + index * 86_400_000).toISOString().slice(0, 10),
    value: value + index,
  }));
}

describe('BudgetSet', () => {
  it('saves one wage metric per day at New York local midnight across the March DST change', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'budget-dst');

    // Act
    const { delivery, calls } = await deliverWithCalls(
      flow,
      hostname,
      'save-budget',
      'BudgetSet',
      budgetSet(accountId),
    );

    // Assess
    expect(calls).toEqual(['POST /api/v2/metrics']);
    const metrics = metricsOf(await installRecords(flow, hostname));
    // 2026-03-08 midnight is UTC-5 (05:00Z), 2026-03-09 midnight is UTC-4 (04:00Z).
    expect(metrics.map((metric) => [metric['timestamp'], metric['value']])).toEqual([
      ['1772859600', 1200],
      ['1772946000', 1300],
      ['1773028800', 1400],
      ['1773115200', 1500],
    ]);
    expect(metrics.every((metric) => metric['type'] === 'budget_wage')).toBe(true);
    expect(metrics.every((metric) => metric['location'] === LOCATION && metric['area'] === AREA)).toBe(true);
    expect(metrics.every((metric) => metric['reference'] === 'week-10')).toBe(true);
    expect(onlyPublished(delivery, 'BudgetSaved')).toEqual(
      expect.objectContaining({
        accountId,
        hostname,
        locationId: LOCATION,
        areaId: AREA,
        count: 4,
        ids: metrics.map((metric) => metric['id']),
      }),
    );
  });

  it('saves hour budgets with the configured hour-budget type and no area when none is given', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'budget-hours');
    const { areaId: _areaId, ...withoutArea } = budgetSet(accountId, { kind: 'HOURS', timeZone: 'UTC' });

    // Act
    const delivery = await deliver(flow, 'save-budget', 'BudgetSet', withoutArea);

    // Assess
    const metrics = metricsOf(await installRecords(flow, hostname));
    expect(metrics).toHaveLength(4);
    // The sandbox stores the type lower-cased, as the spec says the service may.
    expect(new Set(metrics.map((metric) => metric['type']))).toEqual(
      new Set([flow.env['HOUR_BUDGET_TYPE']?.toLowerCase() ?? 'budget_staffhour']),
    );
    expect(metrics[0]).toMatchObject({ area: 0, timestamp: String(Date.UTC(2026, 2, 7) / 1000) });
    expect(onlyPublished(delivery, 'BudgetSaved')).not.toHaveProperty('areaId');
  });

  it('replaces rather than adds when the same budget is sent again, keeping the metric ids', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'budget-again');
    const first = await deliver(flow, 'save-budget', 'BudgetSet', budgetSet(accountId));

    // Act
    const repeated = await deliver(flow, 'save-budget', 'BudgetSet', budgetSet(accountId));
    const changed = await deliver(
      flow,
      'save-budget',
      'BudgetSet',
      budgetSet(accountId, { days: [{ date: '2026-03-08', value: 10000 }] }),
    );

    // Assess
    const metrics = metricsOf(await installRecords(flow, hostname));
    expect(metrics).toHaveLength(4);
    expect(onlyPublished(repeated, 'BudgetSaved')['ids']).toEqual(onlyPublished(first, 'BudgetSaved')['ids']);
    expect(metrics.map((metric) => metric['value'])).toEqual([1200, 10000, 1400, 1500]);
    expect(onlyPublished(changed, 'BudgetSaved')['ids']).toEqual([metrics[1]!['id']]);
  });

  it('sends a set larger than METRICS_BULK_THRESHOLD days to metrics:bulk in chunks of 100', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'budget-bulk');
    const days = daysFrom('2026-01-01', 250);

    // Act
    const { delivery, calls } = await deliverWithCalls(
      flow,
      hostname,
      'save-budget',
      'BudgetSet',
      budgetSet(accountId, { days }),
    );

    // Assess
    expect(calls).toEqual([
      'POST /api/v2/metrics:bulk',
      'POST /api/v2/metrics:bulk',
      'POST /api/v2/metrics:bulk',
    ]);
    // Bulk data "may not be available for retrieval or display immediately" (the sandbox shows it
    // 60 s of its clock later): read it back after moving the clock 86 s on.
    await flow.sandbox('POST', '/_sandbox/clock', { advanceDays: 0.001 });
    const metrics = metricsOf(await installRecords(flow, hostname));
    expect(metrics).toHaveLength(250);
    expect(onlyPublished(delivery, 'BudgetSaved')).toMatchObject({ count: 250 });
    expect(onlyPublished(delivery, 'BudgetSaved')['ids'] as string[]).toEqual(
      metrics.map((metric) => metric['id']),
    );
  });

  it('keeps a set of exactly METRICS_BULK_THRESHOLD days on the real-time metrics URL', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'budget-edge');
    const threshold = Number(flow.env['METRICS_BULK_THRESHOLD'] ?? 31);

    // Act
    const calls = await callsDuring(flow, hostname, () =>
      deliver(
        flow,
        'save-budget',
        'BudgetSet',
        budgetSet(accountId, { days: daysFrom('2026-05-01', threshold) }),
      ),
    );

    // Assess
    expect(calls).toEqual(['POST /api/v2/metrics']);
  });
});

describe('BudgetSet that cannot be applied', () => {
  const invalid: InvalidDetailCase[] = [
    ['an unknown time zone', { timeZone: 'Mars/Olympus_Mons' }, 'timeZone'],
    ['a date that does not exist', { days: [{ date: '2026-02-30', value: 1 }] }, 'days[0].date'],
    [
      'the same date twice',
      {
        days: [
          { date: '2026-03-01', value: 1 },
          { date: '2026-03-01', value: 2 },
        ],
      },
      'days[1].date',
    ],
    ['a negative value', { days: [{ date: '2026-03-01', value: -5 }] }, 'days[0].value'],
    ['no days', { days: [] }, 'days'],
    ['an unknown kind', { kind: 'COST' }, 'kind'],
  ];

  itAnswersInvalidDetails(
    flow,
    {
      functionName: 'save-budget',
      detailType: 'BudgetSet',
      accountLabel: 'budget-invalid',
      detail: budgetSet,
    },
    invalid,
  );

  it('reports an area of another location as the service refusal, saving nothing', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'budget-area');

    // Act
    const delivery = await deliver(flow, 'save-budget', 'BudgetSet', budgetSet(accountId, { areaId: 2 }));

    // Assess
    expect(onlyPublished(delivery, 'SyncFailed')).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(metricsOf(await installRecords(flow, hostname))).toEqual([]);
  });
});
