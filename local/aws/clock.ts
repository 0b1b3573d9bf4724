/**
 * Local time: the one place where the local runtime compresses AWS's waiting times.
 *
 * What is scaled (multiplied by `timeScale`, default 1/1000, so SQS's 180 s visibility timeout is
 * 180 ms and a 12 h ChangeMessageVisibility is 43 s):
 * - SQS visibility timeouts and ChangeMessageVisibility (the wait before a failed record comes back);
 * - EventBridge rule-target retry backoff and Lambda asynchronous-invocation retry delays.
 *
 * What is never scaled, because correctness depends on it or the handler's own code measures it:
 * - function timeouts (a handler runs in real time and may take as long as on AWS);
 * - windows: the FIFO deduplication interval (5 min), message retention, idempotency TTLs;
 * - schedules, which follow the sandbox clock instead (see `schedule.ts`).
 */

export const DEFAULT_TIME_SCALE = 1 / 1000;

export interface LocalClock {
  /** Real wall-clock time in ms (windows and timestamps). */
  now(): number;
  /** How long to actually wait, in ms, for an AWS delay of `seconds`. */
  delayMs(seconds: number): number;
  readonly timeScale: number;
}

export function localClock(timeScale: number = DEFAULT_TIME_SCALE, now: () => number = Date.now): LocalClock {
  if (!Number.isFinite(timeScale) || timeScale < 0 || timeScale > 1) {
    throw new RangeError(`time scale must be between 0 and 1, got ${timeScale}`);
  }
  return {
    now,
    timeScale,
    delayMs: (seconds) => Math.max(0, Math.round(seconds * 1000 * timeScale)),
  };
}
