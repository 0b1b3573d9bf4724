import * as z from 'zod';
import { accountId, occurredAt, positiveId, refuseRepeats } from '../fields.ts';
import { awardCode, countryCode, payRuleOverrides } from '../pay-rate-fields.ts';
import { DEFAULT_INBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_INBOUND_SOURCE;
export const detailType = 'PayRateAssigned';
export const version = '1';
export const description =
  'One pay rate from the award library for several employees: one library assignment (setAwardFromLibrary) for the first, its new agreement assigned to the others through employees:bulk; answered with PayRatesAssigned, per employee.';

/** Last writer wins per thing: what this contract sets, and what an older event does (events/README.md). */
export const ordering =
  "The pay rate of each employee listed (`employeeIds[id=<id>]`), the same thing EmployeeChanged's `payRate` sets: an employee whose pay rate a newer event set first is left out and listed in one SyncSkipped; the others are assigned.";

/**
 * Most employees one event assigns: one library call and one bulk call of the rest. The service
 * shows no maximum for a bulk request; 200 keeps the request and the answer event small.
 */
export const MAX_PAY_RATE_EMPLOYEES = 200;

export const schema = z
  .strictObject({
    accountId,
    occurredAt: occurredAt.optional(),
    /** The first employee gets the library assignment; the others its agreement. */
    employeeIds: z.array(positiveId).min(1).max(MAX_PAY_RATE_EMPLOYEES),
    awardCode,
    countryCode,
    overrides: payRuleOverrides,
  })
  .superRefine((detail, ctx) => {
    refuseRepeats(
      ctx,
      detail.employeeIds,
      (index) => ['employeeIds', index],
      'employee id listed more than once',
    );
  });

export type PayRateAssignedDetail = z.output<typeof schema>;
export type PayRateAssignedDetailInput = z.input<typeof schema>;
