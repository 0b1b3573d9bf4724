import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ResponseShapeError } from '#functions/domain/errors.ts';
import { agreedHourForm, normalizeCycle } from '#functions/service/agreed-hour-form.ts';
import { parseResponse } from '#functions/service/parsing.ts';
import { agreedHourSchema } from '#functions/service/records/agreed-hours.ts';
import {
  customFieldDataSchema,
  slotField,
  timesheetCustomFieldDefinitionSchema,
} from '#functions/service/records/custom-fields.ts';
import { leaveAccrualSchema } from '#functions/service/records/leave.ts';
import { areaRequestSchema, locationRequestSchema } from '#functions/service/records/locations.ts';
import { metricItemSchema, metricRecordSchema } from '#functions/service/records/metrics.ts';
import {
  awardLibraryEntrySchema,
  employeeAgreementSchema,
} from '#functions/service/records/pay-conditions.ts';
import {
  changePlanRequestSchema,
  provisionedBusinessSchema,
  signupRequestSchema,
} from '#functions/service/records/provisioning.ts';
import { countrySchema, stateSchema } from '#functions/service/records/reference-data.ts';
import {
  joinedTimesheetPayReturnSchema,
  payReturnLineSchema,
  timesheetObjectSchema,
} from '#functions/service/records/timesheet-pay-returns.ts';
import * as records from './spec-records.ts';

function shapeError(schema: z.ZodType, value: unknown): string {
  try {
    parseResponse(schema, value, 'test');
  } catch (error) {
    expect(error).toBeInstanceOf(ResponseShapeError);
    return (error as Error).message;
  }
  throw new Error('expected the record to be refused');
}

function without(record: Record<string, unknown>, field: string): Record<string, unknown> {
  const copy = { ...record };
  delete copy[field];
  return copy;
}

// Schemas stay out of it.each tables: vitest formats table rows and zod schemas are huge to format.
const completeRecords: Record<string, [z.ZodType, unknown]> = {
  'provisioned business': [provisionedBusinessSchema, records.provisionedBusiness],
  'signup request': [signupRequestSchema, records.signupRequest],
  'change-plan request with address': [changePlanRequestSchema, records.changePlanRequest],
  Country: [countrySchema, records.country],
  State: [stateSchema, records.state],
  'CustomFieldData with F01..F128 and named fields': [customFieldDataSchema, records.customFieldData()],
  'timesheet custom field definition': [
    timesheetCustomFieldDefinitionSchema,
    records.timesheetCustomFieldDefinition,
  ],
  'agreedHour full form': [agreedHourSchema, records.fullAgreedHour],
  'agreedHour simple form': [agreedHourSchema, records.simpleAgreedHour],
  EmployeeAgreement: [employeeAgreementSchema, records.employeeAgreement],
  'metric request item': [metricItemSchema, records.metricItem],
  'metric response record': [metricRecordSchema, records.metricRecord],
  'location request': [locationRequestSchema, records.locationRequest],
  'area request': [areaRequestSchema, records.areaRequest],
  'award library entry': [awardLibraryEntrySchema, records.awardLibraryEntry],
  LeaveAccrual: [leaveAccrualSchema, records.leaveAccrual],
  'fully joined TimesheetPayReturn': [joinedTimesheetPayReturnSchema, records.joinedPayReturn],
  // What getPayReturns checks the same answer with: the line, then its joined timesheet.
  'TimesheetPayReturn line as getPayReturns reads it': [payReturnLineSchema, records.joinedPayReturn],
  'joined TimesheetObject': [timesheetObjectSchema, records.joinedPayReturn.TimesheetObject],
};

describe('every spec record with every listed field parses', () => {
  it.each(Object.keys(completeRecords))('%s', (name) => {
    const [schema, record] = completeRecords[name] as [z.ZodType, unknown];

    const result = schema.safeParse(record);

    expect(result.error?.issues ?? []).toEqual([]);
  });

  it('keeps fields the spec does not list', () => {
    const parsed = countrySchema.parse({ ...records.country, NewField: 'x' });

    expect(parsed.NewField).toBe('x');
  });
});

