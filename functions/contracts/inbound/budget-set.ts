import * as z from 'zod';
import { accountId, calendarDate, occurredAt, positiveId, refuseRepeats, text } from '../fields.ts';
import { DEFAULT_INBOUND_SOURCE } from '../source.ts';
import { isTimeZone } from '../time-zone.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_INBOUND_SOURCE;
export const detailType = 'BudgetSet';
export const version = '1';
export const description =
  'Daily wage or hour budgets for a location (optionally one area): one metric per day at local midnight; each value replaces the earlier one.';

/** Last writer wins per thing: what this contract sets, and what an older event does (events/README.md). */
export const ordering =
  "Partial update per day: each budget cell (locationId, areaId or none, kind, date) is a thing of its own. Each day applies unless a newer event set that cell first; those days are listed in one SyncSkipped (`days[date=<YYYY-MM-DD>]`) and BudgetSaved counts the days saved. Send one location's budgets in one time zone: the service keys a value by its local-midnight instant.";

export const schema = z
  .strictObject({
    accountId,
    occurredAt: occurredAt.optional(),
    locationId: positiveId,
    areaId: positiveId.optional(),
    kind: z.enum(['WAGE', 'HOURS']),
    // Days are stored at local midnight, so the zone decides which instant a date means.
    timeZone: z
      .string()
      .min(1)
      .max(64)
      .refine(isTimeZone, { message: 'not an IANA time zone' })
      .default('UTC'),
    days: z
      .array(
        z.strictObject({
          date: calendarDate,
          value: z.number().nonnegative(),
        }),
      )
      .min(1)
      .max(366),
    reference: text(255).optional(),
  })
  .superRefine((detail, ctx) => {
    // Two values for one day would race each other at the service (each replaces the other).
    refuseRepeats(
      ctx,
      detail.days.map((day) => day.date),
      (index) => ['days', index, 'date'],
      'date listed more than once',
    );
  });

export type BudgetSetDetail = z.output<typeof schema>;
export type BudgetSetDetailInput = z.input<typeof schema>;
