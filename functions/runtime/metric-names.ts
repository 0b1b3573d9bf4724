/**
 * The connector's metric names and namespace: what the functions publish (observability.ts) and
 * what the stack's alarms and dashboard watch (lib/). Kept apart from observability.ts so the CDK
 * app reads the names without constructing the functions' Logger and Metrics.
 */

export const DEFAULT_METRICS_NAMESPACE = 'WorkforceConnector';

/** The Powertools service name of every function's logs and metrics, unless configured. */
export const DEFAULT_SERVICE_NAME = 'workforce-connector';

/**
 * Metric names published by the runtime with the function's `service` dimension; dashboards and
 * alarms in `lib/` refer to these.
 */
export const MetricName = {
  RecordsProcessed: 'RecordsProcessed',
  /** Counted failures: the record is tried again after a backoff. */
  RecordsFailed: 'RecordsFailed',
  /** Records waiting for a fix elsewhere (the token) or a pause the service asked for; not counted. */
  RecordsWaiting: 'RecordsWaiting',
  /** Records not started because the invocation's time was short; back in the queue at once. */
  RecordsDeferred: 'RecordsDeferred',
  /** Records that gave up: SyncFailed RETRIES_EXHAUSTED, kept in the dead-letter queue. */
  RecordsGaveUp: 'RecordsGaveUp',
  /** Replayed events whose content was applied before: acknowledged without running again. */
  ReplaySkipped: 'ReplaySkipped',
  SyncFailed: 'SyncFailed',
  /** Events answered with SyncSkipped SUPERSEDED: a newer event on one of their things was applied first. */
  EventsSuperseded: 'EventsSuperseded',
  ServiceCalls: 'ServiceCalls',
  ServiceRetries: 'ServiceRetries',
  /** Milliseconds service calls waited in process for the shared request budget. */
  BudgetWaitMs: 'BudgetWaitMs',
  EventsPublished: 'EventsPublished',
  /** Events a route received that the refusal rule answers (no usable accountId, no route). */
  RefusedByRule: 'RefusedByRule',
  /** Events the refusal function refused with SyncFailed. */
  EventsRefused: 'EventsRefused',
  /** Routable events found in an intake dead-letter queue: SyncFailed INTAKE_UNDELIVERABLE, kept in the route's DLQ. */
  IntakeUndeliverable: 'IntakeUndeliverable',
  /** Businesses the trial watch could not check in a run (the next run tries again). */
  TrialWatchFailed: 'TrialWatchFailed',
  /**
   * Trials a run left due because the shared request budget was contended (nothing sent): the run
   * stops starting businesses; not failures, so no alarm.
   */
  TrialWatchThrottled: 'TrialWatchThrottled',
  /** Trials of the page a run stopped on that it never started (a lower bound of what is left due). */
  TrialWatchRemaining: 'TrialWatchRemaining',
  /** Edition changes made at the service without a PlanChosen, announced by the drift watch. */
  BusinessEditionChangedAnnounced: 'BusinessEditionChangedAnnounced',
  /** Businesses the service no longer links to the partner, announced by the drift watch. */
  BusinessGoneAnnounced: 'BusinessGoneAnnounced',
  /**
   * Drift checks a run gave up because the shared request budget was contended (nothing sent):
   * they stay due and the run stops starting checks; not failures, so no alarm.
   */
  DriftWatchThrottled: 'DriftWatchThrottled',
  /** Drift checks of the page a run stopped on that it never started (a lower bound of what is left due). */
  DriftWatchRemaining: 'DriftWatchRemaining',
  /** Signups whose answer was lost (UNCONFIRMED), counted by every watch run: resolve them. */
  UnconfirmedSignups: 'UnconfirmedSignups',
} as const;

/**
 * The message of the drift watch's log line per unconfirmed signup (accountId, since, region,
 * lastErrorCode): the dashboard's list of unconfirmed signups is a Logs Insights query over it.
 */
export const UNCONFIRMED_SIGNUP_LOG_MESSAGE = 'unconfirmed signup';
/** Unconfirmed signups (the oldest) logged that way per run; the metric counts them all. */
export const UNCONFIRMED_SIGNUPS_LOGGED_PER_RUN = 20;

/**
 * Metrics published without the `service` dimension, so one alarm watches every function:
 * CloudWatch alarms cannot aggregate over a dimension (no SEARCH in alarms).
 */
export const ConnectorMetric = {
  /** The token secret is missing or the service refused the token; dimension `code`. */
  TokenProblems: 'TokenProblems',
  /** SyncFailed events by who has to act; dimension `class` (SYNC_FAILED_CLASSES). */
  SyncFailedByClass: 'SyncFailedByClass',
} as const;

export const TOKEN_PROBLEM_CODES = ['TOKEN_REJECTED', 'TOKEN_MISSING'] as const;

export type SyncFailedClass = 'operator' | 'partner';
export const SYNC_FAILED_CLASSES: readonly SyncFailedClass[] = ['operator', 'partner'];

/**
 * SyncFailed codes that the connector's operator has to act on (configuration, infrastructure,
 * a record that exhausted its retries, a service answer the connector cannot read); every other
 * code is about the event's own content and is the partner's to act on.
 */
const OPERATOR_CODES = new Set([
  'RETRIES_EXHAUSTED',
  'INVALID_CONFIGURATION',
  'REGION_NOT_AVAILABLE',
  'INVALID_HOSTNAME',
  'UNEXPECTED_RESPONSE',
  'SIGNUP_COMMITTED_UNCONFIRMED',
  'WRONG_ROUTE',
  'UNEXPECTED_SOURCE',
  // The intake (rule target or pipe) could not deliver a routable event: infrastructure.
  'INTAKE_UNDELIVERABLE',
  // Two deliveries of one account ran at once (a FIFO guarantee broken): infrastructure.
  'ORDER_CONFLICT',
]);

export function syncFailedClass(code: string): SyncFailedClass {
  return OPERATOR_CODES.has(code) ? 'operator' : 'partner';
}
