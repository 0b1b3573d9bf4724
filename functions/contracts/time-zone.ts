/**
 * One Intl.DateTimeFormat per IANA time zone, shared by the BudgetSet contract (is the zone
 * valid?) and save-budget (local midnight of a day): building one costs more than the rest of a
 * parse, and the contract's check builds exactly the formatter the use case then needs.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();
/** Names found not to be zones; bounded, so a flood of made-up zones cannot grow it without end. */
const notZones = new Set<string>();
const MAX_REMEMBERED_NOT_ZONES = 1000;

/** The formatter of `timeZone` (wall time to the second, 24-hour), or undefined if it is no zone. */
export function timeZoneFormatter(timeZone: string): Intl.DateTimeFormat | undefined {
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
    formatters.set(timeZone, formatter);
    return formatter;
  } catch {
    if (notZones.size < MAX_REMEMBERED_NOT_ZONES) notZones.add(timeZone);
    return undefined;
  }
}
