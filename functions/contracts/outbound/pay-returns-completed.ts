import * as z from 'zod';
import { calendarDate, outboundBase, positiveId, text } from '../fields.ts';
import { MAX_TIMESHEETS_PER_REQUEST } from '../inbound/pay-returns-requested.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'PayReturnsCompleted';
export const version = '1';
export const description =
  'Ends the answer to a PayReturnsRequested by period: every timesheet of the period (and of the locations or employees asked for) has had its PayReturnsReady, and these are all of them. Published once per request, after its PayReturnsReady events.';

export const schema = z.object({
  ...outboundBase,
  /** The PayReturnsRequested event answered (also its causationId). */
  sourceEventId: text(128),
  from: calendarDate,
  to: calendarDate,
  /** As asked: the period was narrowed to these locations' areas / these employees. */
  locationIds: z.array(positiveId).optional(),
  employeeIds: z.array(positiveId).optional(),
  /** Every timesheet of the period, in date then id order: each has one PayReturnsReady of this request. */
  timesheetIds: z.array(positiveId).max(MAX_TIMESHEETS_PER_REQUEST),
  /** How many (timesheetIds' length): 0 when the period holds none. */
  count: z.int().min(0).max(MAX_TIMESHEETS_PER_REQUEST),
});

export type PayReturnsCompletedDetail = z.output<typeof schema>;
