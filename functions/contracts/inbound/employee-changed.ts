import * as z from 'zod';
import {
  accountId,
  customFieldApiName,
  isoTimestamp,
  occurredAt,
  positiveId,
  refuseRepeats,
  utcTimestamp,
} from '../fields.ts';
import {
  awardCode,
  countryCode,
  hourlyRate,
  type PayRuleOverrides,
  payRuleOverrides,
} from '../pay-rate-fields.ts';
import { DEFAULT_INBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_INBOUND_SOURCE;
export const detailType = 'EmployeeChanged';
export const version = '1';
export const description =
  'Changes to one install employee: custom field values (a slot per API name), regular hours (agreed_hour), a pay rate from the award library, leave balance overwrites.';

/** Last writer wins per thing: what this contract sets, and what an older event does (events/README.md). */
export const ordering =
  'Partial update per field: each custom field (by apiName), `regularHours`, `payRate` and each leave balance (by leaveRuleId) of the employee is a thing of its own, and only the things the event carries are set. Each applies unless a newer event set it first; those are listed in one SyncSkipped (`customFields.<apiName>`, `regularHours`, `payRate`, `leaveBalances[leaveRuleId=<id>]`) and EmployeeSynced marks a part `superseded` when all of it was.';

/** 24-hour clock time; `24:00` is not a time of day. */
const clockTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'expected a time HH:MM from 00:00 to 23:59' });

const breakEntry = z
  .strictObject({
    breakType: z.enum(['MEAL', 'REST', 'NO_BREAK']),
    breakDuration: z.union([clockTime, z.literal('')]),
    // The spec sends an empty string when the break has no fixed time.
    startBreakTime: z.union([clockTime, z.literal('')]).default(''),
    endBreakTime: z.union([clockTime, z.literal('')]).default(''),
  })
  .superRefine((entry, ctx) => {
    if (entry.breakType === 'NO_BREAK' && entry.breakDuration !== '') {
      ctx.addIssue({ code: 'custom', path: ['breakDuration'], message: 'must be empty for NO_BREAK' });
    }
    if (entry.breakType !== 'NO_BREAK' && entry.breakDuration === '') {
      ctx.addIssue({ code: 'custom', path: ['breakDuration'], message: 'required for MEAL and REST breaks' });
    }
  });

const shift = z.strictObject({
  startTime: clockTime,
  endTime: clockTime,
  breaks: z.array(breakEntry).max(10),
  location: positiveId.optional(),
  area: positiveId.optional(),
  totalHours: z.number().nonnegative().max(672).optional(),
});

const day = z.strictObject({
  day: z.int().min(0).max(6),
  shifts: z.array(shift).min(1).max(10),
});

const week = z
  .strictObject({
    // Only `ONE` is shown by the spec; a four-week cycle needs up to four weeks.
    week: z.enum(['ONE', 'TWO', 'THREE', 'FOUR']),
    days: z.array(day).min(1).max(7),
  })
  .superRefine((entry, ctx) => {
    refuseRepeats(
      ctx,
      entry.days.map((d) => d.day),
      (index) => ['days', index, 'day'],
      'day listed more than once',
    );
  });

const dayOfWeek = z.enum(['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY']);

const fullFormCycles = ['WEEKLY', 'TWO_WEEK', 'FOUR_WEEK'] as const;
const simpleFormCycles = ['WEEKLY', 'TWO_WEEKLY', 'FOUR_WEEKLY'] as const;

const workPeriod = z
  .strictObject({
    cycle: z.enum(['WEEKLY', 'TWO_WEEK', 'FOUR_WEEK', 'TWO_WEEKLY', 'FOUR_WEEKLY']),
    dayOfWeek,
    startDate: utcTimestamp,
    startCycleDate: utcTimestamp,
    endCycleDate: utcTimestamp,
  })
  .superRefine((period, ctx) => {
    if (Date.parse(period.endCycleDate) <= Date.parse(period.startCycleDate)) {
      ctx.addIssue({ code: 'custom', path: ['endCycleDate'], message: 'must be after startCycleDate' });
    }
  });

/** 672 h = four weeks of 24 h: no cycle of the service is longer. */
const maxThreshold = 672;

/**
 * The spec's `agreedHour` in either form: full (a week-by-week roster in `details.weeks`)
 * or simple (only an hours total, `details.weeks` empty). One object rather than a union of
 * the two: the form is decided by `details.weeks`, so a mistake is reported on the field
 * that is wrong instead of as "matches neither form".
 */
