/**
 * Unix seconds of the first instant of calendar days in an IANA time zone, without a time-zone
 * dependency and without Intl's formatters.
 *
 * Local time comes from the `Date` object itself: the zone is made the process's time zone for
 * the synchronous computation of a budget's days (`process.env.TZ`) and put back before anything
 * else can run. Node re-reads the zone whenever TZ is assigned (nodejs/node#20026, Node 13) and
 * supports canonical IANA names in it (Node's CLI docs, "TZ"), which is all `canonicalTimeZone`
 * gives; V8 takes local time from ICU's zone data, the data Intl formats with, so the offsets are
 * Intl's (test/flows/install/local-midnight.test.ts compares them over every zone this runtime
 * lists). A formatter would cost the process's first `Intl.DateTimeFormat` (time-zone.ts) and a
 * `formatToParts` per instant.
 *
 * Offsets change at DST transitions, so the offset in force at midnight is not known up front:
 * both offsets around the day are tried and the earliest instant whose local date is the
 * requested day wins. That is local midnight, or, in zones whose clocks skip midnight (e.g.
 * America/Santiago springing 00:00 → 01:00), the first instant the day has.
 */

import { canonicalTimeZone } from '#functions/contracts/time-zone.ts';
import { DAY_MS } from '#functions/domain/time.ts';

/** Runs `work` with `timeZone` as the process's local time zone, and puts the previous one back. */
function inTimeZone<T>(timeZone: string, work: () => T): T {
  const zone = canonicalTimeZone(timeZone);
  // The BudgetSet contract has already refused a name that is no zone.
  if (zone === undefined) throw new RangeError(`not an IANA time zone: ${timeZone}`);
  const previous = process.env['TZ'];
  process.env['TZ'] = zone;
  try {
    return work();
  } finally {
    if (previous === undefined) delete process.env['TZ'];
    else process.env['TZ'] = previous;
  }
}

/** Local wall time minus UTC at that instant, in ms, in the process's current zone. */
function localOffsetMs(instantMs: number): number {
  const local = new Date(instantMs);
  const wallAsUtc = Date.UTC(
    local.getFullYear(),
    local.getMonth(),
    local.getDate(),
    local.getHours(),
    local.getMinutes(),
    local.getSeconds(),
  );
  return wallAsUtc - Math.floor(instantMs / 1000) * 1000;
}

function localMidnightMs(date: string): number {
  const [year = 0, month = 0, day = 0] = date.split('-').map(Number);
  const wallMidnightAsUtc = Date.UTC(year, month - 1, day);
  const before = localOffsetMs(wallMidnightAsUtc - DAY_MS);
  const after = localOffsetMs(wallMidnightAsUtc + DAY_MS);
  // The same offset a day before and a day after: no transition in between (no zone changes its
  // offset twice within 48 hours), so local midnight is wall midnight minus it.
  if (before === after) return wallMidnightAsUtc - before;
  const candidates = [before, after]
    .map((offset) => wallMidnightAsUtc - offset)
    .filter((instant) => {
      const local = new Date(instant);
      return local.getFullYear() === year && local.getMonth() === month - 1 && local.getDate() === day;
    })
    .sort((a, b) => a - b);
  const first = candidates[0];
  if (first === undefined) throw new RangeError(`cannot place ${date} in its time zone`);
  return first;
}

/** Local wall time minus UTC at that instant in `timeZone`, in milliseconds (UTC-5 → -18 000 000). */
export function utcOffsetMs(instantMs: number, timeZone: string): number {
  return inTimeZone(timeZone, () => localOffsetMs(instantMs));
}

/**
 * Runs `work` (synchronous) with `midnightOf`: the first instant of a day (YYYY-MM-DD, validated
 * by the inbound contract) in `timeZone`, in unix seconds. The zone is set once for all the days.
 */
export function withLocalMidnights<T>(
  timeZone: string,
  work: (midnightOf: (date: string) => number) => T,
): T {
  return inTimeZone(timeZone, () => work((date) => localMidnightMs(date) / 1000));
}

export function localMidnightUnixSeconds(date: string, timeZone: string): number {
  return inTimeZone(timeZone, () => localMidnightMs(date) / 1000);
}
