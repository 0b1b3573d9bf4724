import { describe, expect, it } from 'vitest';

import { type InboundDetailType, inboundContracts } from '#functions/contracts/registry.ts';
import { inboundSamples } from '#functions/contracts/samples.ts';
import { decodeInboundMessage, decodeOptions, eventBody } from './support.ts';

type Detail = Record<string, unknown>;

interface Rejection {
  detailType: InboundDetailType;
  breaks: string;
  /** Changes a copy of the valid sample. */
  mutate: (detail: Detail) => void;
  /** Path the message must name, e.g. `detail.owner.email`. */
  path: string;
  /** The offending value as it could appear in text; the message must not contain it. */
  value?: string;
}

const sample = (detailType: InboundDetailType): Detail =>
  structuredClone(inboundSamples[detailType]) as Detail;
const at = (detail: Detail, ...path: (string | number)[]): Detail =>
  path.reduce<Detail>((node, key) => (node as Record<string | number, Detail>)[key]!, detail);
const firstShift = (d: Detail) => at(d, 'regularHours', 'details', 'weeks', 0, 'days', 0, 'shifts', 0);

const rejections: Rejection[] = [
  // AccountCreated
  {
    detailType: 'AccountCreated',
    breaks: 'an unknown field',
    mutate: (d) => {
      d.nickname = 'Zebulon';
    },
    path: 'detail',
    value: 'Zebulon',
  },
  {
    detailType: 'AccountCreated',
    breaks: 'an unknown owner field',
    mutate: (d) => {
      at(d, 'owner').middleName = 'Quillon';
    },
    path: 'detail.owner',
    value: 'Quillon',
  },
  {
    detailType: 'AccountCreated',
    breaks: 'a malformed e-mail',
    mutate: (d) => {
      at(d, 'owner').email = 'avery.stone.at.example';
    },
    path: 'detail.owner.email',
    value: 'avery.stone.at.example',
  },
  {
    detailType: 'AccountCreated',
    breaks: 'a mobile number that is text',
    mutate: (d) => {
      at(d, 'owner').mobileNumber = 'call me maybe';
    },
    path: 'detail.owner.mobileNumber',
    value: 'call me maybe',
  },
  {
    detailType: 'AccountCreated',
    breaks: 'a zero employee count',
    mutate: (d) => {
      d.estimatedEmployeeCount = 0;
    },
    path: 'detail.estimatedEmployeeCount',
  },
  {
    detailType: 'AccountCreated',
    breaks: 'a fractional employee count',
    mutate: (d) => {
      d.estimatedEmployeeCount = 12.75;
    },
    path: 'detail.estimatedEmployeeCount',
    value: '12.75',
  },
  {
    detailType: 'AccountCreated',
    breaks: 'an unknown region',
    mutate: (d) => {
      d.region = 'FR';
    },
    path: 'detail.region',
    value: 'FR',
  },
  {
    detailType: 'AccountCreated',
    breaks: 'a business name of the wrong type',
    mutate: (d) => {
      d.businessName = 4242;
    },
    path: 'detail.businessName',
    value: '4242',
  },
  // PlanChosen
  {
    detailType: 'PlanChosen',
    breaks: 'an unknown plan',
    mutate: (d) => {
      d.plan = 'GOLDEN';
    },
    path: 'detail.plan',
    value: 'GOLDEN',
  },
  {
    detailType: 'PlanChosen',
    breaks: 'an unknown address field',
    mutate: (d) => {
      at(d, 'billingAddress').zip = '94105';
    },
    path: 'detail.billingAddress',
  },
  {
    detailType: 'PlanChosen',
    breaks: 'a numeric postcode',
    mutate: (d) => {
      at(d, 'billingAddress').postcode = 94105;
    },
    path: 'detail.billingAddress.postcode',
    value: '94105',
  },
  // SubscriptionStatusRequested: a hostname inside an event is never trusted as an address.
  {
    detailType: 'SubscriptionStatusRequested',
    breaks: 'a hostname field',
    mutate: (d) => {
      d.hostname = 'evil.example.net';
    },
    path: 'detail',
    value: 'evil.example.net',
  },
  // EmployeeChanged
  {
    detailType: 'EmployeeChanged',
    breaks: 'no part at all',
    mutate: (d) => {
      delete d.customFields;
      delete d.regularHours;
      delete d.payRate;
      delete d.leaveBalances;
    },
    path: 'detail',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'a negative employee id',
    mutate: (d) => {
      d.employeeId = -4242;
    },
    path: 'detail.employeeId',
    value: '4242',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'an employee id as a string',
    mutate: (d) => {
      d.employeeId = '2';
    },
    path: 'detail.employeeId',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'a custom field value that is a number',
    mutate: (d) => {
      at(d, 'customFields').badgeNumber = 98765;
    },
    path: 'detail.customFields.badgeNumber',
    value: '98765',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'a custom field API name that is not an identifier',
    mutate: (d) => {
      at(d, 'customFields')['owner@example.com'] = 'x';
    },
    path: 'detail.customFields[?]',
    value: 'owner@example.com',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'an empty custom field record',
    mutate: (d) => {
      d.customFields = {};
    },
    path: 'detail.customFields',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'a shift starting at 24:00',
    mutate: (d) => {
      firstShift(d).startTime = '24:00';
    },
    path: 'detail.regularHours.details.weeks[0].days[0].shifts[0].startTime',
    value: '24:00',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'an unknown break type',
    mutate: (d) => {
      at(firstShift(d), 'breaks', 0).breakType = 'SIESTA';
    },
    path: 'detail.regularHours.details.weeks[0].days[0].shifts[0].breaks[0].breakType',
    value: 'SIESTA',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'a NO_BREAK with a duration',
    mutate: (d) => {
      at(firstShift(d), 'breaks', 0).breakType = 'NO_BREAK';
    },
    path: 'detail.regularHours.details.weeks[0].days[0].shifts[0].breaks[0].breakDuration',
    value: '00:30',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'day 7',
    mutate: (d) => {
      at(d, 'regularHours', 'details', 'weeks', 0, 'days', 0).day = 7;
    },
    path: 'detail.regularHours.details.weeks[0].days[0].day',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'an unknown day of week',
    mutate: (d) => {
      at(d, 'regularHours', 'workPeriod').dayOfWeek = 'FUNDAY';
    },
    path: 'detail.regularHours.workPeriod.dayOfWeek',
    value: 'FUNDAY',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'a simple-form cycle in the full form',
    mutate: (d) => {
      at(d, 'regularHours', 'workPeriod').cycle = 'TWO_WEEKLY';
    },
    path: 'detail.regularHours.workPeriod.cycle',
    value: 'TWO_WEEKLY',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'a fractional threshold in the simple form',
    mutate: (d) => {
      at(d, 'regularHours').threshold = 37.25;
      at(d, 'regularHours', 'details').weeks = [];
    },
    path: 'detail.regularHours.threshold',
    value: '37.25',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'a negative threshold',
    mutate: (d) => {
      at(d, 'regularHours').threshold = -3.5;
    },
    path: 'detail.regularHours.threshold',
    value: '3.5',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'a start date that is not a timestamp',
    mutate: (d) => {
      at(d, 'regularHours', 'workPeriod').startDate = 'next tuesday';
    },
    path: 'detail.regularHours.workPeriod.startDate',
    value: 'next tuesday',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'a cycle that ends before it starts',
    mutate: (d) => {
      at(d, 'regularHours', 'workPeriod').endCycleDate = '2025-03-01T00:00:00Z';
    },
    path: 'detail.regularHours.workPeriod.endCycleDate',
    value: '2025-03-01',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'a three-letter country code',
    mutate: (d) => {
      at(d, 'payRate').countryCode = 'USA';
    },
    path: 'detail.payRate.countryCode',
    value: 'USA',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'a zero hourly rate',
    mutate: (d) => {
      at(d, 'payRate').hourlyRate = 0;
    },
    path: 'detail.payRate.hourlyRate',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'an empty leave balance list',
    mutate: (d) => {
      d.leaveBalances = [];
    },
    path: 'detail.leaveBalances',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: '101 leave balances',
    mutate: (d) => {
      d.leaveBalances = Array.from({ length: 101 }, (_, i) => ({ leaveRuleId: i + 1, hours: 1 }));
    },
    path: 'detail.leaveBalances',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'negative leave hours',
    mutate: (d) => {
      at(d, 'leaveBalances', 0).hours = -8.5;
    },
    path: 'detail.leaveBalances[0].hours',
    value: '8.5',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'a leave rule listed twice',
    mutate: (d) => {
      at(d, 'leaveBalances', 1).leaveRuleId = 1;
    },
    path: 'detail.leaveBalances[1].leaveRuleId',
  },
  {
    detailType: 'EmployeeChanged',
    breaks: 'an asOf that is not a timestamp',
    mutate: (d) => {
      at(d, 'leaveBalances', 0).asOf = 'last week';
    },
    path: 'detail.leaveBalances[0].asOf',
    value: 'last week',
  },
  // LocationCreated
  {
    detailType: 'LocationCreated',
    breaks: 'neither workplace nor payroll entity',
    mutate: (d) => {
      d.isWorkplace = false;
      d.isPayrollEntity = false;
    },
    path: 'detail.isWorkplace',
  },
  {
    detailType: 'LocationCreated',
    breaks: 'an active flag that is not a boolean',
    mutate: (d) => {
      d.active = 'no';
    },
    path: 'detail.active',
  },
  {
    detailType: 'LocationCreated',
    breaks: '51 areas',
    mutate: (d) => {
      d.areas = Array.from({ length: 51 }, (_, i) => ({ name: `Area ${i}` }));
    },
    path: 'detail.areas',
  },
  {
    detailType: 'LocationCreated',
    breaks: 'a geographic flag as text',
    mutate: (d) => {
      at(d, 'areas', 0).geographic = 'yes please';
    },
    path: 'detail.areas[0].geographic',
    value: 'yes please',
  },
  {
    detailType: 'LocationCreated',
    breaks: 'two areas with one name',
    mutate: (d) => {
      at(d, 'areas', 1).name = 'Kitchen';
    },
    path: 'detail.areas[1].name',
    value: 'Kitchen',
  },
  {
    detailType: 'LocationCreated',
    breaks: 'a fractional parent location id',
    mutate: (d) => {
      d.parentLocationId = 7.5;
    },
    path: 'detail.parentLocationId',
    value: '7.5',
  },
  {
    detailType: 'LocationCreated',
    breaks: 'an unknown area field',
    mutate: (d) => {
      at(d, 'areas', 0).color = 'teal';
    },
    path: 'detail.areas[0]',
    value: 'teal',
  },
  // BudgetSet
  {
    detailType: 'BudgetSet',
    breaks: 'an unknown kind',
    mutate: (d) => {
      d.kind = 'MONEY';
    },
    path: 'detail.kind',
    value: 'MONEY',
  },
  {
    detailType: 'BudgetSet',
    breaks: 'a time zone that does not exist',
    mutate: (d) => {
      d.timeZone = 'Mars/Olympus_Mons';
    },
    path: 'detail.timeZone',
    value: 'Mars/Olympus_Mons',
  },
  {
    detailType: 'BudgetSet',
    breaks: 'no days',
    mutate: (d) => {
      d.days = [];
    },
    path: 'detail.days',
  },
  {
    detailType: 'BudgetSet',
    breaks: '367 days',
    mutate: (d) => {
      d.days = Array.from({ length: 367 }, (_, i) => ({
        date: new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10),
        value: 1,
      }));
    },
    path: 'detail.days',
  },
  {
    detailType: 'BudgetSet',
    breaks: 'February 29 of a common year',
    mutate: (d) => {
      at(d, 'days', 0).date = '2023-02-29';
    },
    path: 'detail.days[0].date',
    value: '2023-02-29',
  },
  {
    detailType: 'BudgetSet',
    breaks: 'month 13',
    mutate: (d) => {
      at(d, 'days', 2).date = '2025-13-01';
    },
    path: 'detail.days[2].date',
    value: '2025-13-01',
  },
  {
    detailType: 'BudgetSet',
    breaks: 'a negative value',
    mutate: (d) => {
      at(d, 'days', 0).value = -1250.5;
    },
    path: 'detail.days[0].value',
    value: '1250.5',
  },
  {
    detailType: 'BudgetSet',
    breaks: 'a date listed twice',
    mutate: (d) => {
      at(d, 'days', 3).date = '2025-03-03';
    },
    path: 'detail.days[3].date',
    value: '2025-03-03',
  },
  {
    detailType: 'BudgetSet',
    breaks: 'a reference over 255 characters',
    mutate: (d) => {
      d.reference = 'ref-'.repeat(64);
    },
    path: 'detail.reference',
    value: 'ref-ref-',
  },
  {
    detailType: 'BudgetSet',
    breaks: 'a zero area id',
    mutate: (d) => {
      d.areaId = 0;
    },
    path: 'detail.areaId',
  },
  // PayReturnsRequested
  {
    detailType: 'PayReturnsRequested',
    breaks: 'no timesheet ids',
    mutate: (d) => {
      d.timesheetIds = [];
    },
    path: 'detail.timesheetIds',
  },
  {
    detailType: 'PayReturnsRequested',
    breaks: '101 timesheet ids',
    mutate: (d) => {
      d.timesheetIds = Array.from({ length: 101 }, (_, i) => i + 1);
    },
    path: 'detail.timesheetIds',
  },
  {
    detailType: 'PayReturnsRequested',
    breaks: 'a fractional timesheet id',
    mutate: (d) => {
      d.timesheetIds = [1001, 1001.5];
    },
    path: 'detail.timesheetIds[1]',
    value: '1001.5',
  },
  {
    detailType: 'PayReturnsRequested',
    breaks: 'a timesheet id listed twice',
    mutate: (d) => {
      d.timesheetIds = [1001, 1002, 1001];
    },
    path: 'detail.timesheetIds[2]',
  },
  {
    detailType: 'PayReturnsRequested',
    breaks: 'timesheet ids and a period together',
    mutate: (d) => {
      d.from = '2026-01-12';
      d.to = '2026-01-18';
    },
    path: 'detail.timesheetIds',
  },
  {
    detailType: 'PayReturnsRequested',
    breaks: 'neither timesheet ids nor a period',
    mutate: (d) => {
      delete d.timesheetIds;
    },
    path: 'detail.timesheetIds',
  },
  {
    detailType: 'PayReturnsRequested',
    breaks: 'a period without its end',
    mutate: (d) => {
      delete d.timesheetIds;
      d.from = '2026-01-12';
    },
    path: 'detail.to',
  },
  {
    detailType: 'PayReturnsRequested',
    breaks: 'a period that ends before it starts',
    mutate: (d) => {
      delete d.timesheetIds;
      d.from = '2026-01-18';
      d.to = '2026-01-12';
    },
    path: 'detail.to',
  },
  {
    detailType: 'PayReturnsRequested',
    breaks: 'a period of 32 days',
    mutate: (d) => {
      delete d.timesheetIds;
      d.from = '2026-01-01';
      d.to = '2026-02-01';
    },
    path: 'detail.to',
  },
  {
    detailType: 'PayReturnsRequested',
    breaks: 'locationIds with timesheet ids',
    mutate: (d) => {
      d.locationIds = [1];
    },
    path: 'detail.locationIds',
  },
  {
    detailType: 'PayReturnsRequested',
    breaks: 'a date that is not a calendar date',
    mutate: (d) => {
      delete d.timesheetIds;
      d.from = '2026-02-30';
      d.to = '2026-03-02';
    },
    path: 'detail.from',
  },
  // PayRatesRequested
  {
    detailType: 'PayRatesRequested',
    breaks: 'an employee id that is text',
    mutate: (d) => {
      d.employeeIds = [2, 'two'];
    },
    path: 'detail.employeeIds[1]',
    value: 'two',
  },
  {
    detailType: 'PayRatesRequested',
    breaks: 'an employee listed twice',
    mutate: (d) => {
      d.employeeIds = [2, 4, 2];
    },
    path: 'detail.employeeIds[2]',
  },
  // ReferenceDataRequested
  {
    detailType: 'ReferenceDataRequested',
    breaks: 'an unknown kind',
    mutate: (d) => {
      d.kinds = ['COUNTRIES', 'HOLIDAYS'];
    },
    path: 'detail.kinds[1]',
    value: 'HOLIDAYS',
  },
  {
    detailType: 'ReferenceDataRequested',
    breaks: 'a three-letter country code',
    mutate: (d) => {
      d.countryCode = 'USA';
    },
    path: 'detail.countryCode',
    value: 'USA',
  },
  {
    detailType: 'ReferenceDataRequested',
    breaks: 'AGREED_HOURS without employeeId',
    mutate: (d) => {
      delete d.employeeId;
    },
    path: 'detail.employeeId',
  },
  // RecordsRequested
  {
    detailType: 'RecordsRequested',
    breaks: 'an operator the service does not have',
    mutate: (d) => {
      d.where = [{ field: 'LastName', op: 'gt', value: 'L' }];
    },
    path: 'detail.where[0].op',
  },
  {
    detailType: 'RecordsRequested',
    breaks: 'lk with % inside the value',
    mutate: (d) => {
      d.where = [{ field: 'LastName', op: 'lk', value: 'L%e' }];
    },
    path: 'detail.where[0].value',
  },
  {
    detailType: 'RecordsRequested',
    breaks: 'lk on a number',
    mutate: (d) => {
      d.where = [{ field: 'Id', op: 'lk', value: 5 }];
    },
    path: 'detail.where[0].value',
  },
  {
    detailType: 'RecordsRequested',
    breaks: 'a cursor that is not one',
    mutate: (d) => {
      d.cursor = 'not-a-cursor';
    },
    path: 'detail.cursor',
  },
  {
    detailType: 'RecordsRequested',
    breaks: 'a page of 501 records',
    mutate: (d) => {
      d.pageSize = 501;
    },
    path: 'detail.pageSize',
  },
  // TimesheetFieldsDefined
  {
    detailType: 'TimesheetFieldsDefined',
    breaks: 'a type the service does not list',
    mutate: (d) => {
      d.fields = [{ apiName: 'question', name: 'Question', type: 7 }];
    },
    path: 'detail.fields[0].type',
  },
  {
    detailType: 'TimesheetFieldsDefined',
    breaks: 'a list type without its values',
    mutate: (d) => {
      d.fields = [{ apiName: 'question', name: 'Question', type: 6 }];
    },
    path: 'detail.fields[0].valuelist',
  },
  // PayRateAssigned
  {
    detailType: 'PayRateAssigned',
    breaks: 'an employee listed twice',
    mutate: (d) => {
      d.employeeIds = [3, 4, 3];
    },
    path: 'detail.employeeIds[2]',
  },
  {
    detailType: 'PayRateAssigned',
    breaks: 'two overrides of the base pay rule',
    mutate: (d) => {
      d.overrides = [{ hourlyRate: 20 }, { hourlyRate: 21 }];
    },
    path: 'detail.overrides',
  },
  // EmployeeChanged: several overrides
  {
    detailType: 'EmployeeChanged',
    breaks: 'a pay rate with both hourlyRate and overrides',
    mutate: (d) => {
      d.payRate = {
        awardCode: 'RetailAssoc2024x',
        countryCode: 'us',
        hourlyRate: 20,
        overrides: [{ hourlyRate: 21 }],
      };
    },
    path: 'detail.payRate',
  },
];

