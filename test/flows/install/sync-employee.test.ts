import { describe, expect, it } from 'vitest';
import { inboundSamples } from '#functions/contracts/samples.ts';
import { reserveSlot } from '#functions/store/slots.ts';
import { syncEmployee } from '#functions/sync-employee/sync-employee.ts';
import { flowDependencies, uniqueAccountId, useFlowHarness } from '#test/flows/support/harness.ts';
import {
  callsDuring,
  deliver,
  deliverWithCalls,
  type InvalidDetailCase,
  installRecords,
  itAnswersInvalidDetails,
  onlyPublished,
  provisionedInstall,
  useCaseInput,
} from './install-support.ts';

const flow = useFlowHarness();

const EMPLOYEE = 2;
const AWARD = { awardCode: 'RetailAssoc2024x', countryCode: 'US', hourlyRate: 24.5 };
const fullFormHours = inboundSamples.EmployeeChanged.regularHours;

function employeeChanged(accountId: string, parts: Record<string, unknown>, employeeId = EMPLOYEE) {
  return { accountId, employeeId, ...parts };
}

/** Delivers EmployeeChanged to the real handler; returns the delivery and the install calls it made. */
function employeeChangedWithCalls(hostname: string, detail: Record<string, unknown>) {
  return deliverWithCalls(flow, hostname, 'sync-employee', 'EmployeeChanged', detail);
}

function agreementsOf(records: Record<string, Array<Record<string, unknown>>>, employeeId: number) {
  return (records['EmployeeAgreement'] ?? []).filter((agreement) => agreement['EmployeeId'] === employeeId);
}

function customFieldRecordOf(records: Record<string, Array<Record<string, unknown>>>, employeeId: number) {
  const employee = (records['Employee'] ?? []).find((candidate) => candidate['Id'] === employeeId);
  return (records['CustomFieldData'] ?? []).find((record) => record['Id'] === employee?.['CustomFieldData']);
}

describe('EmployeeChanged with every part', () => {
  it('applies customFields, regularHours, payRate and leaveBalances in that order and reports each', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'emp-all');

    // Act
    const { delivery, calls } = await employeeChangedWithCalls(
      hostname,
      employeeChanged(accountId, {
        // Listed in another order than they are applied.
        leaveBalances: [{ leaveRuleId: 1, hours: 40 }],
        payRate: AWARD,
        regularHours: fullFormHours,
        customFields: { badgeNumber: 'B-17', forkliftCertified: true },
      }),
    );

    // Assess
    const synced = onlyPublished(delivery, 'EmployeeSynced');
    expect(synced).toMatchObject({
      accountId,
      hostname,
      employeeId: EMPLOYEE,
      parts: [
        { part: 'customFields', status: 'applied' },
        { part: 'regularHours', status: 'applied' },
        { part: 'payRate', status: 'applied' },
        { part: 'leaveBalances', status: 'applied' },
      ],
      // F01/F02 hold employee 1's seeded data, so the first free slots are 3 and 4.
      slots: [
        { apiName: 'badgeNumber', slot: 3 },
        { apiName: 'forkliftCertified', slot: 4 },
      ],
    });
    expect(calls).toEqual([
      'POST /api/v1/resource/CustomFieldData/QUERY',
      `POST /api/v1/resource/Employee/${EMPLOYEE}/CustomFieldDataObject`,
      `POST /api/v1/resource/Employee/${EMPLOYEE}/CustomFieldDataObject`,
      `POST /api/management/v2/agreed_hour/${EMPLOYEE}`,
      'GET /api/v1/payroll/listAwardsLibrary',
      `GET /api/v1/payroll/listAwardsLibrary/${AWARD.awardCode}`,
      `POST /api/v1/supervise/employee/${EMPLOYEE}/setAwardFromLibrary`,
      'POST /api/v1/resource/LeaveAccrual',
    ]);
    const records = await installRecords(flow, hostname);
    expect(customFieldRecordOf(records, EMPLOYEE)).toMatchObject({ F03: 'B-17', F04: true });
    expect(customFieldRecordOf(records, 1)).toMatchObject({ F01: 'BADGE-0001', F02: true });
    const agreement = agreementsOf(records, EMPLOYEE).find(
      (candidate) => candidate['Id'] === synced['agreementId'],
    );
    expect(agreement).toMatchObject({ Active: true, BaseRate: 24.5 });
    expect(records['LeaveAccrual']).toContainEqual(
      expect.objectContaining({ Employee: EMPLOYEE, LeaveRule: 1, Hours: 40 }),
    );
    expect(records['AgreedHour']).toContainEqual(
      expect.objectContaining({
        Employee: EMPLOYEE,
        agreedHour: expect.objectContaining({ threshold: 38 }),
      }),
    );
  });

  it('reports the parts an event leaves out as skipped', async () => {
    // Prepare
    const { accountId } = await provisionedInstall(flow, 'emp-skip');

    // Act
    const delivery = await deliver(
      flow,
      'sync-employee',
      'EmployeeChanged',
      employeeChanged(accountId, {
        leaveBalances: [{ leaveRuleId: 2, hours: 12, asOf: '2026-01-10T00:00:00Z' }],
      }),
    );

    // Assess
    expect(onlyPublished(delivery, 'EmployeeSynced')).toMatchObject({
      parts: [
        { part: 'customFields', status: 'skipped' },
        { part: 'regularHours', status: 'skipped' },
        { part: 'payRate', status: 'skipped' },
        { part: 'leaveBalances', status: 'applied' },
      ],
      slots: [],
    });
    expect(onlyPublished(delivery, 'EmployeeSynced')).not.toHaveProperty('agreementId');
  });
});

