import { describe, expect, it } from 'vitest';
import { useFlowHarness } from '#test/flows/support/harness.ts';
import { deliver, deliverWithCalls, onlyPublished, provisionedInstall } from './install-support.ts';

// A deployment that knows the service's QUERY maximum (serviceAssumptions.queryMaxRecords); the
// seed holds exactly 5 agreements, so the install-wide listing reaches it.
const flow = useFlowHarness({ config: { serviceAssumptions: { queryMaxRecords: 5 } } });

describe('a QUERY answer that reaches the configured maximum', () => {
  it('is not acted on: PayRatesRequested for the whole install ends in SyncFailed QUERY_LIMIT_REACHED', async () => {
    // Prepare
    const { accountId } = await provisionedInstall(flow, 'query-limit');

    // Act
    const delivery = await deliver(flow, 'pay-rates', 'PayRatesRequested', { accountId });

    // Assess
    expect(delivery.failures).toEqual([]);
    expect(onlyPublished(delivery, 'SyncFailed')).toMatchObject({
      code: 'QUERY_LIMIT_REACHED',
      message: expect.stringContaining('employeeIds'),
    });
  });

  it('leaves narrower reads alone: the same request by employee answers', async () => {
    // Prepare
    const { accountId } = await provisionedInstall(flow, 'query-limit-by-employee');

    // Act
    const delivery = await deliver(flow, 'pay-rates', 'PayRatesRequested', {
      accountId,
      employeeIds: [1, 2],
    });

    // Assess
    expect(onlyPublished(delivery, 'PayRatesReported')['rates']).toHaveLength(2);
  });

  it('reads a pay period again day by day when the month answer reaches it, and answers every timesheet', async () => {
    // Prepare: 5 timesheets in March (the maximum), at most 2 on one day.
    const { accountId, hostname } = await provisionedInstall(flow, 'query-limit-period');
    const days = ['2026-03-02', '2026-03-02', '2026-03-03', '2026-03-03', '2026-03-20'];
    await flow.sandbox(
      'POST',
      `/_sandbox/installs/${hostname}/records/Timesheet`,
      days.map((date, index) => ({ Id: 5001 + index, Employee: 2, OperationalUnit: 1, Date: date })),
    );

    // Act
    const { delivery, calls } = await deliverWithCalls(flow, hostname, 'pay-returns', 'PayReturnsRequested', {
      accountId,
      from: '2026-03-01',
      to: '2026-03-04',
    });

    // Assess: the month, then its 4 days of the period, then one pay-return read per timesheet.
    expect(calls.filter((call) => call.includes('/Timesheet/'))).toHaveLength(5);
    expect(
      delivery.published.find((event) => event.detailType === 'PayReturnsCompleted')?.detail,
    ).toMatchObject({ timesheetIds: [5001, 5002, 5003, 5004], count: 4 });
  });

  it('is not paged over: a RecordsRequested whose answer reaches it ends in SyncFailed QUERY_LIMIT_REACHED', async () => {
    // Prepare: the seed holds exactly 5 employees.
    const { accountId } = await provisionedInstall(flow, 'query-limit-records');

    // Act
    const delivery = await deliver(flow, 'read-records', 'RecordsRequested', {
      accountId,
      resource: 'Employee',
      pageSize: 2,
    });

    // Assess
    expect(onlyPublished(delivery, 'SyncFailed')).toMatchObject({ code: 'QUERY_LIMIT_REACHED' });
  });
});
