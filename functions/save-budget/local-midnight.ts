/**
 * Unix seconds of the first instant of calendar days in an IANA time zone, read with Intl's
 * formatter of the zone (time-zone.ts), without a time-zone dependency.
 *
 * Offsets change at DST transitions, so the offset in force at midnight is not known up front:
 * both offsets around the day are tried and the earliest instant whose local date is the
 * requested day wins. That is local midnight, or, in zones whose clocks skip midnight (e.g.
 * America/Santiago springing 00:00 → 01:00), the first instant the day has.
 */

import { zoneFormatter } from '#functions/contracts/time-zone.ts';
import { DAY_MS } from '#functions/domain/time.ts';

/** Local wall time at an instant, in one zone. */
interface WallTime {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}
type WallClock = (instantMs: number) => WallTime;

function formatterWallClock(formatter: Intl.DateTimeFormat): WallClock {
  return (instantMs) => {
    const parts: Record<string, number> = {};
    for (const part of formatter.formatToParts(new Date(instantMs))) {
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
  };
}

/** The wall clock of `timeZone`; the BudgetSet contract has already refused a name that is no zone. */
function wallClockOf(timeZone: string): WallClock {
  const formatter = zoneFormatter(timeZone);
  if (formatter === undefined) throw new RangeError(`not an IANA time zone: ${timeZone}`);
  return formatterWallClock(formatter);
}

/** Local wall time minus UTC at that instant, in ms. */
function offsetAt(wallClock: WallClock, instantMs: number): number {
  const local = wallClock(instantMs);
  const wallAsUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  return wallAsUtc - Math.floor(instantMs / 1000) * 1000;
}

function localMidnightMs(wallClock: WallClock, date: string): number {
  const [year = 0, month = 0, day = 0] = date.split('-').map(Number);
  const wallMidnightAsUtc = Date.UTC(year, month - 1, day);
  const before = offsetAt(wallClock, wallMidnightAsUtc - DAY_MS);
  const after = offsetAt(wallClock, wallMidnightAsUtc + DAY_MS);
  // The same offset a day before and a day after: no transition in between (no zone changes its
  // offset twice within 48 hours), so local midnight is wall midnight minus it.
  if (before === after) return wallMidnightAsUtc - before;
  const candidates = [before, after]
    .map((offset) => wallMidnightAsUtc - offset)
    .filter((instant) => {
      const local = wallClock(instant);
      return local.year === year && local.month === month && local.day === day;
    })
    .sort((a, b) => a - b);
  const first = candidates[0];
  if (first === undefined) throw new RangeError(`cannot place ${date} in its time zone`);
  return first;
}

/** Local wall time minus UTC at that instant in `timeZone`, in milliseconds (UTC-5 → -18 000 000). */
export function utcOffsetMs(instantMs: number, timeZone: string): number {
  return offsetAt(wallClockOf(timeZone), instantMs);
}

/**
 * The first instant of a day (YYYY-MM-DD, validated by the inbound contract) in `timeZone`, in
 * unix seconds, for each day asked.
 */
export function midnightsIn(timeZone: string): (date: string) => number {
  const wallClock = wallClockOf(timeZone);
  return (date) => localMidnightMs(wallClock, date) / 1000;
}

export function localMidnightUnixSeconds(date: string, timeZone: string): number {
  return midnightsIn(timeZone)(date);
}
