import type { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

/**
 * The metrics the functions publish (functions/runtime/metric-names.ts), as the alarms and the
 * dashboard read them.
 */

/** A connector-wide metric (metric-names.ts, ConnectorMetric: one dimension, no service), summed. */
export function connectorMetric(
  namespace: string,
  metricName: string,
  dimensionsMap: Record<string, string>,
  period: Duration,
  label?: string,
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace,
    metricName,
    dimensionsMap,
    statistic: 'Sum',
    period,
    ...(label ? { label } : {}),
  });
}

/** A connector metric of one function (its Powertools `service` dimension), summed. */
export function serviceMetric(
  namespace: string,
  metricName: string,
  service: string,
  period: Duration,
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace,
    metricName,
    dimensionsMap: { service },
    statistic: 'Sum',
    period,
  });
}