describe('custom field slots', () => {
  it('writes a known custom field with ONE service call and no list', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'emp-known');
    await deliver(
      flow,
      'sync-employee',
      'EmployeeChanged',
      employeeChanged(accountId, { customFields: { badgeNumber: 'B-17' } }),
    );

    // Act
    const { delivery, calls } = await employeeChangedWithCalls(
      hostname,
      employeeChanged(accountId, { customFields: { badgeNumber: 'B-18' } }, 3),
    );

    // Assess
    expect(calls).toEqual(['POST /api/v1/resource/Employee/3/CustomFieldDataObject']);
    expect(onlyPublished(delivery, 'EmployeeSynced')).toMatchObject({
      slots: [{ apiName: 'badgeNumber', slot: 3 }],
    });
    expect(customFieldRecordOf(await installRecords(flow, hostname), 3)).toMatchObject({ F03: 'B-18' });
  });

  it('gives two concurrent new apiNames of one install different slots, both past the seeded F01/F02', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'emp-race');

    // Act
    const [first, second] = await Promise.all([
      deliver(
        flow,
        'sync-employee',
        'EmployeeChanged',
        employeeChanged(accountId, { customFields: { shirtSize: 'M' } }, 2),
      ),
      deliver(
        flow,
        'sync-employee',
        'EmployeeChanged',
        employeeChanged(accountId, { customFields: { lockerNumber: '42' } }, 3),
      ),
    ]);

    // Assess
    const firstSlot = (onlyPublished(first, 'EmployeeSynced')['slots'] as Array<{ slot: number }>)[0]!.slot;
    const secondSlot = (onlyPublished(second, 'EmployeeSynced')['slots'] as Array<{ slot: number }>)[0]!.slot;
    expect(firstSlot).not.toBe(secondSlot);
    expect([firstSlot, secondSlot].sort()).toEqual([3, 4]);
    const records = await installRecords(flow, hostname);
    expect(customFieldRecordOf(records, 2)).toMatchObject({ [`F0${firstSlot}`]: 'M' });
    expect(customFieldRecordOf(records, 3)).toMatchObject({ [`F0${secondSlot}`]: '42' });
    expect(customFieldRecordOf(records, 1)).toMatchObject({ F01: 'BADGE-0001', F02: true });
  });

  it('fails with CUSTOM_FIELD_SLOTS_EXHAUSTED when the install and the registry hold all 128 slots', async () => {
    // Prepare: F01/F02 seeded, F03..F64 written by another integration, 65..128 in our registry.
    const { accountId, hostname } = await provisionedInstall(flow, 'emp-full');
    const otherIntegration: Record<string, string> = { System: 'Employee' };
    for (let slot = 3; slot <= 64; slot++)
      otherIntegration[`F${String(slot).padStart(2, '0')}`] = `other-${slot}`;
    await flow.sandbox(
      'POST',
      `/installs/${hostname}/api/v1/resource/Employee/4/CustomFieldDataObject`,
      otherIntegration,
    );
    for (let slot = 65; slot <= 128; slot++) {
      await reserveSlot(flow.store, hostname, 'Employee', `field${slot}`, slot);
    }

    // Act
    const { delivery, calls } = await employeeChangedWithCalls(
      hostname,
      employeeChanged(accountId, { customFields: { oneTooMany: 'x' } }),
    );

    // Assess
    expect(delivery.failures).toEqual([]);
    expect(onlyPublished(delivery, 'SyncFailed')).toMatchObject({
      code: 'CUSTOM_FIELD_SLOTS_EXHAUSTED',
      message: expect.stringContaining('customFields'),
    });
    expect(calls).toEqual(['POST /api/v1/resource/CustomFieldData/QUERY']);
  });
});

