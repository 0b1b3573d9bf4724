/**
 * IANA time zones, checked and named without Intl's locale data.
 *
 * A process's first `Intl.DateTimeFormat` (or any first Intl formatter) sets up ICU's locale data,
 * which formatting needs and time-zone arithmetic does not: in the bench's profile of a
 * save-budget cold start it was the largest item of the connector's own code
 * (`connector: functions/contracts/`, issue #17). So a zone is first looked up in
 * `Intl.supportedValuesOf('timeZone')` — the canonical IANA names this runtime's ICU knows
 * (ECMA-402, "AvailableCanonicalTimeZones") — or is "UTC", which ECMA-402 requires every
 * implementation to accept. Any other name (an alias such as US/Eastern, another spelling such as
 * america/new_york) is given to `Intl.DateTimeFormat`, as every name was before: it accepts or
 * refuses it, and names its canonical zone.
 */

let canonicalZones: ReadonlySet<string> | undefined;
/** Names found by Intl: their canonical zone, or null for a name that is no zone. Bounded. */
const resolvedByIntl = new Map<string, string | null>();
const MAX_RESOLVED_BY_INTL = 1000;

/** The canonical IANA name of `timeZone`, or undefined when it is no time zone. */
export function canonicalTimeZone(timeZone: string): string | undefined {
  canonicalZones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
  if (canonicalZones.has(timeZone)) return timeZone;
  const known = resolvedByIntl.get(timeZone);
  if (known !== undefined) return known ?? undefined;
  let resolved: string | null;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    resolved = null;
  }
  // A flood of made-up names cannot grow the memo without end.
  if (resolvedByIntl.size >= MAX_RESOLVED_BY_INTL) resolvedByIntl.clear();
  resolvedByIntl.set(timeZone, resolved);
  return resolved ?? undefined;
}
