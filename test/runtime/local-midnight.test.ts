import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTimeZone, zoneFormatter } from '#functions/contracts/time-zone.ts';
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

  it("is plain UTC midnight for UTC, and the zone's own offset elsewhere (Kolkata +5:30, Sydney +11 in its summer)", () => {
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

  it('gives each zone its own offset at one instant, in any order', () => {
    // Prepare
    const instant = Date.UTC(2026, 5, 1);

    // Act
    const offsets = [
      utcOffsetMs(instant, 'Asia/Kolkata'),
      utcOffsetMs(instant, 'America/New_York'),
      utcOffsetMs(instant, 'Asia/Kolkata'),
    ];

    // Assess: +5:30 and -4:00.
    expect(offsets).toEqual([19_800_000, -14_400_000, 19_800_000]);
  });

  it('reads a zone named otherwise than canonically (an alias, another case) as Intl does', () => {
    // Prepare
    const july = Date.UTC(2026, 6, 1);

    // Act & Assess: New York is at UTC-4 in July, whatever the spelling.
    expect(utcOffsetMs(july, 'US/Eastern')).toBe(-14_400_000);
    expect(utcOffsetMs(july, 'america/new_york')).toBe(-14_400_000);
    expect(localMidnightUnixSeconds('2026-07-01', 'america/new_york')).toBe(Date.UTC(2026, 6, 1, 4) / 1000);
  });

  it('reads a UTC-offset zone through Intl where the runtime accepts one (Node 22 and later), and refuses it where not', () => {
    // Prepare
    const accepted = (() => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: '+05:30' });
        return true;
      } catch {
        return false;
      }
    })();

    // Act
    const valid = isTimeZone('+05:30');

    // Assess
    expect(valid).toBe(accepted);
    if (accepted) {
      expect(localMidnightUnixSeconds('2026-01-15', '+05:30')).toBe(Date.UTC(2026, 0, 14, 18, 30) / 1000);
    }
  });
});

describe('time zone names', () => {
  it('knows canonical names, aliases and other spellings as Intl does, and refuses what is no zone', () => {
    // Act
    const known = ['Australia/Sydney', 'UTC', 'US/Eastern', 'america/new_york'].map(isTimeZone);
    const unknown = ['Mars/Olympus_Mons', ''].map(isTimeZone);

    // Assess
    expect(known).toEqual([true, true, true, true]);
    expect(unknown).toEqual([false, false]);
  });

  it('keeps one formatter per zone, and none for a name that is no zone', () => {
    // Act
    const first = zoneFormatter('Pacific/Chatham');
    localMidnightUnixSeconds('2026-03-07', 'Pacific/Chatham');
    const again = zoneFormatter('Pacific/Chatham');

    // Assess
    expect(first).toBeInstanceOf(Intl.DateTimeFormat);
    expect(again).toBe(first);
    expect(zoneFormatter('Mars/Olympus_Mons')).toBeUndefined();
  });
});