describe('pay rate', () => {
  it('sets a cached award code again with one call: setAwardFromLibrary', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'emp-award');
    await deliver(flow, 'sync-employee', 'EmployeeChanged', employeeChanged(accountId, { payRate: AWARD }));

    // Act
    const { delivery, calls } = await employeeChangedWithCalls(
      hostname,
      employeeChanged(accountId, { payRate: { ...AWARD, hourlyRate: 26 } }, 4),
    );

    // Assess
    expect(calls).toEqual(['POST /api/v1/supervise/employee/4/setAwardFromLibrary']);
    const agreementId = onlyPublished(delivery, 'EmployeeSynced')['agreementId'];
    expect(agreementsOf(await installRecords(flow, hostname), 4)).toContainEqual(
      expect.objectContaining({ Id: agreementId, BaseRate: 26, Active: true }),
    );
  });

  it('fails with AWARD_NOT_FOUND naming payRate and the parts already applied, without EmployeeSynced', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'emp-noaward');

    // Act
    const { delivery, calls } = await employeeChangedWithCalls(
      hostname,
      employeeChanged(accountId, {
        customFields: { badgeNumber: 'B-1' },
        payRate: { awardCode: 'NoSuchAward1', countryCode: 'us', hourlyRate: 20 },
        leaveBalances: [{ leaveRuleId: 1, hours: 8 }],
      }),
    );

    // Assess
    const failed = onlyPublished(delivery, 'SyncFailed');
    expect(failed).toMatchObject({ code: 'AWARD_NOT_FOUND', detailType: 'EmployeeChanged' });
    expect(failed['message']).toMatch(/^payRate failed \(parts already applied: customFields\)/);
    expect(calls).not.toContain(`POST /api/v1/supervise/employee/${EMPLOYEE}/setAwardFromLibrary`);
    expect(calls).not.toContain('POST /api/v1/resource/LeaveAccrual');
  });

  it('creates no second agreement when the same event is delivered twice', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'emp-redeliver');
    const detail = employeeChanged(accountId, { customFields: { badgeNumber: 'B-5' }, payRate: AWARD });
    const first = await deliver(flow, 'sync-employee', 'EmployeeChanged', detail);

    // Act
    const again = await deliver(flow, 'sync-employee', 'EmployeeChanged', detail, {
      id: first.eventId,
      receiveCount: 2,
    });

    // Assess
    expect(again.failures).toEqual([]);
    const records = await installRecords(flow, hostname);
    const created = agreementsOf(records, EMPLOYEE).filter(
      (agreement) => agreement['BaseRate'] === AWARD.hourlyRate,
    );
    expect(created).toHaveLength(1);
    expect(customFieldRecordOf(records, EMPLOYEE)).toMatchObject({ F03: 'B-5' });
  });

  it('reuses the recorded agreement when a retried event runs the use case again', async () => {
    // Prepare: the first run succeeded but its idempotency record is gone (expired or failed publish).
    const { accountId, hostname } = await provisionedInstall(flow, 'emp-guard');
    const dependencies = await flowDependencies();
    const input = useCaseInput('EmployeeChanged', { accountId, employeeId: EMPLOYEE, payRate: AWARD });
    const [firstRun] = await syncEmployee(input, dependencies);

    // Act
    let secondRun: Awaited<ReturnType<typeof syncEmployee>> = [];
    const calls = await callsDuring(flow, hostname, async () => {
      secondRun = await syncEmployee(input, dependencies);
    });

    // Assess
    expect(calls).toEqual([]);
    const agreementOf = (events: typeof secondRun) =>
      (events[0]?.detail as { agreementId?: unknown } | undefined)?.agreementId;
    expect(agreementOf(secondRun)).toBeDefined();
    expect(agreementOf(secondRun)).toBe(agreementOf(firstRun === undefined ? [] : [firstRun]));
    expect(agreementsOf(await installRecords(flow, hostname), EMPLOYEE)).toHaveLength(2);
  });

  it('retries the whole event after a retryable failure in a later part, without a second agreement', async () => {
    // Prepare: every LeaveAccrual call fails with 500 until the faults are cleared.
    const { accountId, hostname } = await provisionedInstall(flow, 'emp-retry');
    const detail = employeeChanged(accountId, {
      customFields: { badgeNumber: 'B-9' },
      payRate: AWARD,
      leaveBalances: [{ leaveRuleId: 1, hours: 24 }],
    });
    await flow.sandbox('POST', '/_sandbox/faults', {
      rate: 1,
      kinds: ['500'],
      seed: 1,
      pathPrefix: `/installs/${hostname}/api/v1/resource/LeaveAccrual`,
    });
    let first: Awaited<ReturnType<typeof deliver>>;
    try {
      first = await deliver(flow, 'sync-employee', 'EmployeeChanged', detail);
    } finally {
      await flow.sandbox('DELETE', '/_sandbox/faults');
    }

    // Act
    const retried = await deliver(flow, 'sync-employee', 'EmployeeChanged', detail, {
      id: first.eventId,
      receiveCount: 2,
    });

    // Assess
    expect(first.failures).toHaveLength(1);
    expect(first.published).toEqual([]);
    const synced = onlyPublished(retried, 'EmployeeSynced');
    expect(synced).toMatchObject({ slots: [{ apiName: 'badgeNumber', slot: 3 }] });
    const records = await installRecords(flow, hostname);
    expect(
      agreementsOf(records, EMPLOYEE).filter((agreement) => agreement['BaseRate'] === AWARD.hourlyRate),
    ).toEqual([expect.objectContaining({ Id: synced['agreementId'] })]);
    expect(records['LeaveAccrual']).toContainEqual(
      expect.objectContaining({ Employee: EMPLOYEE, LeaveRule: 1, Hours: 24 }),
    );
  });
});

