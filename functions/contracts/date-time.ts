import * as z from 'zod';

/**
 * An ISO 8601 date and time whose seconds may be left out (`2026-03-01T09:00Z`), as ISO 8601's
 * reduced precision allows. zod's own `z.iso.datetime()` accepted that form until zod 4.5, which
 * made seconds required (RFC 3339 has them); the connector kept its inputs as they were: a partner
 * event or a service record written to the minute is not refused because the validator was
 * upgraded. Everything else is zod's check: a calendar date (no 2023-02-29), `Z` always, a
 * `±hh:mm` offset when `offset` is set, any number of fractional digits.
 *
 * Built as zod's own ISO date-time schema with this pattern, so a refusal reads as before
 * ("Invalid ISO datetime") and the JSON Schema keeps `format: date-time` beside the pattern. That
 * format is RFC 3339's, with seconds: the published contract is the stricter reading, and the
 * connector tolerates the other (events/README.md says so to partners).
 */
export function isoDateTime({
  offset = false,
  error,
}: {
  readonly offset?: boolean;
  readonly error?: string;
} = {}): z.ZodISODateTime {
  return new z.ZodISODateTime({
    type: 'string',
    format: 'datetime',
    check: 'string_format',
    offset,
    local: false,
    precision: null,
    pattern: offset ? WITH_OFFSET : UTC_ONLY,
    ...(error === undefined ? {} : { error: () => error }),
  });
}

/** zod's own date-time patterns, to the second (and fraction) or to the minute. */
const toSecondOrMinute = (offset: boolean) =>
  new RegExp(
    [z.regexes.datetime({ offset }), z.regexes.datetime({ offset, precision: -1 })]
      .map((pattern) => `(?:${pattern.source})`)
      .join('|'),
  );
const UTC_ONLY = toSecondOrMinute(false);
const WITH_OFFSET = toSecondOrMinute(true);
