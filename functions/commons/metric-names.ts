/**
 * The connector's metric names and namespace: what the functions publish (observability.ts) and
 * what the stack's alarms and dashboard watch (lib/). Kept apart from observability.ts so the CDK
 * app reads the names without constructing the functions' Logger and Metrics.
 */

export const DEFAULT_METRICS_NAMESPACE = 'WorkforceConnector';

/** Metric names published by the runtime; dashboards and alarms in `lib/` refer to these. */
export const MetricName = {
  RecordsProcessed: 'RecordsProcessed',
  RecordsFailed: 'RecordsFailed',
  SyncFailed: 'SyncFailed',
  ServiceCalls: 'ServiceCalls',
  ServiceRetries: 'ServiceRetries',
  EventsPublished: 'EventsPublished',
  /** Events a route received that the refusal rule answers (no usable accountId, no route). */
  RefusedByRule: 'RefusedByRule',
  /** Events the refusal function refused with SyncFailed. */
  EventsRefused: 'EventsRefused',
} as const;
