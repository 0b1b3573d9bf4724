import { describe, expect, it } from 'vitest';
import { useFlowHarness } from '#test/flows/support/harness.ts';
import {
  deliver,
  deliverWithCalls,
  type InvalidDetailCase,
  itAnswersInvalidDetails,
  onlyPublished,
  provisionedInstall,
} from './install-support.ts';

/** A timesheet staged in the sandbox: employee, area (1: location 1, 2: location 2) and date. */
const timesheet = (Id: number, date: string, Employee = 2, OperationalUnit = 1) => ({
  Id,
  Employee,
  OperationalUnit,
  Date: date,
  StartTime: Date.parse(`${date}T09:00:00Z`) / 1000,
  EndTime: Date.parse(`${date}T17:00:00Z`) / 1000,
  CustomFieldData: null,
});

const flow = useFlowHarness();

async function stage(hostname: string, resource: string, records: unknown[]): Promise<void> {
  await flow.sandbox('POST', `/_sandbox/installs/${hostname}/records/${resource}`, records);
}

describe('PayReturnsRequested by period', () => {
  it('answers the 3 timesheets of the period (not the one after it) with 3 PayReturnsReady, then one PayReturnsCompleted', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'period-happy');
    await stage(hostname, 'Timesheet', [
      timesheet(3001, '2026-03-02'),
      timesheet(3002, '2026-03-05', 3, 2),
      timesheet(3003, '2026-03-08'),
      timesheet(3004, '2026-03-09'),
    ]);
    await stage(hostname, 'TimesheetPayReturn', [
      {
        Id: 9001,
        Timesheet: 3001,
        PayRule: 'pr_us_retail_base',
        Overridden: false,
        Value: 8,
        Cost: 160,
        OverrideComment: '',
        EventIds: null,
      },
    ]);

    // Act
    const { delivery, calls } = await deliverWithCalls(flow, hostname, 'pay-returns', 'PayReturnsRequested', {
      accountId,
      from: '2026-03-02',
      to: '2026-03-08',
    });

    // Assess: one read of the month's timesheets, then one joined read per timesheet.
    expect(delivery.failures).toEqual([]);
    expect(calls).toEqual([
      'POST /api/v1/resource/Timesheet/QUERY',
      ...Array(3).fill('POST /api/v1/resource/TimesheetPayReturn/QUERY'),
    ]);
    expect(delivery.published.map((event) => event.detailType)).toEqual([
      'PayReturnsReady',
      'PayReturnsReady',
      'PayReturnsReady',
      'PayReturnsCompleted',
    ]);
    const ready = delivery.published.filter((event) => event.detailType === 'PayReturnsReady');
    expect(ready.map((event) => event.detail['timesheetId'])).toEqual([3001, 3002, 3003]);
    expect(ready[0]?.detail).toMatchObject({
      accountId,
      hostname,
      timesheet: { employeeId: 2, date: '2026-03-02', areaId: 1, locationId: 1 },
      lines: [expect.objectContaining({ payReturnId: 9001, value: 8, cost: 160 })],
      totals: { value: 8, cost: 160 },
    });
    expect(delivery.published.at(-1)?.detail).toEqual({
      accountId,
      hostname,
      causationId: delivery.eventId,
      sourceEventId: delivery.eventId,
      from: '2026-03-02',
      to: '2026-03-08',
      timesheetIds: [3001, 3002, 3003],
      count: 3,
    });
  });

  it('keeps only the locations and employees asked for', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'period-narrowed');
    await stage(hostname, 'Timesheet', [
      timesheet(3101, '2026-04-01', 2, 1),
      timesheet(3102, '2026-04-02', 3, 2),
      timesheet(3103, '2026-04-03', 2, 2),
    ]);

    // Act
    const byLocation = await deliver(flow, 'pay-returns', 'PayReturnsRequested', {
      accountId,
      from: '2026-04-01',
      to: '2026-04-30',
      locationIds: [2],
    });
    const byBoth = await deliver(flow, 'pay-returns', 'PayReturnsRequested', {
      accountId,
      from: '2026-04-01',
      to: '2026-04-30',
      locationIds: [2],
      employeeIds: [2],
    });

    // Assess
    const completed = (delivery: typeof byLocation) =>
      delivery.published.find((event) => event.detailType === 'PayReturnsCompleted')?.detail;
    expect(completed(byLocation)).toMatchObject({ timesheetIds: [3102, 3103], count: 2, locationIds: [2] });
    expect(completed(byBoth)).toMatchObject({ timesheetIds: [3103], count: 1, employeeIds: [2] });
  });

  it('answers a period without timesheets with PayReturnsCompleted count 0 alone', async () => {
    // Prepare
    const { accountId } = await provisionedInstall(flow, 'period-empty');

    // Act
    const delivery = await deliver(flow, 'pay-returns', 'PayReturnsRequested', {
      accountId,
      from: '2031-01-01',
      to: '2031-01-31',
    });

    // Assess
    expect(onlyPublished(delivery, 'PayReturnsCompleted')).toMatchObject({ timesheetIds: [], count: 0 });
  });

  it('publishes nothing while a pay-return read fails, and everything once when the record comes back', async () => {
    // Prepare: every pay-return read of this install fails until the faults are cleared.
    const { accountId, hostname } = await provisionedInstall(flow, 'period-retry');
    await stage(hostname, 'Timesheet', [timesheet(3201, '2026-05-04'), timesheet(3202, '2026-05-05')]);
    await flow.sandbox('POST', '/_sandbox/faults', {
      rate: 1,
      kinds: ['500'],
      pathPrefix: `/installs/${hostname}/api/v1/resource/TimesheetPayReturn/`,
    });
    const detail = { accountId, from: '2026-05-01', to: '2026-05-31' };
    let failed: Awaited<ReturnType<typeof deliver>>;
    try {
      failed = await deliver(flow, 'pay-returns', 'PayReturnsRequested', detail);
    } finally {
      await flow.sandbox('DELETE', '/_sandbox/faults');
    }

    // Act: the same event again (SQS delivers it after its visibility timeout), then a duplicate.
    const retried = await deliver(flow, 'pay-returns', 'PayReturnsRequested', detail, {
      id: failed.eventId,
      receiveCount: 2,
    });
    const duplicate = await deliver(flow, 'pay-returns', 'PayReturnsRequested', detail, {
      id: failed.eventId,
      receiveCount: 3,
    });

    // Assess
    expect(failed.failures).toHaveLength(1);
    expect(retried.failures).toEqual([]);
    expect(duplicate.failures).toEqual([]);
    const all = flow.published().filter((event) => event.detail['causationId'] === failed.eventId);
    expect(all.map((event) => event.detailType)).toEqual([
      'PayReturnsReady',
      'PayReturnsReady',
      'PayReturnsCompleted',
    ]);
  });

  it('refuses a period holding more timesheets than one request answers: SyncFailed PERIOD_TOO_LARGE, nothing else', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'period-large');
    await stage(
      hostname,
      'Timesheet',
      Array.from({ length: 101 }, (_, index) => timesheet(4000 + index, '2026-06-01')),
    );

    // Act
    const { delivery, calls } = await deliverWithCalls(flow, hostname, 'pay-returns', 'PayReturnsRequested', {
      accountId,
      from: '2026-06-01',
      to: '2026-06-01',
    });

    // Assess
    expect(onlyPublished(delivery, 'SyncFailed')).toMatchObject({
      code: 'PERIOD_TOO_LARGE',
      message: expect.stringContaining('101 timesheets'),
    });
    expect(calls).toEqual(['POST /api/v1/resource/Timesheet/QUERY']);
  });

  const invalid: InvalidDetailCase[] = [
    [
      'both timesheet ids and a period',
      { timesheetIds: [1001], from: '2026-03-01', to: '2026-03-02' },
      'not both',
    ],
    ['neither timesheet ids nor a period', {}, 'give either timesheetIds or a period'],
    ['a period that ends before it starts', { from: '2026-03-09', to: '2026-03-01' }, 'detail.to'],
    ['a period of 32 days', { from: '2026-03-01', to: '2026-04-01' }, 'at most 31 days'],
    ['employeeIds without a period', { timesheetIds: [1001], employeeIds: [2] }, 'detail.employeeIds'],
  ];
  itAnswersInvalidDetails(
    flow,
    {
      functionName: 'pay-returns',
      detailType: 'PayReturnsRequested',
      accountLabel: 'period-invalid',
      detail: (accountId, overrides) => ({ accountId, ...overrides }),
    },
    invalid,
  );
});
