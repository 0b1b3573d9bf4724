/**
 * Unix seconds of the first instant of a calendar day in an IANA time zone, with Intl only (no
 * time-zone dependency). Offsets change at DST transitions, so the offset in force at midnight
 * is not known up front: both offsets around the day are tried and the earliest instant whose
 * local date is the requested day wins. That is local midnight, or, in zones whose clocks skip
 * midnight (e.g. America/Santiago springing 00:00 → 01:00), the first instant the day has.
 */

import { timeZoneFormatter } from '#functions/contracts/time-zone.ts';
import { DAY_MS } from '#functions/domain/time.ts';

/** The zone's formatter; the BudgetSet contract has already refused an unknown zone. */
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  const formatter = timeZoneFormatter(timeZone);
  if (formatter === undefined) throw new RangeError(`not an IANA time zone: ${timeZone}`);
  return formatter;
}

interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function localTimeAt(instantMs: number, timeZone: string): LocalTime {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(instantMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts['year'] ?? 0,
    month: parts['month'] ?? 0,
    day: parts['day'] ?? 0,
    hour: parts['hour'] ?? 0,
    minute: parts['minute'] ?? 0,
    second: parts['second'] ?? 0,
  };
}

/**
 * Offsets already computed, by zone and instant. `formatToParts` is the costliest step of a budget
 * (two per day); the days of one budget share instants (a day's "after", the wall midnight of the
 * next day, is the "before" of the day after that: a week asks 9 instants, not 14), and partners
 * send the same weeks again as budgets change. An offset at an instant
 * never changes while the process runs (its time-zone data is fixed), so the memo cannot go stale.
 * Bounded: cleared when full.
 */
const offsets = new Map<string, number>();
const MAX_REMEMBERED_OFFSETS = 4096;

/** Local wall time minus UTC at that instant, in milliseconds (UTC-5 → -18 000 000). */
export function utcOffsetMs(instantMs: number, timeZone: string): number {
  const key = `${timeZone} ${instantMs}`;
  const known = offsets.get(key);
  if (known !== undefined) return known;
  const local = localTimeAt(instantMs, timeZone);
  const wallAsUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  const offset = wallAsUtc - Math.floor(instantMs / 1000) * 1000;
  if (offsets.size >= MAX_REMEMBERED_OFFSETS) offsets.clear();
  offsets.set(key, offset);
  return offset;
}

/** `date` is YYYY-MM-DD (already validated by the inbound contract). */
export function localMidnightUnixSeconds(date: string, timeZone: string): number {
  const [year = 0, month = 0, day = 0] = date.split('-').map(Number);
  const wallMidnightAsUtc = Date.UTC(year, month - 1, day);
  const before = utcOffsetMs(wallMidnightAsUtc - DAY_MS, timeZone);
  const after = utcOffsetMs(wallMidnightAsUtc + DAY_MS, timeZone);
  // The same offset a day before and a day after: no transition in between (no zone changes its
  // offset twice within 48 hours), so local midnight is wall midnight minus it.
  if (before === after) return (wallMidnightAsUtc - before) / 1000;
  const candidates = [before, after]
    .map((offset) => wallMidnightAsUtc - offset)
    .filter((instant) => {
      const local = localTimeAt(instant, timeZone);
      return local.year === year && local.month === month && local.day === day;
    })
    .sort((a, b) => a - b);
  const first = candidates[0];
  if (first === undefined) throw new RangeError(`cannot place ${date} in time zone ${timeZone}`);
  return first / 1000;
}