export const agreedHour = z
  .strictObject({
    threshold: z.number().nonnegative().max(maxThreshold),
    applyThreshold: z.boolean(),
    workPeriod,
    workingDaysPerCycle: z.int().min(0).max(28),
    details: z.strictObject({ weeks: z.array(week).max(4) }),
  })
  .superRefine((hours, ctx) => {
    const simpleForm = hours.details.weeks.length === 0;
    const cycles: readonly string[] = simpleForm ? simpleFormCycles : fullFormCycles;
    if (!cycles.includes(hours.workPeriod.cycle)) {
      ctx.addIssue({
        code: 'custom',
        path: ['workPeriod', 'cycle'],
        message: simpleForm
          ? `the simple form (details.weeks empty) takes ${simpleFormCycles.join(', ')}`
          : `the full form (details.weeks listed) takes ${fullFormCycles.join(', ')}`,
      });
    }
    if (simpleForm && !Number.isInteger(hours.threshold)) {
      ctx.addIssue({
        code: 'custom',
        path: ['threshold'],
        message: 'must be a whole number of hours in the simple form',
      });
    }
  })
  .meta({
    description:
      'The service agreedHour object. Full form: details.weeks lists the roster, cycle WEEKLY, TWO_WEEK or FOUR_WEEK. Simple form: details.weeks empty, integer threshold, cycle WEEKLY, TWO_WEEKLY or FOUR_WEEKLY.',
  });
export type AgreedHour = z.output<typeof agreedHour>;

/**
 * A pay rate from the award library: one rate for the base pay rule (`hourlyRate`, the first form),
 * or several pay rules' rates (`overrides`); exactly one of the two.
 */
export const payRate = z
  .strictObject({
    awardCode,
    countryCode,
    hourlyRate: hourlyRate.optional(),
    overrides: payRuleOverrides.optional(),
  })
  .superRefine((rate, ctx) => {
    if ((rate.hourlyRate === undefined) === (rate.overrides === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'expected exactly one of hourlyRate and overrides' });
    }
  });
export type PayRate = z.output<typeof payRate>;

/** The overrides a pay rate asks for: `hourlyRate` alone is the base pay rule's. */
export function overridesOf(rate: Pick<PayRate, 'hourlyRate' | 'overrides'>): PayRuleOverrides {
  return rate.overrides ?? (rate.hourlyRate === undefined ? [] : [{ hourlyRate: rate.hourlyRate }]);
}

const leaveBalance = z.strictObject({
  leaveRuleId: positiveId,
  hours: z.number().nonnegative().max(100_000),
  /** When the balance was true; the overwrite uses "now" when absent. */
  asOf: isoTimestamp.optional(),
});

export const employeeParts = ['customFields', 'regularHours', 'payRate', 'leaveBalances'] as const;
export type EmployeePart = (typeof employeeParts)[number];

export const schema = z
  .strictObject({
    accountId,
    occurredAt: occurredAt.optional(),
    employeeId: positiveId,
    customFields: z
      // An empty string clears a text field, so it is a value like any other.
      .record(customFieldApiName, z.union([z.string().max(1024), z.boolean()]))
      .refine((fields) => Object.keys(fields).length > 0, { message: 'must name at least one field' })
      // 128 slots per install is the service's hard limit.
      .refine((fields) => Object.keys(fields).length <= 128, {
        message: 'at most 128 fields (the slot limit)',
      })
      .optional(),
    regularHours: agreedHour.optional(),
    payRate: payRate.optional(),
    leaveBalances: z.array(leaveBalance).min(1).max(100).optional(),
  })
  .superRefine((detail, ctx) => {
    if (employeeParts.every((part) => detail[part] === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `at least one of ${employeeParts.join(', ')} is required`,
      });
    }
    // Each overwrite replaces the balance, so two for one rule would make the result order-dependent.
    refuseRepeats(
      ctx,
      (detail.leaveBalances ?? []).map((balance) => balance.leaveRuleId),
      (index) => ['leaveBalances', index, 'leaveRuleId'],
      'leave rule listed more than once',
    );
  });

export type EmployeeChangedDetail = z.output<typeof schema>;
export type EmployeeChangedDetailInput = z.input<typeof schema>;