describe('regular hours', () => {
  it('sends the simple form with its own cycle spelling', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'emp-simple');
    const simple = {
      threshold: 76,
      applyThreshold: true,
      workPeriod: {
        ...fullFormHours!.workPeriod,
        cycle: 'TWO_WEEKLY',
        endCycleDate: '2025-03-17T00:00:00Z',
      },
      workingDaysPerCycle: 10,
      details: { weeks: [] },
    };

    // Act
    const delivery = await deliver(
      flow,
      'sync-employee',
      'EmployeeChanged',
      employeeChanged(accountId, { regularHours: simple }),
    );

    // Assess
    expect(onlyPublished(delivery, 'EmployeeSynced')).toMatchObject({
      parts: expect.arrayContaining([{ part: 'regularHours', status: 'applied' }]),
    });
    expect((await installRecords(flow, hostname))['AgreedHour']).toContainEqual(
      expect.objectContaining({
        Employee: EMPLOYEE,
        agreedHour: expect.objectContaining({
          threshold: 76,
          workPeriod: expect.objectContaining({ cycle: 'TWO_WEEKLY' }),
          details: { weeks: [] },
        }),
      }),
    );
  });
});

describe('UK installs', () => {
  it('refuses leaveBalances with LEAVE_NOT_SUPPORTED_UK before calling the service', async () => {
    // Prepare: provisioned through the sandbox's /regions/uk root.
    const { accountId, hostname } = await provisionedInstall(flow, 'emp-uk', { region: 'UK' });

    // Act
    const { delivery, calls } = await employeeChangedWithCalls(
      hostname,
      employeeChanged(accountId, {
        customFields: { badgeNumber: 'B-1' },
        leaveBalances: [{ leaveRuleId: 1, hours: 16 }],
      }),
    );

    // Assess
    expect(hostname).toContain('.uk.');
    expect(onlyPublished(delivery, 'SyncFailed')).toMatchObject({
      code: 'LEAVE_NOT_SUPPORTED_UK',
      message: expect.stringContaining('leaveBalances'),
    });
    expect(calls).toEqual([]);
  });

  it('still applies the other parts for a UK install', async () => {
    // Prepare
    const { accountId } = await provisionedInstall(flow, 'emp-uk-ok', { region: 'UK' });

    // Act
    const delivery = await deliver(
      flow,
      'sync-employee',
      'EmployeeChanged',
      employeeChanged(accountId, { customFields: { badgeNumber: 'B-2' } }),
    );

    // Assess
    expect(onlyPublished(delivery, 'EmployeeSynced')).toMatchObject({
      slots: [{ apiName: 'badgeNumber', slot: 3 }],
    });
  });
});

