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
  return dateTimeMatching(offset ? WITH_OFFSET : UTC_ONLY, offset, error);
}

/** zod's own ISO date-time schema, checked against `pattern` (the JSON Schema keeps `format: date-time`). */
function dateTimeMatching(pattern: RegExp, offset: boolean, error: string | undefined): z.ZodISODateTime {
  return new z.ZodISODateTime({
    type: 'string',
    format: 'datetime',
    check: 'string_format',
    offset,
    local: false,
    precision: null,
    pattern,
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

/** Fractional digits an `occurredAt` may carry: nanoseconds, so every instant has one fixed-width key. */
export const MAX_FRACTION_DIGITS = 9;

const RFC3339_MESSAGE = `expected an RFC 3339 date-time with seconds and an offset (Z or ±hh:mm), at most ${MAX_FRACTION_DIGITS} fractional digits, e.g. 2026-03-01T09:00:00.250+02:00`;

/**
 * An RFC 3339 date-time as RFC 3339 writes it: seconds required, `Z` or a `±hh:mm` offset, and a
 * fraction of up to nine digits (the partner's clock may give micro- or nanoseconds; more digits
 * could not be ordered by a fixed-width key). zod's own pattern with the fraction bounded, so the
 * JSON Schema says `format: date-time` with the pattern beside it.
 */
export function rfc3339DateTime({
  error = RFC3339_MESSAGE,
}: {
  readonly error?: string;
} = {}): z.ZodISODateTime {
  return dateTimeMatching(RFC3339_BOUNDED_FRACTION, true, error);
}

const RFC3339_BOUNDED_FRACTION = new RegExp(
  z.regexes
    .datetime({ offset: true })
    .source.replace('(?:\\.\\d+)?', `(?:\\.\\d{1,${MAX_FRACTION_DIGITS}})?`),
);
if (RFC3339_BOUNDED_FRACTION.source === z.regexes.datetime({ offset: true }).source) {
  // zod wrote its fraction otherwise: the bound would silently be lost.
  throw new Error("date-time.ts: zod's date-time pattern has no fraction group to bound");
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|([+-])(\d{2}):(\d{2}))$/;

/** True when `instantKey` can key the date-time (its instant lies in the years 0000-9999 in UTC). */
export function hasInstantKey(dateTime: string): boolean {
  try {
    instantKey(dateTime);
    return true;
  } catch {
    return false;
  }
}

/**
 * The instant a date-time names, as a fixed-width UTC key that sorts as the instants do:
 * `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ` (nine fractional digits; a time without seconds or fraction is
 * padded with zeros, a longer fraction cut to nanoseconds). Two spellings of one instant
 * (`10:00:00+02:00`, `08:00:00.000Z`) give one key, so positions compare as strings, in code and
 * in DynamoDB conditions. Takes what `isoDateTime` and `rfc3339DateTime` accept; anything else is
 * a RangeError (a caller passed an unchecked value).
 */
export function instantKey(dateTime: string): string {
  const parts = INSTANT.exec(dateTime);
  if (!parts) throw new RangeError(`not an ISO 8601 date-time: ${dateTime}`);
  const [
    ,
    year,
    month,
    day,
    hour,
    minute,
    second = '00',
    fraction = '',
    zone,
    sign,
    offsetHours,
    offsetMinutes,
  ] = parts;
  const offsetMs =
    zone === 'Z' ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0-99 as 1900-1999.
  const local = new Date(0);
  local.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  local.setUTCHours(Number(hour), Number(minute), Number(second), 0);
  const utc = new Date(local.getTime() - offsetMs);
  if (Number.isNaN(utc.getTime()) || utc.getUTCFullYear() < 0 || utc.getUTCFullYear() > 9999) {
    throw new RangeError(`not an instant between the years 0000 and 9999 (UTC): ${dateTime}`);
  }
  const nanos = fraction.slice(0, MAX_FRACTION_DIGITS).padEnd(MAX_FRACTION_DIGITS, '0');
  return `${utc.toISOString().slice(0, 19)}.${nanos}Z`;
}
