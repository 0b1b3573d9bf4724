import { CfnOutput, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { ConnectorRefusalResources } from './connector-refusal.ts';
import type { ConnectorRouteResources } from './connector-route.ts';
import { type ConnectorScheduleResources, scheduleIdOf } from './connector-schedule.ts';
import type { ConnectorArchive } from './connector-state.ts';
import type { DeploymentNames } from './deployment-names.ts';

/**
 * The stack outputs operators and the tools need after a deploy, as one list (`connectorOutputs`):
 * the template's outputs are made from it, and `npm run policies` writes it into docs/deploy.md
 * ("Stack outputs"), so the two cannot drift (test/infra/outputs.test.ts). Each output's key is its
 * name (`EventBusName`, `AccountCreatedQueueUrl`), not CDK's construct path and hash: a runbook or
 * script reads `OutputKey == "TableName"`. With the deployment's names, each is also exported as
 * `WorkforceConnector-<deployment>-<stage>-<key>`, unique per account and region; no stack of the
 * connector imports them (an import would lock the output: see connector-app.ts).
 */

/** What the outputs name: the parts a WorkforceConnector exposes. */
export interface ConnectorOutputSources {
  readonly eventBus: events.IEventBus;
  readonly table: dynamodb.ITable;
  readonly tokenSecret: secretsmanager.ISecret;
  readonly archive: ConnectorArchive;
  readonly outboundArchive: ConnectorArchive;
  /** The page topic. */
  readonly alarmTopic: sns.ITopic;
  readonly ticketAlarmTopic: sns.ITopic;
  readonly dashboard: cloudwatch.Dashboard;
  readonly routes: readonly ConnectorRouteResources[];
  readonly refusal: ConnectorRefusalResources;
  readonly schedules: readonly ConnectorScheduleResources[];
  /** Present when the deployment forwards result events to other accounts. */
  readonly consumerDeadLetterQueue?: sqs.IQueue;
}

/** The parts of a deployment whose outputs have a key of their own. */
export interface OutputShape {
  /** Detail-types of the routes. */
  readonly routes: readonly string[];
  /** `scheduleIdOf` of each scheduled function (`TrialWatch`, …). */
  readonly schedules: readonly string[];
  /** Whether `consumers` is configured. */
  readonly consumers: boolean;
}

export interface ConnectorOutput {
  readonly key: string;
  readonly stack: 'State' | 'Service';
  readonly description: string;
  /** When the output exists only for some configs. */
  readonly when?: string;
}

interface ServiceOutput extends ConnectorOutput {
  readonly stack: 'Service';
  readonly value: (sources: ConnectorOutputSources) => string;
}

function serviceOutputs(shape: OutputShape): ServiceOutput[] {
  const output = (
    key: string,
    description: string,
    value: ServiceOutput['value'],
    when?: string,
  ): ServiceOutput => ({ key, stack: 'Service', description, value, ...(when ? { when } : {}) });
  const route = (sources: ConnectorOutputSources, detailType: string) => {
    const found = sources.routes.find((resources) => resources.route.detailType === detailType);
    if (!found) throw new Error(`no route ${detailType}`);
    return found;
  };
  const schedule = (sources: ConnectorOutputSources, id: string) => {
    const found = sources.schedules.find((resources) => scheduleIdOf(resources.scheduled) === id);
    if (!found) throw new Error(`no scheduled function ${id}`);
    return found;
  };
  return [
    output('EventBusName', 'Bus the partner publishes to and hears from', (s) => s.eventBus.eventBusName),
    output('EventBusArn', 'ARN of that bus (bus policies, consumer rules)', (s) => s.eventBus.eventBusArn),
    output('TableName', 'Connector table (mappings, idempotency, retry budgets)', (s) => s.table.tableName),
    output(
      'TokenSecretName',
      'Secret holding the service bearer token (put-secret-value)',
      (s) => s.tokenSecret.secretName,
    ),
    output('ArchiveName', 'Archive of inbound events (npm run replay)', (s) => s.archive.archiveName),
    output(
      'OutboundArchiveName',
      'Archive of result events (replay to one consumer rule)',
      (s) => s.outboundArchive.archiveName,
    ),
    output(
      'AlarmTopicArn',
      'Page alarm notifications (composite ConnectorPage)',
      (s) => s.alarmTopic.topicArn,
    ),
    output(
      'TicketAlarmTopicArn',
      'Ticket alarm notifications (composites <Route>Health, ConnectorTicket)',
      (s) => s.ticketAlarmTopic.topicArn,
    ),
    output('DashboardUrl', 'CloudWatch dashboard', (s) => {
      const { region } = Stack.of(s.dashboard);
      return `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#dashboards:name=${s.dashboard.dashboardName}`;
    }),
    ...shape.routes.flatMap((id) => [
      output(`${id}QueueUrl`, `${id} FIFO queue`, (s) => route(s, id).queue.queueUrl),
      output(
        `${id}DeadLetterQueueUrl`,
        `${id} records that gave up (npm run redrive)`,
        (s) => route(s, id).deadLetterQueue.queueUrl,
      ),
      output(
        `${id}IntakeQueueUrl`,
        `${id} intake queue (rule → pipe)`,
        (s) => route(s, id).intakeQueue.queueUrl,
      ),
      output(
        `${id}IntakeDeadLetterQueueUrl`,
        `${id} events not delivered or not forwarded (npm run redrive)`,
        (s) => route(s, id).intakeDeadLetterQueue.queueUrl,
      ),
    ]),
    output('RefusalQueueUrl', 'Refusal check queue (every inbound event)', (s) => s.refusal.queue.queueUrl),
    output(
      'RefusalDeadLetterQueueUrl',
      'Refusal check dead letters',
      (s) => s.refusal.deadLetterQueue.queueUrl,
    ),
    ...shape.schedules.map((id) =>
      output(
        `${id}ScheduleDeadLetterQueueUrl`,
        `${id} runs EventBridge could not start`,
        (s) => schedule(s, id).deadLetterQueue.queueUrl,
      ),
    ),
    ...(shape.consumers
      ? [
          output(
            'ConsumerDeliveryDeadLetterQueueUrl',
            'Result events EventBridge could not deliver to a consumer bus',
            (s) => {
              if (!s.consumerDeadLetterQueue) throw new Error('no consumer dead-letter queue');
              return s.consumerDeadLetterQueue.queueUrl;
            },
            'consumers configured',
          ),
        ]
      : []),
  ];
}

/** Every output of both stacks, in template order: the list docs/deploy.md shows. */
export function connectorOutputs(shape: OutputShape): ConnectorOutput[] {
  return [
    ...serviceOutputs(shape).map(({ value: _value, ...rest }) => rest),
    {
      key: 'TokenSecretArn',
      stack: 'State',
      description: 'Full ARN of the token secret the stack created',
      when: 'tokenSecret.create',
    },
  ];
}

function addOutput(
  scope: Construct,
  output: ConnectorOutput,
  value: string,
  exportOf: ((key: string) => string) | undefined,
): void {
  const made = new CfnOutput(scope, output.key, {
    value,
    description: output.description,
    ...(exportOf ? { exportName: exportOf(output.key) } : {}),
  });
  // The key is the name itself (see above); one connector per stack.
  made.overrideLogicalId(output.key);
}

/** The Service stack's outputs, made in `scope` itself (see WorkforceConnector on why). */
export function addConnectorOutputs(
  scope: Construct,
  sources: ConnectorOutputSources,
  names?: Pick<DeploymentNames, 'exportOf'>,
): void {
  const shape: OutputShape = {
    routes: sources.routes.map((resources) => resources.route.detailType),
    schedules: sources.schedules.map((resources) => scheduleIdOf(resources.scheduled)),
    consumers: sources.consumerDeadLetterQueue !== undefined,
  };
  for (const output of serviceOutputs(shape))
    addOutput(scope, output, output.value(sources), names?.exportOf);
}

/** The State stack's outputs: the full ARN of a created token secret (an imported one has none). */
export function addStateOutputs(
  scope: Construct,
  sources: {
    readonly tokenSecret: secretsmanager.ISecret;
    readonly names: Pick<DeploymentNames, 'exportOf'>;
  },
): void {
  const { secretFullArn } = sources.tokenSecret;
  const output = connectorOutputs({ routes: [], schedules: [], consumers: false }).find(
    (candidate) => candidate.key === 'TokenSecretArn',
  );
  if (secretFullArn && output) addOutput(scope, output, secretFullArn, sources.names.exportOf);
}
