import * as z from 'zod';
import { refuseRepeats } from './fields.ts';

/**
 * The fields of a pay rate from the award library, shared by EmployeeChanged's `payRate` and
 * PayRateAssigned (a module of its own: a route's bundle holds its own inbound contract only).
 */

/** New-library codes are mixed-case alphanumeric; old ones look like `MA000004`. */
export const awardCode = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, {
  message: 'expected an award code (letters, digits, _ . -)',
});

/** Any case here; the service wants it lower-cased. */
export const countryCode = z.string().regex(/^[A-Za-z]{2}$/, { message: 'expected a 2-letter country code' });

export const hourlyRate = z.number().positive().max(100_000);

/** Most pay rules one assignment overrides (the service shows no maximum; an award has few rules). */
export const MAX_PAY_RULE_OVERRIDES = 20;

/**
 * The service's `arrOverridePayRules`: the hourly rate of each pay rule the assignment overrides.
 * Without `payRuleId`, the award's base pay rule (read from the library entry); at most one such.
 */
export const payRuleOverrides = z
  .array(
    z.strictObject({
      payRuleId: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, { message: 'expected a pay rule id' })
        .optional(),
      hourlyRate,
    }),
  )
  .min(1)
  .max(MAX_PAY_RULE_OVERRIDES)
  .superRefine((overrides, ctx) => {
    const base = overrides.filter((override) => override.payRuleId === undefined).length;
    if (base > 1) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'at most one override without payRuleId (the base pay rule)',
      });
    }
    refuseRepeats(
      ctx,
      overrides.map((override, index) => override.payRuleId ?? `#base${index}`),
      (index) => [index, 'payRuleId'],
      'pay rule listed more than once',
    );
  });
export type PayRuleOverrides = z.output<typeof payRuleOverrides>;
