import * as z from 'zod';
import { isoDateTime } from '#functions/contracts/date-time.ts';
import { int, text } from './fields.ts';

/**
 * Agreed hours (an employee's regular working hours), in the full form (weeks of days of shifts)
 * and the simple form (a threshold per cycle); record rules: fields.ts.
 */

const clockTime = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be a 24-hour HH:MM time');
const duration = z.string().regex(/^\d{2,}:[0-5]\d$/, 'must be an HH:MM duration');
const clockTimeOrEmpty = z.union([clockTime, z.literal('')]);

export const fullFormCycles = ['WEEKLY', 'TWO_WEEK', 'FOUR_WEEK'] as const;
export const simpleFormCycles = ['WEEKLY', 'TWO_WEEKLY', 'FOUR_WEEKLY'] as const;
export const cycleSchema = z.enum(['WEEKLY', 'TWO_WEEK', 'FOUR_WEEK', 'TWO_WEEKLY', 'FOUR_WEEKLY']);
export type Cycle = z.infer<typeof cycleSchema>;

export const breakSchema = z.looseObject({
  breakType: z.enum(['MEAL', 'REST', 'NO_BREAK']),
  /** Empty string for NO_BREAK. */
  breakDuration: z.union([duration, z.literal('')]),
  startBreakTime: clockTimeOrEmpty.optional(),
  endBreakTime: clockTimeOrEmpty.optional(),
});

export const shiftSchema = z.looseObject({
  startTime: clockTime,
  endTime: clockTime,
  breaks: z.array(breakSchema).optional(),
  location: int.optional(),
  area: int.optional(),
  totalHours: z.number().optional(),
});

export const agreedHourDaySchema = z.looseObject({
  /** 0 Sunday ... 6 Saturday. */
  day: int.min(0).max(6),
  shifts: z.array(shiftSchema),
});

export const agreedHourWeekSchema = z.looseObject({
  week: text,
  days: z.array(agreedHourDaySchema),
});

const utcTimestamp = isoDateTime({ error: 'must be a UTC ISO 8601 timestamp ending in Z' });

export const workPeriodSchema = z.looseObject({
  cycle: cycleSchema,
  dayOfWeek: z.enum(['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY']),
  startDate: utcTimestamp.optional(),
  startCycleDate: utcTimestamp.optional(),
  endCycleDate: utcTimestamp.optional(),
});

export const agreedHourSchema = z
  .looseObject({
    threshold: z.number().nonnegative(),
    applyThreshold: z.boolean(),
    workPeriod: workPeriodSchema,
    workingDaysPerCycle: int.nonnegative().optional(),
    details: z.looseObject({ weeks: z.array(agreedHourWeekSchema) }),
  })
  .superRefine((value, ctx) => {
    if (value.details.weeks.length === 0 && !Number.isInteger(value.threshold)) {
      ctx.addIssue({
        code: 'custom',
        path: ['threshold'],
        message: 'must be an integer in the simple form',
      });
    }
  });
export type AgreedHour = z.infer<typeof agreedHourSchema>;
