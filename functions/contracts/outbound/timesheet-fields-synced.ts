import * as z from 'zod';
import { customFieldApiName, outboundBase, text } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'TimesheetFieldsSynced';
export const version = '1';
export const description =
  "Answer to TimesheetFieldsDefined: the definitions this event created, those the install already had (by apiName, left as they are), those the service refused (with its code), and how many timesheet custom fields the install has now (the service's limit is 128).";

/** The definition's id as the service answers it (its field is not shown), when it answers one. */
const definitionId = z.union([z.int(), z.string().min(1).max(128)]);

const definition = z.object({ apiName: customFieldApiName, definitionId: definitionId.optional() });

export const schema = z.object({
  ...outboundBase,
  /** Created by this event (also on a redelivery that finds its own earlier create). */
  created: z.array(definition),
  /** Already in the install (by apiName); not changed, even when the event describes it otherwise. */
  existing: z.array(definition),
  /** Refused by the service: the others are still created. */
  refused: z.array(z.object({ apiName: customFieldApiName, code: text(128), message: z.string().max(1024) })),
  /** Timesheet custom fields the install has after this event. */
  total: z.int().nonnegative(),
  limit: z.int().positive(),
});

export type TimesheetFieldsSyncedDetail = z.output<typeof schema>;
