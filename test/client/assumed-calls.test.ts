import { describe, expect, it } from 'vitest';
import { ResponseShapeError } from '#functions/domain/errors.ts';
import { type AssumedCallSettings, assumedCalls } from '#functions/service/assumed-calls.ts';
import { defaultServiceAssumptions, serviceAssumptionsSchema } from '#functions/service/assumptions.ts';

/** The calls the spec names without a path, against a recorded `call` (no HTTP): what is sent, how answers are read. */
function withAnswer(answer: unknown, settings: Partial<AssumedCallSettings> = {}) {
  const sent: Array<{ method: string; path: string; body: unknown }> = [];
  const calls = assumedCalls(
    async (method, path, _safety, body) => {
      sent.push({ method, path, body });
      return answer;
    },
    async () => [],
    {
      timesheetFieldPath: defaultServiceAssumptions.timesheetFieldPath,
      timesheetFieldResource: defaultServiceAssumptions.timesheetFieldResource,
      timesheetFieldIdFields: defaultServiceAssumptions.timesheetFieldIdFields,
      employeesBulkPath: defaultServiceAssumptions.employeesBulkPath,
      employeesBulkBody: defaultServiceAssumptions.employeesBulkBody,
      ...settings,
    },
  );
  return { calls, sent };
}

describe('employees:bulk (request and answer not shown)', () => {
  it('sends {agreementId, employeeIds} by default and reads a per-employee answer', async () => {
    // Prepare
    const { calls, sent } = withAnswer([
      { employeeId: 4, success: true, agreementId: 41 },
      { employeeId: 5, success: false, error: { code: 'NOT_FOUND', message: 'employee 5 not found' } },
    ]);

    // Act
    const results = await calls.assignAgreement(7, [4, 5]);

    // Assess
    expect(sent).toEqual([
      {
        method: 'POST',
        path: '/api/management/v2/employees:bulk',
        body: { agreementId: 7, employeeIds: [4, 5] },
      },
    ]);
    expect(results).toEqual([
      { employeeId: 4, applied: true, agreementId: 41 },
      { employeeId: 5, applied: false, code: 'NOT_FOUND', message: 'employee 5 not found' },
    ]);
  });

  it('sends the items form at a configured path, and takes an answer that lists nobody as every employee assigned', async () => {
    // Prepare
    const { calls, sent } = withAnswer(null, {
      employeesBulkPath: '/api/management/v2/bulk',
      employeesBulkBody: 'items',
    });

    // Act
    const results = await calls.assignAgreement(7, [4, 5]);

    // Assess
    expect(sent[0]).toEqual({
      method: 'POST',
      path: '/api/management/v2/bulk',
      body: {
        data: [
          { employeeId: 4, agreementId: 7 },
          { employeeId: 5, agreementId: 7 },
        ],
      },
    });
    expect(results).toEqual([
      { employeeId: 4, applied: true },
      { employeeId: 5, applied: true },
    ]);
  });

  it('refuses to read an answer that lists some employees and leaves one out', async () => {
    // Prepare
    const { calls } = withAnswer([{ employeeId: 4, success: true }]);

    // Act / Assess
    await expect(calls.assignAgreement(7, [4, 5])).rejects.toThrow(ResponseShapeError);
  });
});

describe('timesheet custom field definition (path not shown)', () => {
  it('posts the spec payload with System Timesheet and finds the id in the answer or under data', async () => {
    // Prepare
    const { calls, sent } = withAnswer({ data: { Id: 12 } });

    // Act
    const created = await calls.createTimesheetField({ ApiName: 'approved', Name: 'Approved?', Type: 4 });

    // Assess
    expect(sent).toEqual([
      {
        method: 'POST',
        path: '/api/v1/resource/CustomField',
        body: { System: 'Timesheet', ApiName: 'approved', Name: 'Approved?', Type: 4 },
      },
    ]);
    expect(created).toEqual({ definitionId: 12 });
  });
});

describe('assumed paths in the deploy settings', () => {
  it.each([
    ['a full URL', 'https://elsewhere.example/api'],
    ['a parent segment', '/api/../../secrets'],
    ['a query string', '/api/v1/resource/CustomField?x=1'],
  ])('refuses %s as a path below the install base URL', (_case, path) => {
    // Act
    const parsed = serviceAssumptionsSchema.safeParse({ timesheetFieldPath: path });

    // Assess
    expect(parsed.success).toBe(false);
  });
});
