import * as z from 'zod';
import { accountId, calendarDate, occurredAt, positiveId, refuseRepeats } from '../fields.ts';
import { DEFAULT_INBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_INBOUND_SOURCE;
export const detailType = 'PayReturnsRequested';
export const version = '1';
export const description =
  'The partner asks for the pay returns of timesheets, by id (`timesheetIds`) or by period (`from`, `to`, optionally `locationIds` / `employeeIds`); answered with one PayReturnsReady per timesheet, and for a period one PayReturnsCompleted after them.';

/** Last writer wins per thing: what this contract sets, and what an older event does (events/README.md). */
export const ordering = 'A request: sets nothing, always answered; `occurredAt` is accepted and not used.';

/** Timesheets one request answers, in either form: one QUERY of pay returns each. */
export const MAX_TIMESHEETS_PER_REQUEST = 100;

/**
 * The longest period, in days counting both ends: a pay period is at most a month, and a bounded
 * period bounds the timesheet reads (one QUERY per calendar month, two at most) and the work of one
 * record within its route's timeout.
 */
export const MAX_PERIOD_DAYS = 31;

const DAY_MS = 86_400_000;

/** Days from `from` to `to`, both counted (1 for a single day). */
export function periodDays(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

const idList = z.array(positiveId).min(1).max(MAX_TIMESHEETS_PER_REQUEST);

export const schema = z
  .strictObject({
    accountId,
    occurredAt: occurredAt.optional(),
    /** The by-id form: these timesheets. */
    timesheetIds: idList.optional(),
    /** The period form: the timesheets dated `from` to `to` (both included, the install's dates). */
    from: calendarDate.optional(),
    to: calendarDate.optional(),
    /** Period form only: only timesheets of areas under these locations. */
    locationIds: idList.optional(),
    /** Period form only: only timesheets of these employees. */
    employeeIds: idList.optional(),
  })
  .superRefine((detail, ctx) => {
    const byId = detail.timesheetIds !== undefined;
    const byPeriod = detail.from !== undefined || detail.to !== undefined;
    if (byId && byPeriod) {
      ctx.addIssue({
        code: 'custom',
        path: ['timesheetIds'],
        message: 'give either timesheetIds or a period (from, to), not both',
      });
      return;
    }
    if (!byId && !byPeriod) {
      ctx.addIssue({
        code: 'custom',
        path: ['timesheetIds'],
        message: 'give either timesheetIds or a period (from, to)',
      });
      return;
    }
    if (byId) {
      refuseRepeats(
        ctx,
        detail.timesheetIds ?? [],
        (index) => ['timesheetIds', index],
        'timesheet id listed more than once',
      );
      for (const field of ['locationIds', 'employeeIds'] as const) {
        if (detail[field] !== undefined) {
          ctx.addIssue({ code: 'custom', path: [field], message: 'only with a period (from, to)' });
        }
      }
      return;
    }
    if (detail.from === undefined || detail.to === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [detail.from === undefined ? 'from' : 'to'],
        message: 'a period needs both from and to',
      });
      return;
    }
    if (detail.from > detail.to) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from' });
    } else if (periodDays(detail.from, detail.to) > MAX_PERIOD_DAYS) {
      ctx.addIssue({
        code: 'custom',
        path: ['to'],
        message: `a period is at most ${MAX_PERIOD_DAYS} days (ask for a longer one in several requests)`,
      });
    }
    for (const field of ['locationIds', 'employeeIds'] as const) {
      refuseRepeats(ctx, detail[field] ?? [], (index) => [field, index], 'id listed more than once');
    }
  });

export type PayReturnsRequestedDetail = z.output<typeof schema>;
export type PayReturnsRequestedDetailInput = z.input<typeof schema>;
