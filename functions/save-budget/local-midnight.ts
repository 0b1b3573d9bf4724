/**
 * Unix seconds of the first instant of calendar days in an IANA time zone, without a time-zone
 * dependency.
 *
 * A zone the runtime lists (time-zone.ts: its canonical IANA names, and UTC) is read from the
 * `Date` object's own local time: the zone is made the process's time zone for the synchronous
 * computation of a budget's days (`process.env.TZ`) and put back before anything else can run.
 * Node re-reads the zone whenever TZ is assigned (nodejs/node#20026, since Node 13) and supports
 * canonical IANA names in it (Node's CLI docs, "TZ"), which is all this path gives it; V8 takes
 * local time from ICU's zone data, the data Intl formats with, so the offsets are Intl's
 * (test/flows/install/local-midnight.test.ts compares them over every zone the runtime lists).
 * That spares the process's first `Intl.DateTimeFormat`, slow to set up (time-zone.ts), and a
 * `formatToParts` per instant. Any other name Intl accepts (an alias, another spelling, a UTC
 * offset such as +05:30) is read through Intl's formatter, as every zone was before; so is every
 * zone off the main thread, where `process.env` is a copy and TZ would not apply.
 *
 * Offsets change at DST transitions, so the offset in force at midnight is not known up front:
 * both offsets around the day are tried and the earliest instant whose local date is the
 * requested day wins. That is local midnight, or, in zones whose clocks skip midnight (e.g.
 * America/Santiago springing 00:00 → 01:00), the first instant the day has.
 */

import { isMainThread } from 'node:worker_threads';
import { isListedTimeZone, unlistedZoneFormatter } from '#functions/contracts/time-zone.ts';
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

/** The process's own zone, as set by `inTimeZone`. */
const processWallClock: WallClock = (instantMs) => {
  const local = new Date(instantMs);
  return {
    year: local.getFullYear(),
    month: local.getMonth() + 1,
    day: local.getDate(),
    hour: local.getHours(),
    minute: local.getMinutes(),
    second: local.getSeconds(),
  };
};

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

/** Runs `work` with the wall clock of `timeZone`, the process's zone set for it where it can be. */
function inTimeZone<T>(timeZone: string, work: (wallClock: WallClock) => T): T {
  if (!isListedTimeZone(timeZone) || !isMainThread) {
    const formatter = unlistedZoneFormatter(timeZone);
    // The BudgetSet contract has already refused a name that is no zone.
    if (formatter === undefined) throw new RangeError(`not an IANA time zone: ${timeZone}`);
    return work(formatterWallClock(formatter));
  }
  const previous = process.env['TZ'];
  process.env['TZ'] = timeZone;
  try {
    return work(processWallClock);
  } finally {
    if (previous === undefined) delete process.env['TZ'];
    else process.env['TZ'] = previous;
  }
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
  return inTimeZone(timeZone, (wallClock) => offsetAt(wallClock, instantMs));
}

/**
 * Runs `work` (synchronous) with `midnightOf`: the first instant of a day (YYYY-MM-DD, validated
 * by the inbound contract) in `timeZone`, in unix seconds. The zone is set once for all the days.
 */
export function withLocalMidnights<T>(
  timeZone: string,
  work: (midnightOf: (date: string) => number) => T,
): T {
  return inTimeZone(timeZone, (wallClock) => work((date) => localMidnightMs(wallClock, date) / 1000));
}

export function localMidnightUnixSeconds(date: string, timeZone: string): number {
  return withLocalMidnights(timeZone, (midnightOf) => midnightOf(date));
}