describe('decoding JSON held in strings', () => {
  it('decodes EventIds, PayRuleObject.Config and TimesheetObject.Metadata of a joined pay return', () => {
    const line = parseResponse(joinedTimesheetPayReturnSchema, records.joinedPayReturn, 'pay returns');

    expect(line.EventIds).toEqual(['evt-1003-moved-1', 'evt-1003-shortened-2']);
    expect(line.PayRuleObject.Config?.eventTypes).toContain('LOCATION_CHANGED');
    // A key the connector does not read is kept as given, unchecked.
    expect(line.PayRuleObject.Config?.['returnTimeType']).toBe('PER_OCCURRENCE');
    expect(line.PayRuleObject.Config?.['somethingNewFromTheService']).toBe('kept');
    expect(line.TimesheetObject.Metadata).toEqual({
      borrowed_or_lent: { type: 'borrowed', fromArea: 1 },
      forecast_cost: 168,
    });
    // Slots are kept as given, unchecked: the connector reads none of them.
    expect(line.TimesheetObject['Slots']).toEqual(records.timesheetObject.Slots);
    expect(line.TimesheetObject._DPMetaData.OperationalUnitInfo?.LabelWithCompany).toBe('[HARB] Dock');
  });

  it('turns null or empty JSON fields into null', () => {
    const line = parseResponse(
      joinedTimesheetPayReturnSchema,
      {
        ...records.joinedPayReturn,
        EventIds: null,
        PayRuleObject: { ...records.payRuleObject, Config: '' },
        TimesheetObject: { ...records.timesheetObject, Metadata: null },
      },
      'pay returns',
    );

    expect(line.EventIds).toBeNull();
    expect(line.PayRuleObject.Config).toBeNull();
    expect(line.TimesheetObject.Metadata).toBeNull();
  });

  it('names EventIds when it holds bad JSON: the connector relies on them', () => {
    const line = { ...records.joinedPayReturn, EventIds: '["evt-1",' };

    const message = shapeError(joinedTimesheetPayReturnSchema.array(), [line]);

    expect(message).toContain('[0].EventIds: is not valid JSON');
  });

  it('keeps a Config or Metadata it cannot decode as given, under unparsed, instead of refusing the line', () => {
    // Prepare: the connector only passes these on; the spec marks them as evolving.
    const line = {
      ...records.joinedPayReturn,
      PayRuleObject: { ...records.payRuleObject, Config: '{oops' },
      TimesheetObject: { ...records.timesheetObject, Metadata: 'nope' },
    };

    // Act
    const parsed = parseResponse(joinedTimesheetPayReturnSchema, line, 'pay returns');

    // Assess
    expect(parsed.PayRuleObject.Config).toEqual({ unparsed: '{oops' });
    expect(parsed.TimesheetObject.Metadata).toEqual({ unparsed: 'nope' });
  });

  it('refuses EventIds that are JSON but not an array of strings', () => {
    const message = shapeError(joinedTimesheetPayReturnSchema, {
      ...records.joinedPayReturn,
      EventIds: '[1,2]',
    });

    expect(message).toContain('EventIds[0]:');
  });
});

const requiredFields: Record<string, [z.ZodType, Record<string, unknown>, string]> = {
  'provisioned business without hostname': [
    provisionedBusinessSchema,
    records.provisionedBusiness,
    'hostname',
  ],
  'Country without Id': [countrySchema, records.country, 'Id'],
  'State without Country': [stateSchema, records.state, 'Country'],
  'EmployeeAgreement without Contract': [employeeAgreementSchema, records.employeeAgreement, 'Contract'],
  'metric record without id': [metricRecordSchema, records.metricRecord, 'id'],
  'award entry without BasePayRule': [awardLibraryEntrySchema, records.awardLibraryEntry, 'BasePayRule'],
  'LeaveAccrual without Hours': [leaveAccrualSchema, records.leaveAccrual, 'Hours'],
  'TimesheetPayReturn without Timesheet': [
    joinedTimesheetPayReturnSchema,
    records.joinedPayReturn,
    'Timesheet',
  ],
  'install record without _DPMetaData': [countrySchema, records.country, '_DPMetaData'],
};

describe('a record missing a required field fails naming the field', () => {
  it.each(Object.keys(requiredFields))('%s', (name) => {
    const [schema, record, field] = requiredFields[name] as [z.ZodType, Record<string, unknown>, string];

    const message = shapeError(schema, without(record, field));

    expect(message).toContain(`${field}:`);
  });

  it('names a nested path', () => {
    const message = shapeError(joinedTimesheetPayReturnSchema, {
      ...records.joinedPayReturn,
      TimesheetObject: without(records.timesheetObject, 'Employee'),
    });

    expect(message).toContain('TimesheetObject.Employee:');
  });
});

