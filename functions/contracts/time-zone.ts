/**
 * IANA time zones, checked without Intl's locale data where the name allows.
 *
 * A process's first `Intl.DateTimeFormat` (or any first Intl formatter) sets up ICU's locale data,
 * which formatting needs and time-zone arithmetic does not: in the bench's profile of a
 * save-budget cold start it was the largest item of the connector's own code
 * (`connector: functions/contracts/`, issue #17). So a zone is first looked up in
 * `Intl.supportedValuesOf('timeZone')` — the canonical IANA names this runtime's ICU knows
 * (ECMA-402, "AvailableCanonicalTimeZones") — or is "UTC", which ECMA-402 requires every
 * implementation to accept. Any other name (an alias such as US/Eastern, another spelling such as
 * america/new_york, a UTC offset such as +05:30, which newer runtimes accept) is given to
 * `Intl.DateTimeFormat`, as every name was before: it accepts or refuses it.
 */

let listedZones: ReadonlySet<string> | undefined;

/** Whether `timeZone` is one of the runtime's canonical IANA names, or "UTC". */
export function isListedTimeZone(timeZone: string): boolean {
  listedZones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
  return listedZones.has(timeZone);
}

/** Formatters of the names that are not listed, by name (wall time to the second, 24-hour). */
const formatters = new Map<string, Intl.DateTimeFormat>();
/** Names found not to be zones; bounded, so a flood of made-up names cannot grow it without end. */
const notZones = new Set<string>();
const MAX_REMEMBERED = 1000;

/**
 * Intl's formatter of a zone that is not listed, or undefined when Intl refuses the name. The
 * formatter is what local midnight is computed with in such a zone (save-budget/local-midnight.ts).
 */
export function unlistedZoneFormatter(timeZone: string): Intl.DateTimeFormat | undefined {
  const known = formatters.get(timeZone);
  if (known !== undefined || notZones.has(timeZone)) return known;
  try {
    const formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    if (formatters.size >= MAX_REMEMBERED) formatters.clear();
    formatters.set(timeZone, formatter);
    return formatter;
  } catch {
    if (notZones.size >= MAX_REMEMBERED) notZones.clear();
    notZones.add(timeZone);
    return undefined;
  }
}

/** Whether `timeZone` names a time zone this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  return isListedTimeZone(timeZone) || unlistedZoneFormatter(timeZone) !== undefined;
}
