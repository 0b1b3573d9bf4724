import * as z from 'zod';
import { hasInstantKey, isoDateTime, rfc3339DateTime } from './date-time.ts';
import { MESSAGE_GROUP_ID_PATTERN, MESSAGE_GROUP_ID_RULE } from './routing.ts';

/**
 * Field schemas shared by several contracts. Limits that the service does not state are
 * chosen so that any plausible partner value fits while garbage (megabyte strings, NaN-like
 * numbers) is refused before it reaches the service.
 */

/**
 * The partner's own account id; the service stores it as `externalId`. It is also the route FIFO
 * queue's message group id, so it is limited to what SQS accepts there (routing.ts).
 */
export const accountId = z
  .string()
  .regex(MESSAGE_GROUP_ID_PATTERN, { error: `expected ${MESSAGE_GROUP_ID_RULE}` });

/**
 * When the partner's system made the change an inbound event carries (RFC 3339, from the partner's
 * own clock, increasing per thing it sets). Optional on every inbound detail; without it the
 * envelope's `time` stands in. Routes that set state keep, per thing, the newest event applied by
 * this time (then the event id), so an older event that arrives later changes nothing
 * (docs/reliability.md, "Order per thing").
 */
export const occurredAt = rfc3339DateTime()
  .refine(hasInstantKey, { error: 'must be an instant between the years 0000 and 9999 in UTC' })
  .meta({
    description:
      "When the partner's system made this change (RFC 3339: seconds, Z or ±hh:mm, up to 9 fractional digits), from its own clock and increasing per thing the event sets. Of two events on one thing the newer by occurredAt (then by event id) wins, whatever order they arrive in; without occurredAt the EventBridge event time stands in.",
  });

/** A non-empty label of bounded length (names, codes, free-text references). */
export const text = (max: number) => z.string().min(1).max(max);

export const positiveId = z.int().positive();

/** ISO 8601 timestamp with `Z` or a numeric offset, as the service's records carry them. */
export const isoTimestamp = isoDateTime({ offset: true });

/** ISO 8601 timestamp in UTC (`Z`); the agreed-hours work period requires this form. */
export const utcTimestamp = isoDateTime();

/** `YYYY-MM-DD` that exists in the calendar (zod's ISO date rejects 2023-02-29 and 2024-04-31). */
export const calendarDate = z.iso.date();

export const edition = z.enum([
  'SUBSCRIPTION_PRO_TRIAL',
  'SUBSCRIPTION_FREE',
  'SUBSCRIPTION_PAID_PRO_PREMIUM',
]);
export type Edition = z.infer<typeof edition>;

/** The service's regions, each with a provisioning root of its own (the spec's regional hosts). */
export const REGIONS = ['US', 'UK', 'AU'] as const;
export const region = z.enum(REGIONS);
export type Region = (typeof REGIONS)[number];

/** Custom field API name: the key a slot is registered under, so it must be a stable identifier. */
export const customFieldApiName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, {
  message: 'expected an API name: a letter, then up to 63 letters, digits or _',
});

/** Index of the first value that occurs twice, so a refinement can point at the duplicate. */
function firstDuplicateIndex<T>(values: readonly T[]): number | undefined {
  const seen = new Set<T>();
  for (const [index, value] of values.entries()) {
    if (seen.has(value)) return index;
    seen.add(value);
  }
  return undefined;
}

/**
 * Refuses a list that names one value twice: one issue at the second occurrence, its path built
 * by `pathAt` from its index (e.g. `['days', 3, 'date']`).
 */
export function refuseRepeats<T>(
  ctx: z.core.$RefinementCtx,
  values: readonly T[],
  pathAt: (index: number) => PropertyKey[],
  message: string,
): void {
  const duplicate = firstDuplicateIndex(values);
  if (duplicate !== undefined) ctx.addIssue({ code: 'custom', path: pathAt(duplicate), message });
}

/** Install hostname as the service returned it at signup. */
export const hostname = text(253);

/**
 * Every outbound detail names the account, the install (where known) and what caused it:
 * the inbound event id, or the trial-watch run id.
 */
export const outboundBase = {
  accountId,
  hostname,
  causationId: text(128),
};
