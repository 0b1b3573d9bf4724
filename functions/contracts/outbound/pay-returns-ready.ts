import * as z from 'zod';
import { isoDateTime } from '../date-time.ts';
import { outboundBase, positiveId } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'PayReturnsReady';
export const version = '1';
export const description =
  'The pay returns of one timesheet, normalized: the timesheet (employee, date, shift, area, schedule-change answers), one line per pay rule with payroll category, value and cost, schedule-change premium details decoded, totals.';

/** Pay rules are among the newer records whose ids may be strings. */
const payRuleId = z.union([z.int(), z.string().min(1)]);

export const payLine = z.object({
  payReturnId: positiveId,
  payRuleId,
  payRuleTitle: z.string(),
  /** The export code that maps the line to a payroll item. */
  payrollCategory: z.string(),
  value: z.number(),
  cost: z.number(),
  overridden: z.boolean(),
  comment: z.string(),
  /** Present on schedule-change premium lines: `EventIds` and the pay rule `Config` decoded from JSON. */
  premium: z
    .object({
      eventIds: z.array(z.string()),
      eventTypes: z.array(z.string()),
      config: z.record(z.string(), z.unknown()),
    })
    .optional(),
});
export type PayLine = z.output<typeof payLine>;

/** A schedule-change answer as the install holds it (kept as given: the values evolve). */
const answer = z.union([z.string(), z.boolean(), z.number(), z.null()]);

/** What the pay lines are about, from the timesheet the service joins to them. */
export const timesheetContext = z.object({
  employeeId: positiveId,
  /** The timesheet's date as the service gives it. */
  date: z.string().optional(),
  /** Start and end of the shift (ISO 8601, from the timesheet's unix times). */
  start: isoDateTime().optional(),
  end: isoDateTime().optional(),
  /** The area (operational unit) and its location, with their names when the service gives them. */
  areaId: positiveId.optional(),
  areaName: z.string().optional(),
  locationId: positiveId.optional(),
  locationName: z.string().optional(),
  /**
   * The timesheet's schedule-change answers (fair-work-week fields such as `fwwleavingearly`, and
   * `leavingearly`, `receivedallmealbreaks`, … including the California meal and rest break
   * attestations), as the install holds them: they explain the premium lines; with them, every other
   * named timesheet custom field (API name → value), such as those defined with
   * TimesheetFieldsDefined. Present when a line is a schedule-change premium.
   */
  scheduleChangeAnswers: z.record(z.string(), answer).optional(),
});
export type TimesheetContext = z.output<typeof timesheetContext>;

export const schema = z.object({
  ...outboundBase,
  timesheetId: positiveId,
  /** Absent when the timesheet has no pay lines (nothing joined to read it from). */
  timesheet: timesheetContext.optional(),
  lines: z.array(payLine),
  totals: z.object({ value: z.number(), cost: z.number() }),
  /** true when lines were cut to keep the event under the EventBridge size limit; totals still cover every line. */
  truncated: z.boolean().optional(),
});

export type PayReturnsReadyDetail = z.output<typeof schema>;
