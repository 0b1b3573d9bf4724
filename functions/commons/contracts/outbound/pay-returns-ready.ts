import * as z from 'zod';
import { outboundBase, positiveId } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'PayReturnsReady';
export const version = '1';
export const description =
  'The pay returns of one timesheet, normalized: one line per pay rule with payroll category, value and cost, schedule-change premium details decoded, totals.';

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

export const schema = z.object({
  ...outboundBase,
  timesheetId: positiveId,
  lines: z.array(payLine),
  totals: z.object({ value: z.number(), cost: z.number() }),
  /** true when lines were cut to keep the event under the EventBridge size limit; totals still cover every line. */
  truncated: z.boolean().optional(),
});

export type PayReturnsReadyDetail = z.output<typeof schema>;
