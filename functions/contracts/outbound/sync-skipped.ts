import * as z from 'zod';
import { outboundBase, text } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'SyncSkipped';
export const version = '1';
export const description =
  'Parts of an inbound event that changed nothing because a newer event (by occurredAt, then event id) had already been applied to the same thing: one per event, listing each superseded thing and the event that superseded it. The parts that were not older applied, and their usual result event says so.';

/** The most things one event can set: 366 budget days, or 128 custom fields + hours + pay rate + 100 leave balances. */
export const MAX_SUPERSEDED_THINGS = 366;

export const schema = z.object({
  ...outboundBase,
  // Where known: today every superseded thing belongs to an install, so it is always set.
  hostname: outboundBase.hostname.optional(),
  sourceEventId: text(128),
  detailType: text(128),
  /** SUPERSEDED: a newer event on the same thing was applied first. */
  code: z.enum(['SUPERSEDED']),
  /** The newest of the events that superseded it (the id of the event applied to one of its things). */
  supersededBy: text(128),
  /**
   * Each thing of the event that changed nothing, named by the event's own field:
   * `plan`, `customFields.<apiName>`, `regularHours`, `payRate`, `leaveBalances[leaveRuleId=<id>]`,
   * `days[date=<YYYY-MM-DD>]`, `location`.
   */
  things: z
    .array(
      z.object({
        thing: text(200),
        /** The event applied to that thing, newer than this one. */
        supersededBy: text(128),
        /** Its occurredAt (UTC, nine fractional digits), or its EventBridge time when it had none. */
        supersededByOccurredAt: z.iso.datetime(),
      }),
    )
    .min(1)
    .max(MAX_SUPERSEDED_THINGS),
  /** Which things, in words; never personal data beyond ids. */
  message: z.string().max(2048),
});

export type SyncSkippedDetail = z.output<typeof schema>;
