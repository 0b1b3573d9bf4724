export const DAY_MS = 86_400_000;

/** ISO 8601 with an explicit UTC offset and no milliseconds, as in the spec's samples. */
export function toIsoOffset(epochMs: number): string {
  return new Date(Math.floor(epochMs / 1000) * 1000).toISOString().replace('.000Z', '+00:00');
}

/**
 * The sandbox clock runs with real time plus an offset, so trials expire when a test moves
 * the clock while timeouts and rate limits keep using wall time.
 */
export class SandboxClock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  advanceDays(days: number): number {
    this.offsetMs += days * DAY_MS;
    return this.now();
  }

  set(epochMs: number): number {
    this.offsetMs = epochMs - Date.now();
    return this.now();
  }

  reset(): void {
    this.offsetMs = 0;
  }
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * ISO 8601 with the UTC offset the time zone has at that instant, e.g. `2026-01-05T04:00:00-05:00`
 * (by default the sandbox writes install records in the install's local time, unless
 * `utc-timestamps`; the spec only asks for "a UTC offset").
 */
export function toIsoInZone(epochMs: number, timeZone: string): string {
  const at = Math.floor(epochMs / 1000) * 1000;
  let format = zoneFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    zoneFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    Number(parts.find((candidate) => candidate.type === type)?.value);
  const localAsUtc = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  );
  const offsetMinutes = Math.round((localAsUtc - at) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offsetMinutes) % 60).padStart(2, '0');
  return `${new Date(localAsUtc).toISOString().slice(0, 19)}${sign}${hours}:${minutes}`;
}
