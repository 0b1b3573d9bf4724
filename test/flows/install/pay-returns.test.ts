import { describe, expect, it } from 'vitest';
import { schema as payReturnsReadySchema } from '#functions/contracts/outbound/pay-returns-ready.ts';
import { fitToEntryLimit, type ReadyDetail, totalsOf } from '#functions/pay-returns/pay-returns.ts';
import { useFlowHarness } from '#test/flows/support/harness.ts';
import {
  deliver,
  deliverWithCalls,
  type InvalidDetailCase,
  itAnswersInvalidDetails,
  provisionedInstall,
} from './install-support.ts';

const flow = useFlowHarness();

describe('PayReturnsRequested', () => {
  it('publishes one PayReturnsReady per timesheet with premium lines decoded, after one joined query each', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'pay-happy');

    // Act
    const { delivery, calls } = await deliverWithCalls(flow, hostname, 'pay-returns', 'PayReturnsRequested', {
      accountId,
      timesheetIds: [1003, 1001],
    });

    // Assess
    // One joined query per timesheet; a timesheet with premium lines and custom field data also has
    // its schedule-change answers read (one QUERY), nothing else.
    expect(calls.filter((call) => call.includes('/TimesheetPayReturn/'))).toEqual([
      'POST /api/v1/resource/TimesheetPayReturn/QUERY',
      'POST /api/v1/resource/TimesheetPayReturn/QUERY',
    ]);
    // The sandbox expands timesheet 1001's custom field data in the joined answer (the spec
    // allows it): no read of its own (the lenient reading that names it by id is tested below).
    expect(calls.filter((call) => !call.includes('/TimesheetPayReturn/'))).toEqual([]);
    const ready = delivery.published.filter((event) => event.detailType === 'PayReturnsReady');
    expect(ready.map((event) => event.detail['timesheetId'])).toEqual([1003, 1001]);
    const [timesheet1003, timesheet1001] = ready.map((event) => event.detail);
    expect(timesheet1003).toMatchObject({
      accountId,
      hostname,
      totals: { value: 11, cost: 231 },
      timesheet: {
        employeeId: 3,
        date: '2026-01-13',
        start: expect.stringMatching(/^2026-01-13T/),
        areaId: 2,
      },
    });
    expect(timesheet1003!['lines']).toEqual([
      {
        payReturnId: 5,
        payRuleId: 'pr_us_hosp_base',
        payRuleTitle: expect.any(String),
        payrollCategory: 'REG-HOSP',
        value: 8,
        cost: 168,
        overridden: false,
        comment: '',
      },
      expect.objectContaining({
        payReturnId: 6,
        payRuleId: 'pr_us_predict_changed',
        payrollCategory: 'PP-CHG',
        value: 2,
        cost: 42,
        premium: {
          eventIds: ['evt-1003-moved-1', 'evt-1003-shortened-2'],
          eventTypes: ['TIME_CHANGED_TOTAL_CHANGED', 'TIME_CHANGED_TOTAL_SAME'],
          config: expect.objectContaining({
            changePeriodThresholdSeconds: 1_209_600,
            shiftLengthThresholdSeconds: 14_400,
            returnTimeType: 'RETURN_TIME_TYPE_UNSPECIFIED',
          }),
        },
      }),
      expect.objectContaining({
        payReturnId: 7,
        payrollCategory: 'PP-ADD',
        premium: expect.objectContaining({
          eventIds: ['evt-1003-location-3'],
          eventTypes: ['TIME_ADDED', 'LOCATION_CHANGED'],
        }),
      }),
    ]);
    expect(timesheet1001).toMatchObject({ totals: { value: 9, cost: 202.5 } });
    expect((timesheet1001!['lines'] as unknown[]).length).toBe(2);
    expect(timesheet1003).not.toHaveProperty('truncated');
    // The spec seed's answers on timesheet 1003: each kept as given, whatever its spelling or
    // type, and a fair-work-week field the spec does not name yet.
    expect((timesheet1003!['timesheet'] as Record<string, unknown>)['scheduleChangeAnswers']).toMatchObject({
      fwwschedulechangenotice: 'Yes, Manager Requested',
      fwwcominginearly: "No, I don't consent",
      fwwunscheduledshifthours: true,
      fwwagreedtoextendshift: '',
      fwwreceivedallrestbreaks: 'No',
    });
  });

  it('reads custom field data the joined answer names by id (lenient reading custom-field-ids) with one QUERY', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'pay-cf-ids');
    await flow.sandbox('POST', '/_sandbox/mode', { lenient: ['custom-field-ids'] });

    try {
      // Act
      const { delivery, calls } = await deliverWithCalls(
        flow,
        hostname,
        'pay-returns',
        'PayReturnsRequested',
        {
          accountId,
          timesheetIds: [1001],
        },
      );

      // Assess
      expect(calls).toEqual([
        'POST /api/v1/resource/TimesheetPayReturn/QUERY',
        'POST /api/v1/resource/CustomFieldData/QUERY',
      ]);
      const [ready] = delivery.published.filter((event) => event.detailType === 'PayReturnsReady');
      const timesheet = ready?.detail['timesheet'] as Record<string, unknown>;
      expect(Object.keys(timesheet['scheduleChangeAnswers'] as object).length).toBeGreaterThan(0);
    } finally {
      await flow.sandbox('POST', '/_sandbox/mode', { lenient: [] });
    }
  });

  it('answers a timesheet with no pay lines with empty lines and zero totals', async () => {
    // Prepare
    const { accountId } = await provisionedInstall(flow, 'pay-empty');

    // Act
    const delivery = await deliver(flow, 'pay-returns', 'PayReturnsRequested', {
      accountId,
      timesheetIds: [424242],
    });

    // Assess
    expect(delivery.published).toEqual([
      expect.objectContaining({
        detailType: 'PayReturnsReady',
        detail: expect.objectContaining({ timesheetId: 424242, lines: [], totals: { value: 0, cost: 0 } }),
      }),
    ]);
  });

  it('answers lines without premium details for ordinary timesheets', async () => {
    // Prepare
    const { accountId } = await provisionedInstall(flow, 'pay-plain');

    // Act
    const delivery = await deliver(flow, 'pay-returns', 'PayReturnsRequested', {
      accountId,
      timesheetIds: [1002],
    });

    // Assess
    const [ready] = delivery.published;
    expect(ready?.detail['lines']).toEqual([
      expect.not.objectContaining({ premium: expect.anything() }),
      expect.not.objectContaining({ premium: expect.anything() }),
    ]);
    expect(ready?.detail['totals']).toEqual({ value: 8.5, cost: 161.88 });
  });

  const invalid: InvalidDetailCase[] = [
    ['no timesheets', { timesheetIds: [] }, 'timesheetIds'],
    ['a repeated timesheet', { timesheetIds: [1001, 1001] }, 'timesheetIds[1]'],
    [
      '101 timesheets',
      { timesheetIds: Array.from({ length: 101 }, (_, index) => index + 1) },
      'timesheetIds',
    ],
    ['a non-integer id', { timesheetIds: [10.5] }, 'timesheetIds[0]'],
  ];
  itAnswersInvalidDetails(
    flow,
    {
      functionName: 'pay-returns',
      detailType: 'PayReturnsRequested',
      accountLabel: 'pay-invalid',
      detail: (accountId, overrides) => ({ accountId, ...overrides }),
    },
    invalid,
  );
});

