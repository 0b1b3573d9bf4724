import { defaultRetryPolicy, type RetryPolicy } from '#functions/commons/service/http.ts';

/**
 * When a record that failed is tried again, and how much of a function's time one record needs.
 * `lib/` sizes the route queues from the same numbers (maximum receives, retention), so what the
 * template sets and what the handlers do cannot drift apart.
 *
 * Two kinds of failure, two budgets:
 * - A failure a fix elsewhere cures (the token is missing or refused, the service asks for a long
 *   pause) makes the record *wait*: its visibility is extended, 1 minute after the first receive,
 *   doubling up to ~11.7 hours, so a token set hours later still applies it. Waiting costs a
 *   receive but never an attempt.
 * - Any other retryable failure is an *attempt*, counted in DynamoDB per message: the record
 *   comes back after 1, 2, 4, 8 minutes, and gives up after `DEFAULT_MAX_ATTEMPTS`.
 *
 * AWS limits used here (Amazon SQS API reference, ChangeMessageVisibility; SQS Developer Guide,
 * "Amazon SQS visibility timeout"): a visibility timeout is at most 43,200 s and "the maximum
 * visibility timeout is 12 hours from the time that Amazon SQS receives the ReceiveMessage
 * request"; a queue keeps a message at most 14 days (MessageRetentionPeriod).
 */

/** Counted failures before a record gives up (SyncFailed RETRIES_EXHAUSTED, copy to the DLQ). */
export const DEFAULT_MAX_ATTEMPTS = 5;

/** SQS keeps a message at most 14 days; the route queues keep theirs that long. */
export const ROUTE_QUEUE_RETENTION_SECONDS = 14 * 24 * 60 * 60;

/** The first wait, and the base of the attempt backoff. */
export const FIRST_DELAY_SECONDS = 60;

/**
 * The longest wait set at once: below SQS's 12-hour ceiling counted from the receive, with room
 * for the function's own run time before it asks.
 */
export const MAX_WAIT_SECONDS = 42_000;

/** The longest pause between two counted attempts. */
export const MAX_RETRY_DELAY_SECONDS = 900;

/** A wait after the `receiveCount`-th receive: 1 min, 2 min, 4 min, ... up to ~11.7 h. */
export function waitSeconds(receiveCount: number): number {
  const exponent = Math.max(0, Math.min(receiveCount - 1, 30));
  return Math.min(MAX_WAIT_SECONDS, FIRST_DELAY_SECONDS * 2 ** exponent);
}

/** The pause after the `attempt`-th counted failure: 1, 2, 4, 8 min, ... up to 15 min. */
export function retryDelaySeconds(attempt: number): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  return Math.min(MAX_RETRY_DELAY_SECONDS, FIRST_DELAY_SECONDS * 2 ** exponent);
}

/** How many receives of waiting span `seconds` (a token fixed that late still applies the record). */
export function receivesToWait(seconds: number): number {
  let waited = 0;
  let receives = 0;
  while (waited < seconds) {
    receives += 1;
    waited += waitSeconds(receives);
  }
  return receives;
}

/**
 * The route queues' maximum receives (their redrive policy): enough to wait out the whole
 * retention plus every counted attempt. The handlers give up by attempts long before; this is
 * the backstop for a record whose function never gets to decide (it crashes or times out).
 */
export function routeMaxReceiveCount(
  maxAttempts = DEFAULT_MAX_ATTEMPTS,
  retentionSeconds = ROUTE_QUEUE_RETENTION_SECONDS,
): number {
  return receivesToWait(retentionSeconds) + maxAttempts;
}

/** Time kept back after the last service call of a record, for its publish and store writes. */
export const RECORD_WRAP_UP_MS = 2000;

/**
 * The time one service call can take in the worst case the HTTP client allows: every attempt
 * running to its timeout, with the longest backoff between them, plus the record's wrap-up. A
 * batch starts no record with less time left than this (route-handler.ts), and the deployment
 * config refuses an HTTP timeout whose reserve does not fit a route's function timeout.
 */
export function recordTimeReserveMs(
  httpTimeoutMs: number,
  policy: Pick<RetryPolicy, 'maxAttempts' | 'maxDelayMs'> = defaultRetryPolicy,
): number {
  return (
    policy.maxAttempts * httpTimeoutMs + (policy.maxAttempts - 1) * policy.maxDelayMs + RECORD_WRAP_UP_MS
  );
}
