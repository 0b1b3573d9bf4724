import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import {
  ConnectorMetric,
  MetricName,
  TOKEN_PROBLEM_CODES,
  UNCONFIRMED_SIGNUP_LOG_MESSAGE,
  UNCONFIRMED_SIGNUPS_LOGGED_PER_RUN,
} from '#functions/runtime/metric-names.ts';
import { connectorMetric, serviceMetric } from './connector-metrics.ts';
import type { ConnectorRouteResources } from './connector-route.ts';
import type { ConnectorScheduleResources } from './connector-schedule.ts';

export interface ConnectorDashboardProps {
  readonly namespace: string;
  /** @default - CloudFormation's generated name */
  readonly dashboardName?: string;
  readonly routes: readonly ConnectorRouteResources[];
  readonly schedules: readonly ConnectorScheduleResources[];
}

/**
 * The connector's dashboard (`Dashboard` in `scope`): SyncFailed and token problems, every
 * connector metric, then per route its queues, function and records, the drift watch's unconfirmed
 * signups and per scheduled function its runs.
 */
export function createConnectorDashboard(
  scope: Construct,
  props: ConnectorDashboardProps,
): cloudwatch.Dashboard {
  const { namespace } = props;
  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', {
    ...(props.dashboardName ? { dashboardName: props.dashboardName } : {}),
    defaultInterval: Duration.hours(3),
  });
  const period = Duration.minutes(5);
  dashboard.addWidgets(
    new cloudwatch.GraphWidget({
      title: 'SyncFailed by class, token problems',
      left: [
        ...(['operator', 'partner'] as const).map((value) =>
          connectorMetric(
            namespace,
            ConnectorMetric.SyncFailedByClass,
            { class: value },
            period,
            `SyncFailed (${value})`,
          ),
        ),
        ...TOKEN_PROBLEM_CODES.map((code) =>
          connectorMetric(namespace, ConnectorMetric.TokenProblems, { code }, period, code),
        ),
      ],
      width: 12,
    }),
    new cloudwatch.GraphWidget({
      title: `Connector metrics (${namespace})`,
      left: Object.values(MetricName).map(
        (name) =>
          new cloudwatch.MathExpression({
            expression: `SUM(SEARCH('{${namespace},service} MetricName="${name}"', 'Sum', 300))`,
            label: name,
            period,
          }),
      ),
      width: 12,
    }),
  );
  for (const { route, queue, deadLetterQueue, intakeDeadLetterQueue, function: fn } of props.routes) {
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: `${route.detailType}: queue`,
        left: [
          queue.metricApproximateNumberOfMessagesVisible({ period }),
          deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, label: 'Dead letters' }),
          intakeDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period,
            label: 'Intake dead letters',
          }),
        ],
        right: [queue.metricApproximateAgeOfOldestMessage({ period })],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: `${route.detailType}: function`,
        left: [fn.metricInvocations({ period }), fn.metricErrors({ period }), fn.metricThrottles({ period })],
        right: [fn.metricDuration({ period, statistic: 'p99' })],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: `${route.detailType}: records (${route.functionName})`,
        left: [
          MetricName.RecordsProcessed,
          MetricName.RecordsFailed,
          MetricName.RecordsWaiting,
          MetricName.RecordsGaveUp,
          MetricName.SyncFailed,
        ].map(
          (name) =>
            new cloudwatch.MathExpression({
              expression: `SUM(SEARCH('{${namespace},service} MetricName="${name}" service="${route.functionName}"', 'Sum', 300))`,
              label: name,
              period,
            }),
        ),
        width: 8,
      }),
    );
  }
  // Signups whose answer was lost (UNCONFIRMED): the drift watch counts them on every run and
  // logs the oldest one line each, which the list below reads.
  const driftWatch = props.schedules.find(({ scheduled }) => scheduled.functionName === 'drift-watch');
  if (driftWatch) {
    const service = driftWatch.scheduled.functionName;
    dashboard.addWidgets(
      new cloudwatch.SingleValueWidget({
        title: 'Unconfirmed signups (npm run signups -- --unconfirmed; runbook in docs/deploy.md)',
        metrics: [
          new cloudwatch.Metric({
            namespace,
            metricName: MetricName.UnconfirmedSignups,
            dimensionsMap: { service },
            statistic: 'Maximum',
            period: Duration.hours(1),
            label: 'Unconfirmed signups',
          }),
        ],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Drift: changes the service made on its own',
        left: [MetricName.BusinessEditionChangedAnnounced, MetricName.BusinessGoneAnnounced].map((name) =>
          serviceMetric(namespace, name, service, Duration.hours(1)),
        ),
        width: 16,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.LogQueryWidget({
        title: `Unconfirmed signups, the oldest ${UNCONFIRMED_SIGNUPS_LOGGED_PER_RUN} of each run (lastListed before the latest run: resolved since; runbook in docs/deploy.md)`,
        logGroupNames: [driftWatch.function.functionLogGroup.logGroupName],
        view: cloudwatch.LogQueryVisualizationType.TABLE,
        queryLines: unconfirmedSignupsQuery(),
        width: 24,
        height: 6,
      }),
    );
  }
  for (const { scheduled, function: fn } of props.schedules) {
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: `${scheduled.functionName}: function`,
        left: [fn.metricInvocations({ period }), fn.metricErrors({ period }), fn.metricThrottles({ period })],
        right: [fn.metricDuration({ period, statistic: 'Maximum' })],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: `${scheduled.functionName}: items a run could not check, left to the budget, or left due`,
        left: [scheduled.failureMetric, scheduled.throttledMetric, scheduled.remainingMetric]
          .filter((name) => name !== undefined)
          .map((name) => serviceMetric(namespace, name, scheduled.functionName, Duration.hours(1))),
        width: 12,
      }),
    );
  }
  return dashboard;
}

/**
 * The drift watch's latest list of unconfirmed signups (its `unconfirmed signup` log lines): one
 * row per account, newest listing first. Account ids, dates, region and an error code only.
 */
function unconfirmedSignupsQuery(): string[] {
  return [
    'fields @timestamp, accountId, since, region, lastErrorCode',
    `filter message = "${UNCONFIRMED_SIGNUP_LOG_MESSAGE}"`,
    'stats latest(since) as unconfirmedSince, latest(region) as signupRegion, latest(lastErrorCode) as lastError, max(@timestamp) as lastListed by accountId',
    'sort lastListed desc',
    'limit 100',
  ];
}