describe('spec rules in request schemas', () => {
  it('refuses a location that is neither a workplace nor a payroll entity', () => {
    const result = locationRequestSchema.safeParse({
      ...records.locationRequest,
      IsWorkplace: 0,
      IsPayrollEntity: 0,
    });

    expect(result.success).toBe(false);
  });

  it('refuses a custom field type the spec does not list (7) and unknown validation tokens', () => {
    expect(
      timesheetCustomFieldDefinitionSchema.safeParse({ ...records.timesheetCustomFieldDefinition, Type: 7 })
        .success,
    ).toBe(false);
    expect(
      timesheetCustomFieldDefinitionSchema.safeParse({
        ...records.timesheetCustomFieldDefinition,
        Validation: 'nempty\nmax',
      }).success,
    ).toBe(false);
  });

  it('refuses agreed-hour times that are not HH:MM, days outside 0-6 and unknown break types', () => {
    const shift = records.fullAgreedHour.details.weeks[0]?.days[0]?.shifts[0];
    const withShift = (patch: Record<string, unknown>, day = 1) => ({
      ...records.fullAgreedHour,
      details: { weeks: [{ week: 'ONE', days: [{ day, shifts: [{ ...shift, ...patch }] }] }] },
    });

    expect(agreedHourSchema.safeParse(withShift({ startTime: '9:00' })).success).toBe(false);
    expect(agreedHourSchema.safeParse(withShift({ endTime: '25:00' })).success).toBe(false);
    expect(agreedHourSchema.safeParse(withShift({}, 7)).success).toBe(false);
    expect(
      agreedHourSchema.safeParse(withShift({ breaks: [{ breakType: 'NAP', breakDuration: '00:10' }] }))
        .success,
    ).toBe(false);
  });

  it('requires an integer threshold in the simple form only', () => {
    expect(agreedHourSchema.safeParse({ ...records.simpleAgreedHour, threshold: 37.5 }).success).toBe(false);
    expect(agreedHourSchema.safeParse({ ...records.fullAgreedHour, threshold: 37.5 }).success).toBe(true);
  });

  it('parses both hour budget spellings', () => {
    expect(metricItemSchema.safeParse({ ...records.metricItem, type: 'budget_hour' }).success).toBe(true);
    expect(metricItemSchema.safeParse({ ...records.metricItem, type: 'budget_StaffHour' }).success).toBe(
      true,
    );
  });
});

describe('cycle spellings', () => {
  it('maps to the spelling of the form being sent', () => {
    expect(normalizeCycle('TWO_WEEKLY', 'full')).toBe('TWO_WEEK');
    expect(normalizeCycle('FOUR_WEEKLY', 'full')).toBe('FOUR_WEEK');
    expect(normalizeCycle('TWO_WEEK', 'simple')).toBe('TWO_WEEKLY');
    expect(normalizeCycle('FOUR_WEEK', 'simple')).toBe('FOUR_WEEKLY');
    expect(normalizeCycle('WEEKLY', 'simple')).toBe('WEEKLY');
    expect(normalizeCycle('TWO_WEEK', 'full')).toBe('TWO_WEEK');
  });

  it('tells the forms apart by the presence of weeks', () => {
    expect(agreedHourForm(agreedHourSchema.parse(records.fullAgreedHour))).toBe('full');
    expect(agreedHourForm(agreedHourSchema.parse(records.simpleAgreedHour))).toBe('simple');
  });
});

describe('slot names', () => {
  it('pads to two digits and goes up to F128', () => {
    expect([slotField(1), slotField(9), slotField(10), slotField(128)]).toEqual([
      'F01',
      'F09',
      'F10',
      'F128',
    ]);
  });
});

describe('absent JSON fields', () => {
  it('reads an absent EventIds as null', () => {
    const line = parseResponse(
      joinedTimesheetPayReturnSchema,
      without(records.joinedPayReturn, 'EventIds'),
      'x',
    );

    expect(line.EventIds).toBeNull();
  });
});

describe('evolving timesheet data', () => {
  it('keeps fair-work-week and schedule-change answers as given, listed, unlisted or of another type', () => {
    // Prepare: both spellings the spec lists, a value it does not list, a boolean where a string is listed.
    const record = {
      ...records.customFieldData(),
      System: 'Timesheet',
      fwwcominginearly: "No I don't consent",
      fwwleavingearly: "No, I don't consent",
      fwwleavinglate: 'Yes, Schedule Change Accepted',
      fwwunscheduledshifthours: true,
      fwwreceivedallrestbreaks: 'No',
      receivedallmealbreaks: 1,
      somethingNewFromTheService: { nested: true },
    };

    // Act
    const parsed = parseResponse(customFieldDataSchema, record, 'custom field data') as Record<
      string,
      unknown
    >;

    // Assess
    expect(parsed).toMatchObject({
      fwwcominginearly: "No I don't consent",
      fwwleavingearly: "No, I don't consent",
      fwwleavinglate: 'Yes, Schedule Change Accepted',
      fwwunscheduledshifthours: true,
      fwwreceivedallrestbreaks: 'No',
      receivedallmealbreaks: 1,
      somethingNewFromTheService: { nested: true },
    });
  });
});