describe('inbound contracts', () => {
  it.each(rejections)('$detailType rejects $breaks, naming $path', ({ detailType, mutate, path, value }) => {
    // Prepare
    const detail = sample(detailType);
    mutate(detail);

    // Act
    const result = decodeInboundMessage(eventBody(detailType, detail), decodeOptions);

    // Assess
    expect(result).toMatchObject({ ok: false, code: 'INVALID_DETAIL', detailType });
    if (result.ok) return;
    expect(result.message.split('; ').some((line) => line.startsWith(`${path}: `))).toBe(true);
    if (value !== undefined) expect(result.message).not.toContain(value);
  });

  it.each([
    ['a missing accountId', (d: Record<string, unknown>) => delete d['accountId']],
    [
      'an accountId over 128 characters',
      (d: Record<string, unknown>) => (d['accountId'] = 'acct-'.repeat(26)),
    ],
    ['an accountId with a space', (d: Record<string, unknown>) => (d['accountId'] = 'acct 1001')],
  ])(
    'refuses %s in the contract itself, naming detail.accountId and the message group rule',
    (_case, mutate) => {
      // Prepare
      const detail = sample('AccountCreated');
      mutate(detail);

      // Act
      const result = inboundContracts.AccountCreated.schema.safeParse(detail);

      // Assess
      expect(result.success).toBe(false);
      expect(JSON.stringify(result.error?.issues)).toContain('accountId');
    },
  );

  it('covers every inbound detail-type with rejection cases', () => {
    expect(new Set(rejections.map((r) => r.detailType)).size).toBe(Object.keys(inboundSamples).length);
  });

  it('counts a length limit in characters, as the published maxLength does, not in UTF-16 units', () => {
    // Prepare: a location name of 200 characters outside the Basic Multilingual Plane (400 UTF-16 units)
    const named = (name: string) => {
      const detail = sample('LocationCreated');
      detail.name = name;
      return eventBody('LocationCreated', detail);
    };

    // Act
    const atLimit = decodeInboundMessage(named('🏪'.repeat(200)), decodeOptions);
    const overLimit = decodeInboundMessage(named('🏪'.repeat(201)), decodeOptions);

    // Assess
    expect(atLimit.ok, atLimit.ok ? '' : atLimit.message).toBe(true);
    expect(!overLimit.ok && overLimit.message).toContain('detail.name');
  });
  it('accepts a location with an empty area list (an Enterprise top-level node) and keeps it empty', () => {
    const detail = sample('LocationCreated');
    detail.areas = [];

    const result = decodeInboundMessage(eventBody('LocationCreated', detail), decodeOptions);

    expect(result.ok && result.event.detail).toMatchObject({ areas: [], active: true });
  });

  it('accepts the simple agreed-hours form with an empty roster', () => {
    const detail = sample('EmployeeChanged');
    detail.regularHours = {
      threshold: 76,
      applyThreshold: true,
      workPeriod: {
        cycle: 'TWO_WEEKLY',
        dayOfWeek: 'SUNDAY',
        startDate: '2025-03-02T00:00:00Z',
        startCycleDate: '2025-03-02T00:00:00Z',
        endCycleDate: '2025-03-16T00:00:00Z',
      },
      workingDaysPerCycle: 10,
      details: { weeks: [] },
    };

    const result = decodeInboundMessage(eventBody('EmployeeChanged', detail), decodeOptions);

    expect(result.ok).toBe(true);
  });

  it('fills empty break times when a break has no fixed time', () => {
    const detail = sample('EmployeeChanged');
    at(firstShift(detail), 'breaks')[0] = { breakType: 'REST', breakDuration: '00:10' };

    const result = decodeInboundMessage(eventBody('EmployeeChanged', detail), decodeOptions);

    if (!result.ok || result.event.detailType !== 'EmployeeChanged')
      throw new Error(result.ok ? 'wrong type' : result.message);
    const parsedBreak = result.event.detail.regularHours?.details.weeks[0]?.days[0]?.shifts[0]?.breaks[0];
    expect(parsedBreak).toEqual({
      breakType: 'REST',
      breakDuration: '00:10',
      startBreakTime: '',
      endBreakTime: '',
    });
  });

  it('accepts February 29 of a leap year and an upper-case country code', () => {
    const budget = sample('BudgetSet');
    at(budget, 'days', 0).date = '2024-02-29';
    const employee = sample('EmployeeChanged');
    at(employee, 'payRate').countryCode = 'US';

    expect(decodeInboundMessage(eventBody('BudgetSet', budget), decodeOptions).ok).toBe(true);
    expect(decodeInboundMessage(eventBody('EmployeeChanged', employee), decodeOptions).ok).toBe(true);
  });
});