describe('fitToEntryLimit', () => {
  function premiumLine(index: number, extraConfigBytes: number) {
    return {
      payReturnId: index + 1,
      payRuleId: 'pr_us_predict_added',
      payRuleTitle: 'Predictability Pay - Time Added',
      payrollCategory: 'PP-ADD',
      value: 1,
      cost: 22.5,
      overridden: false,
      comment: '',
      premium: {
        eventIds: [`evt-${index}`],
        eventTypes: ['TIME_ADDED'],
        config: {
          usePredictPay: true,
          eventTypes: ['TIME_ADDED'],
          vendorDiagnostics: 'x'.repeat(extraConfigBytes),
        },
      },
    };
  }

  function readyDetail(lines: ReturnType<typeof premiumLine>[]): ReadyDetail {
    return {
      accountId: 'acct-1',
      hostname: 'h.us.sandbox.test',
      timesheetId: 1,
      lines,
      totals: totalsOf(lines),
    };
  }

  it('leaves a detail under the limit untouched', () => {
    // Prepare
    const detail = readyDetail([premiumLine(0, 10)]);

    // Act & Assess
    expect(fitToEntryLimit(detail, 10_000)).toBe(detail);
  });

  it('first trims premium configs to the keys the spec names and marks the detail truncated', () => {
    // Prepare
    const detail = readyDetail([premiumLine(0, 5_000), premiumLine(1, 5_000)]);

    // Act
    const fitted = fitToEntryLimit(detail, 4_000);

    // Assess
    expect(fitted.truncated).toBe(true);
    expect(fitted.lines).toHaveLength(2);
    expect(fitted.lines[0]?.premium?.config).toEqual({ usePredictPay: true, eventTypes: ['TIME_ADDED'] });
    expect(Buffer.byteLength(JSON.stringify(fitted))).toBeLessThanOrEqual(4_000);
  });

  it('then cuts trailing lines, keeping totals over every line and the published contract', () => {
    // Prepare: 3 000 lines is far above any real timesheet and above 256 KB.
    const lines = Array.from({ length: 3_000 }, (_, index) => premiumLine(index, 0));
    const detail = readyDetail(lines);

    // Act
    const fitted = fitToEntryLimit(detail, 200_000);

    // Assess
    const bytes = Buffer.byteLength(JSON.stringify({ ...fitted, causationId: 'x'.repeat(128) }));
    expect(bytes).toBeLessThanOrEqual(200_000);
    expect(fitted.lines.length).toBeGreaterThan(0);
    expect(fitted.lines.length).toBeLessThan(3_000);
    expect(fitted.lines).toEqual(
      lines
        .slice(0, fitted.lines.length)
        .map((line) => expect.objectContaining({ payReturnId: line.payReturnId })),
    );
    expect(fitted.totals).toEqual({ value: 3_000, cost: 67_500 });
    expect(payReturnsReadySchema.safeParse({ ...fitted, causationId: 'evt-1' }).success).toBe(true);
  });
});
