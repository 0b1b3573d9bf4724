import { ConnectorError, ThrottledError } from '#functions/domain/errors.ts';
import { BUDGET_MAX_WAIT_MS, defaultRetryPolicy, type RetryPolicy } from '#functions/service/http.ts';

/**
 * When a record that failed is tried again, and how much of a function's time one record needs.
 * `lib/` sizes the route queues from the same numbers (maximum receives, retention), so what the
 * template sets and what the handlers do cannot drift apart.
 *
 * Two kinds of failure, two budgets:
 * - A failure a fix elsewhere cures (the token is missing or refused, the service asks for a long
 *   pause) makes the record *wait*: its visibility is extended, 1 minute after the first receive,
 *   doubling up to 30 minutes, so a token set days later still applies it, at most 30 minutes after
 *   the fix. Waiting costs a receive but never an attempt; the queue allows enough receives to wait
 *   out its whole retention.
 * - Any other retryable failure is an *attempt*, counted in DynamoDB per message: the record
 *   comes back after 1, 2, 4, 8 minutes, and gives up after `DEFAULT_MAX_ATTEMPTS`.
 *
 * AWS limits used here (Amazon SQS API reference, ChangeMessageVisibility; SQS Developer Guide,
 * "Amazon SQS visibility timeout"): a visibility timeout is at most 43,200 s and "the maximum
 * visibility timeout is 12 hours from the time that Amazon SQS receives the ReceiveMessage
 * request"; a queue keeps a message at most 14 days (MessageRetentionPeriod).
 */

/**
 * A wait that is not the caller's failure: the connector's own request budget had no request soon
 * enough (ThrottledError: nothing was sent), or the service asked for a longer pause (Retry-After)
 * than the HTTP client waits out in process. A short Retry-After the client already waited out on
 * every attempt is not one: that failure counts like any other. Records wait (route-handler.ts);
 * the scheduled watches stop starting checks and leave them due.
 */
export function isServicePause(error: unknown): error is ConnectorError {
  if (error instanceof ThrottledError) return true;
  return (
    error instanceof ConnectorError &&
    error.retryAfterMs !== undefined &&
    error.retryAfterMs > defaultRetryPolicy.maxRetryAfterMs
  );
}

/** Counted failures before a record gives up (SyncFailed RETRIES_EXHAUSTED, copy to the DLQ). */
export const DEFAULT_MAX_ATTEMPTS = 5;

/** SQS keeps a message at most 14 days; the route queues keep theirs that long. */
export const ROUTE_QUEUE_RETENTION_SECONDS = 14 * 24 * 60 * 60;

/** The first wait, and the base of the attempt backoff. */
export const FIRST_DELAY_SECONDS = 60;

/**
 * The longest wait set at once: how long a fixed token can take to reach a waiting record. Far
 * below SQS's 12-hour ceiling counted from the receive; a wait costs one receive, and the queue
 * has receives for the whole retention.
 */
export const MAX_WAIT_SECONDS = 30 * 60;

/**
 * Receives kept between the handler's own give-up and the queue's redrive policy: a record that
 * is not tried on a receive (held back behind its account's failing record, not started for lack
 * of time, held by another invocation) or whose give-up itself failed still has these to be
 * reported with SyncFailed before SQS would move it to the DLQ silently.
 */
export const GIVE_UP_MARGIN_RECEIVES = 5;

/**
 * A record gives up when its next wait would end this close to the queue's retention: SQS deletes
 * a message older than the retention period, waiting or not ("Amazon SQS message quotas",
 * MessageRetentionPeriod), and a deleted record could no longer be reported or kept.
 */
export const RETENTION_MARGIN_SECONDS = 60 * 60;

/** The longest pause between two counted attempts. */
export const MAX_RETRY_DELAY_SECONDS = 900;

/** A wait after the `receiveCount`-th receive: 1 min, 2 min, 4 min, ... up to 30 min. */
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
 * retention, every counted attempt and the give-up margin. The handlers give up before it
 * (`giveUpReceive`); the policy is the backstop for a record whose function never gets to decide
 * (it crashes or times out every time). At most 1000 (SetQueueAttributes, RedrivePolicy).
 */
export function routeMaxReceiveCount(
  maxAttempts = DEFAULT_MAX_ATTEMPTS,
  retentionSeconds = ROUTE_QUEUE_RETENTION_SECONDS,
): number {
  return receivesToWait(retentionSeconds) + maxAttempts + GIVE_UP_MARGIN_RECEIVES;
}

/** The receive from which a record that fails again gives up, whatever it waited for. */
export function giveUpReceive(maxReceiveCount: number): number {
  return Math.max(1, maxReceiveCount - GIVE_UP_MARGIN_RECEIVES);
}

/**
 * Whether a record must give up rather than come back after `nextDelaySeconds`: its queue's last
 * receives are near, or the queue would delete it before (or soon after) it came back.
 */
export function mustGiveUp(
  record: { receiveCount: number; ageSeconds: number },
  nextDelaySeconds: number,
  queue: { maxReceiveCount: number; retentionSeconds: number },
): boolean {
  return (
    record.receiveCount >= giveUpReceive(queue.maxReceiveCount) ||
    record.ageSeconds + nextDelaySeconds + RETENTION_MARGIN_SECONDS >= queue.retentionSeconds
  );
}

/** Time kept back after the last service call of a record, for its publish and store writes. */
export const RECORD_WRAP_UP_MS = 2000;

/**
 * The time one service call can take in the worst case the HTTP client allows: every attempt
 * waiting its longest for the request budget and running to its timeout, with the longest pause between them (its backoff, or a Retry-After it
 * waits out in process), plus the record's wrap-up. A batch starts no record with less time left
 * than this (route-handler.ts), and the deployment config refuses an HTTP timeout whose reserve
 * does not fit a route's function timeout. A record that makes several calls can still run over:
 * then the invocation times out and its records come back, uncounted.
 */
export function recordTimeReserveMs(
  httpTimeoutMs: number,
  policy: Pick<RetryPolicy, 'maxAttempts' | 'maxDelayMs' | 'maxRetryAfterMs'> = defaultRetryPolicy,
): number {
  const longestPause = Math.max(policy.maxDelayMs, policy.maxRetryAfterMs);
  return (
    policy.maxAttempts * (httpTimeoutMs + BUDGET_MAX_WAIT_MS) +
    (policy.maxAttempts - 1) * longestPause +
    RECORD_WRAP_UP_MS
  );
}

/** A route needs this much time beyond one service call's worst case to start its records at all. */
export const MIN_START_WINDOW_MS = 5000;

/**
 * Why `httpTimeoutMs` does not fit a route's function timeout, or undefined when it does: the
 * deployment config and the construct refuse such a pairing (one service call's worst case must
 * leave the function `MIN_START_WINDOW_MS` to start records).
 */
export function startWindowProblem(
  httpTimeoutMs: number,
  route: { detailType: string; timeoutSeconds: number },
): string | undefined {
  const reserveMs = recordTimeReserveMs(httpTimeoutMs);
  if (reserveMs + MIN_START_WINDOW_MS <= route.timeoutSeconds * 1000) return undefined;
  return `one service call may take ${reserveMs} ms (3 attempts × the HTTP timeout of ${httpTimeoutMs} ms and the budget's wait, pauses and wrap-up), which leaves ${route.detailType}'s ${route.timeoutSeconds} s function timeout less than ${MIN_START_WINDOW_MS / 1000} s to start records; lower httpTimeoutMs or raise routes.${route.detailType}.timeoutSeconds to at least ${Math.ceil((reserveMs + MIN_START_WINDOW_MS) / 1000)}`;
}
