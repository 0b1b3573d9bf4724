import { createHash } from 'node:crypto';

const HOUR_MS = 3_600_000;

/** How often every tracked business is compared with the service unless configured. */
export const DEFAULT_DRIFT_EVERY_HOURS = 24;

/**
 * When the drift watch should next look at `accountId`: the first instant after `after` that
 * falls on the account's own phase of the cadence. The phase is a stable hash of the account id,
 * so checks are spread evenly over the period whatever the signups' timing (a burst of signups is
 * not checked in one run a day later), and a business is checked at the same time of day each day.
 */
export function nextDriftCheck(
  accountId: string,
  after: Date | string,
  everyHours: number = DEFAULT_DRIFT_EVERY_HOURS,
): string {
  const periodMs = Math.max(1, Math.round(everyHours * HOUR_MS));
  const phase = createHash('sha256').update(`drift#${accountId}`).digest().readUInt32BE(0) % periodMs;
  const afterMs = typeof after === 'string' ? Date.parse(after) : after.getTime();
  const sincePhase = (((afterMs - phase) % periodMs) + periodMs) % periodMs;
  return new Date(afterMs - sincePhase + periodMs).toISOString();
}
