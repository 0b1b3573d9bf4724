import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localMidnightUnixSeconds, utcOffsetMs } from '#functions/save-budget/local-midnight.ts';

const HOUR = 3600;

describe('localMidnightUnixSeconds', () => {
  it('places New York midnights at UTC-5 before and UTC-4 after the March 2026 change', () => {
    // Prepare
    const days = ['2026-03-07', '2026-03-08', '2026-03-09', '2026-03-10'];

    // Act
    const midnights = days.map((day) => localMidnightUnixSeconds(day, 'America/New_York'));

    // Assess: 2026-03-08 05:00Z, 2026-03-09 04:00Z.
    expect(midnights).toEqual([1772859600, 1772946000, 1773028800, 1773115200]);
  });

  it('places Chicago midnights at UTC-5 before and UTC-6 after the November 2026 change', () => {
    // Act
    const midnights = ['2026-10-31', '2026-11-01', '2026-11-02'].map((day) =>
      localMidnightUnixSeconds(day, 'America/Chicago'),
    );

    // Assess: the day of the change is 25 hours long.
    expect(midnights).toEqual([1793422800, 1793509200, 1793599200]);
    expect(midnights[2]! - midnights[1]!).toBe(25 * HOUR);
  });

  it('takes the first instant of a day whose midnight the clocks skip', () => {
    // Act: Chile springs forward from 00:00 to 01:00 on 2026-09-06.
    const start = localMidnightUnixSeconds('2026-09-06', 'America/Santiago');

    // Assess: 01:00 at UTC-3 is 04:00Z.
    expect(start).toBe(1788667200);
  });

  it('is plain UTC midnight for UTC and whole-hour offsets elsewhere', () => {
    // Act & Assess
    expect(localMidnightUnixSeconds('2026-01-15', 'UTC')).toBe(Date.UTC(2026, 0, 15) / 1000);
    expect(localMidnightUnixSeconds('2026-01-15', 'Asia/Kolkata')).toBe(Date.UTC(2026, 0, 14, 18, 30) / 1000);
    expect(localMidnightUnixSeconds('2026-01-15', 'Australia/Sydney')).toBe(Date.UTC(2026, 0, 14, 13) / 1000);
  });

  it('always lands on 00:00 local time of the requested date, or the first instant after a skipped midnight', () => {
    const zones = [
      'America/New_York',
      'Europe/London',
      'Australia/Lord_Howe',
      'America/Santiago',
      'Asia/Tehran',
    ];
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('2000-01-01T00:00:00Z'),
          max: new Date('2037-12-31T00:00:00Z'),
          noInvalidDate: true,
        }),
        fc.constantFrom(...zones),
        (date, zone) => {
          // Prepare
          const day = date.toISOString().slice(0, 10);

          // Act
          const instant = localMidnightUnixSeconds(day, zone) * 1000;

          // Assess
          const local = new Date(instant + utcOffsetMs(instant, zone)).toISOString();
          expect(local.slice(0, 10)).toBe(day);
          const justBefore = instant - 1000;
          const localBefore = new Date(justBefore + utcOffsetMs(justBefore, zone)).toISOString();
          expect(localBefore.slice(0, 10) < day).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("remembers an offset by zone and instant: the same instant in two zones, asked in turn, past the memo's bound", () => {
    // Prepare: one instant, two zones whose offsets differ; then enough other instants to clear the memo.
    const instant = Date.UTC(2026, 5, 1);
    const asked = () => [utcOffsetMs(instant, 'Asia/Kolkata'), utcOffsetMs(instant, 'America/New_York')];

    // Act
    const first = asked();
    const again = asked();
    for (let day = 0; day < 5_000; day++) utcOffsetMs(instant + day * 86_400_000, 'UTC');
    const afterClearing = asked();

    // Assess: +5:30 and -4:00 every time.
    expect([first, again, afterClearing]).toEqual([
      [19_800_000, -14_400_000],
      [19_800_000, -14_400_000],
      [19_800_000, -14_400_000],
    ]);
  });
});
