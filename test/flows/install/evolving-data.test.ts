import { describe, expect, it } from 'vitest';
import { useFlowHarness } from '#test/flows/support/harness.ts';
import { deliver, onlyPublished, provisionedInstall } from './install-support.ts';

const flow = useFlowHarness();

/** Stages records in one install through the sandbox's control API; answers the stored records. */
function stage<T = Record<string, unknown>>(
  hostname: string,
  resource: string,
  records: unknown,
): Promise<T> {
  return flow.sandbox<T>('POST', `/_sandbox/installs/${hostname}/records/${resource}`, records);
}

/**
 * The spec says fair-work-week features are in ongoing development and new data elements and
 * values appear: a value it does not list must not break a flow that reads custom field data, and
 * must reach the partner as given.
 */
describe('a timesheet with a fair-work-week value the spec does not list', () => {
  it('still lets EmployeeChanged claim a new custom field, and PayReturnsReady carries the value as given (an object as its JSON text)', async () => {
    // Prepare: a timesheet whose custom field data holds an unlisted answer, with a premium pay line.
    const { accountId, hostname } = await provisionedInstall(flow, 'fww-unlisted');
    const answers = await stage<{ Id: number }>(hostname, 'CustomFieldData', {
      System: 'Timesheet',
      fwwleavinglate: 'Yes, Schedule Change Accepted',
      fwwcominginearly: "No I don't consent",
      fwwunscheduledshifthours: true,
      receivedallmealbreaks: 'Not asked',
      fwwbreakminutes: 12.5,
      fwwbreakdetails: { taken: [10, 20], waived: false },
    });
    const timesheet = await stage<{ Id: number }>(hostname, 'Timesheet', {
      Employee: 2,
      Date: '2026-01-15',
      StartTime: 1_768_467_600,
      EndTime: 1_768_496_400,
      OperationalUnit: 1,
      CustomFieldData: answers.Id,
    });
    await stage(hostname, 'TimesheetPayReturn', {
      Timesheet: timesheet.Id,
      PayRule: 'pr_us_predict_changed',
      Overridden: false,
      Value: 1,
      Cost: 18.5,
      OverrideComment: '',
      EventIds: JSON.stringify(['evt-unlisted-1']),
    });

    // Act
    const synced = await deliver(flow, 'sync-employee', 'EmployeeChanged', {
      accountId,
      employeeId: 2,
      customFields: { lockerNumber: 'L-7' },
    });
    const paid = await deliver(flow, 'pay-returns', 'PayReturnsRequested', {
      accountId,
      timesheetIds: [timesheet.Id],
    });

    // Assess
    expect(synced.failures).toEqual([]);
    expect(onlyPublished(synced, 'EmployeeSynced')).toMatchObject({ accountId, employeeId: 2 });
    const ready = onlyPublished(paid, 'PayReturnsReady');
    expect(ready['timesheet']).toMatchObject({
      employeeId: 2,
      date: '2026-01-15',
      scheduleChangeAnswers: {
        fwwleavinglate: 'Yes, Schedule Change Accepted',
        fwwcominginearly: "No I don't consent",
        fwwunscheduledshifthours: true,
        receivedallmealbreaks: 'Not asked',
        // A new element: a number as given; an object (not a scalar answer) as its JSON text.
        fwwbreakminutes: 12.5,
        fwwbreakdetails: '{"taken":[10,20],"waived":false}',
      },
    });
    expect(ready['lines']).toEqual([
      expect.objectContaining({
        payRuleId: 'pr_us_predict_changed',
        premium: expect.objectContaining({ eventIds: ['evt-unlisted-1'] }),
      }),
    ]);
  });
});
