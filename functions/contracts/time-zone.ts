/**
 * IANA time zones, through Intl: a name is a zone when `Intl.DateTimeFormat` accepts it (a
 * canonical name, an alias such as US/Eastern, a UTC offset such as +05:30 where the runtime takes
 * one), and its wall time is read with that formatter.
 */

/** One formatter per zone (wall time to the second, 24-hour): building one is the costly part. */
const formatters = new Map<string, Intl.DateTimeFormat>();
/**
 * Names kept at most: Intl accepts every spelling of a zone in any case, and every BudgetSet names
 * one, so an unbounded map would grow with what partners send; past this it starts again.
 */
const MAX_FORMATTERS = 1000;

/** Intl's formatter of the wall time in `timeZone`, or undefined when Intl refuses the name. */
export function zoneFormatter(timeZone: string): Intl.DateTimeFormat | undefined {
  const known = formatters.get(timeZone);
  if (known !== undefined) return known;
  let formatter: Intl.DateTimeFormat;
  try {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
  } catch {
    // A RangeError: not a zone. Nothing is kept for it.
    return undefined;
  }
  if (formatters.size >= MAX_FORMATTERS) formatters.clear();
  formatters.set(timeZone, formatter);
  return formatter;
}

/** Whether `timeZone` names a time zone this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  return zoneFormatter(timeZone) !== undefined;
}