describe('events that cannot be applied', () => {
  const invalidParts: InvalidDetailCase[] = [
    [
      'a full-form cycle in the simple form',
      {
        regularHours: {
          ...fullFormHours,
          details: { weeks: [] },
          workPeriod: { ...fullFormHours!.workPeriod, cycle: 'TWO_WEEK' },
        },
      },
      'regularHours.workPeriod.cycle',
    ],
    [
      'a shift starting at 25:00',
      {
        regularHours: {
          ...fullFormHours,
          details: {
            weeks: [
              {
                week: 'ONE',
                days: [{ day: 1, shifts: [{ startTime: '25:00', endTime: '26:00', breaks: [] }] }],
              },
            ],
          },
        },
      },
      'startTime',
    ],
    [
      'day 7',
      {
        regularHours: {
          ...fullFormHours,
          details: {
            weeks: [
              {
                week: 'ONE',
                days: [{ day: 7, shifts: [{ startTime: '08:00', endTime: '16:00', breaks: [] }] }],
              },
            ],
          },
        },
      },
      'day',
    ],
    [
      'an unknown break type',
      {
        regularHours: {
          ...fullFormHours,
          details: {
            weeks: [
              {
                week: 'ONE',
                days: [
                  {
                    day: 1,
                    shifts: [
                      {
                        startTime: '08:00',
                        endTime: '16:00',
                        breaks: [{ breakType: 'LUNCH', breakDuration: '00:30' }],
                      },
                    ],
                  },
                ],
              },
            ],
          },
        },
      },
      'breakType',
    ],
    ['a three-letter country code', { payRate: { ...AWARD, countryCode: 'USA' } }, 'payRate.countryCode'],
    ['an API name starting with a digit', { customFields: { '1badge': 'x' } }, 'customFields'],
    ['a negative leave balance', { leaveBalances: [{ leaveRuleId: 1, hours: -1 }] }, 'leaveBalances'],
    ['no part at all', {}, 'at least one of customFields, regularHours, payRate, leaveBalances'],
  ];

  itAnswersInvalidDetails(
    flow,
    {
      functionName: 'sync-employee',
      detailType: 'EmployeeChanged',
      accountLabel: 'emp-invalid',
      detail: employeeChanged,
    },
    invalidParts,
  );

  it('retries an event whose account has no business yet instead of failing it', async () => {
    // Prepare
    const accountId = uniqueAccountId('emp-early');

    // Act
    const delivery = await deliver(
      flow,
      'sync-employee',
      'EmployeeChanged',
      employeeChanged(accountId, { customFields: { a: 'b' } }),
    );

    // Assess
    expect(delivery.failures).toHaveLength(1);
    expect(delivery.published).toEqual([]);
  });

  it('reports an employee the install does not know as a refusal naming the part', async () => {
    // Prepare
    const { accountId } = await provisionedInstall(flow, 'emp-unknown');

    // Act
    const delivery = await deliver(
      flow,
      'sync-employee',
      'EmployeeChanged',
      employeeChanged(accountId, { leaveBalances: [{ leaveRuleId: 1, hours: 4 }] }, 999),
    );

    // Assess
    expect(onlyPublished(delivery, 'SyncFailed')).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/^leaveBalances failed \(no part was applied\)/),
    });
  });
});

describe('leave balances', () => {
  it('overwrites each balance, dated asOf when given and the service clock otherwise', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'emp-leave');
    await deliver(
      flow,
      'sync-employee',
      'EmployeeChanged',
      employeeChanged(accountId, { leaveBalances: [{ leaveRuleId: 1, hours: 80 }] }),
    );
    const { now: serviceNow } = await flow.sandbox<{ now: string }>('GET', '/_sandbox/clock');

    // Act
    const delivery = await deliver(
      flow,
      'sync-employee',
      'EmployeeChanged',
      employeeChanged(accountId, {
        leaveBalances: [
          { leaveRuleId: 1, hours: 16 },
          { leaveRuleId: 2, hours: 12, asOf: '2026-01-10T00:00:00Z' },
        ],
      }),
    );

    // Assess: the balance is replaced (16, not 96), one record per employee and rule.
    expect(onlyPublished(delivery, 'EmployeeSynced')).toMatchObject({
      parts: expect.arrayContaining([{ part: 'leaveBalances', status: 'applied' }]),
    });
    const accruals = ((await installRecords(flow, hostname))['LeaveAccrual'] ?? []).filter(
      (accrual) => accrual['Employee'] === EMPLOYEE,
    );
    expect(accruals.map((accrual) => [accrual['LeaveRule'], accrual['Hours']]).sort()).toEqual([
      [1, 16],
      [2, 12],
    ]);
    const dated = (rule: number) =>
      Date.parse(String(accruals.find((accrual) => accrual['LeaveRule'] === rule)?.['TransactionDate']));
    expect(dated(2)).toBe(Date.parse('2026-01-10T00:00:00Z'));
    expect(Math.abs(dated(1) - Date.parse(serviceNow))).toBeLessThan(60_000);
  });
});
