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
