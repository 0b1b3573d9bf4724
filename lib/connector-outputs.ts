import { CfnOutput, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { ConnectorRefusalResources } from './connector-refusal.ts';
import type { ConnectorRouteResources } from './connector-route.ts';
import { type ConnectorScheduleResources, scheduleIdOf } from './connector-schedule.ts';
import type { ConnectorArchive } from './connector-state.ts';

/** What the outputs name: the parts a WorkforceConnector exposes. */
export interface ConnectorOutputSources {
  readonly eventBus: events.IEventBus;
  readonly table: dynamodb.ITable;
  readonly archive: ConnectorArchive;
  readonly alarmTopic: sns.ITopic;
  readonly dashboard: cloudwatch.Dashboard;
  readonly routes: readonly ConnectorRouteResources[];
  readonly refusal: ConnectorRefusalResources;
  readonly schedules: readonly ConnectorScheduleResources[];
}

/**
 * What operators and the tools need after a deploy, without digging in the console (the
 * runbook in docs/deploy.md names these outputs): the bus, the table, the archive, every queue
 * and dead-letter queue by route, the alarm topic and the dashboard. Made in `scope` itself (see
 * WorkforceConnector on why).
 */
export function addConnectorOutputs(scope: Construct, sources: ConnectorOutputSources): void {
  const output = (id: string, value: string, description: string) =>
    new CfnOutput(scope, id, { value, description });
  const { region } = Stack.of(scope);
  output('EventBusName', sources.eventBus.eventBusName, 'Bus the partner publishes to and hears from');
  output('TableName', sources.table.tableName, 'Connector table (mappings, idempotency, retry budgets)');
  output('ArchiveName', sources.archive.archiveName, 'Archive of inbound events (npm run replay)');
  output('AlarmTopicArn', sources.alarmTopic.topicArn, 'Alarm notifications');
  output(
    'DashboardUrl',
    `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#dashboards:name=${sources.dashboard.dashboardName}`,
    'CloudWatch dashboard',
  );
  for (const resources of sources.routes) {
    const id = resources.route.detailType;
    output(`${id}QueueUrl`, resources.queue.queueUrl, `${id} FIFO queue`);
    output(
      `${id}DeadLetterQueueUrl`,
      resources.deadLetterQueue.queueUrl,
      `${id} records that gave up (npm run redrive)`,
    );
    output(`${id}IntakeQueueUrl`, resources.intakeQueue.queueUrl, `${id} intake queue (rule → pipe)`);
    output(
      `${id}IntakeDeadLetterQueueUrl`,
      resources.intakeDeadLetterQueue.queueUrl,
      `${id} events not delivered or not forwarded (npm run redrive)`,
    );
  }
  output('RefusalQueueUrl', sources.refusal.queue.queueUrl, 'Refusal check queue (every inbound event)');
  output('RefusalDeadLetterQueueUrl', sources.refusal.deadLetterQueue.queueUrl, 'Refusal check dead letters');
  for (const schedule of sources.schedules) {
    output(
      `${scheduleIdOf(schedule.scheduled)}ScheduleDeadLetterQueueUrl`,
      schedule.deadLetterQueue.queueUrl,
      `${schedule.scheduled.functionName} runs EventBridge could not start`,
    );
  }
}
