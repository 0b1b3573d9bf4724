import { Annotations, type App, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { adoptedTableProblems, readTableDescription } from './adopted-table.ts';
import { type ConnectorConfig, ConnectorConfigError } from './config.ts';
import { runbookBaseUrlOf } from './config-alarms.ts';
import { addStateOutputs } from './connector-outputs.ts';
import { addPublisherPolicies } from './connector-publishers.ts';
import { ConnectorState } from './connector-state.ts';
import { namesOf, stateNamesOf } from './deployment-names.ts';
import { applyConnectorNagSuppressions } from './nag-suppressions.ts';
import { WorkforceConnector, type WorkforceConnectorProps } from './workforce-connector.ts';

/**
 * The two stacks of the ready app: the stateful one (table, bus, token secret, archives, the bus
 * policy for other accounts' publishers) and the service stack (everything else).
 *
 * No cross-stack export ties them: the service stack finds the table, bus, secret and archives by
 * the names the config gives them (lib/deployment-names.ts), as it finds adopted ones. An export
 * another stack imports cannot change or go while imported (AWS CloudFormation user guide,
 * "Fn::ImportValue": "You can't modify or remove an output value that is referenced by another
 * stack", https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/intrinsic-function-reference-importvalue.html),
 * which would lock the State stack against every change of those resources. The service
 * stack depends on the state stack for the deploy order only.
 */

export interface ConnectorStackProps extends StackProps {
  readonly config: ConnectorConfig;
}

export class ConnectorStatefulStack extends Stack {
  readonly state: ConnectorState;

  constructor(scope: Construct, id: string, props: ConnectorStackProps) {
    super(scope, id, props);
    const { config } = props;
    const names = namesOf(config);
    const stateNames = stateNamesOf(config, names);
    const adoptedTable = config.state.existingTableName;
    if (adoptedTable !== undefined) checkAdoptedTable(this, config, adoptedTable);
    this.state = new ConnectorState(this, 'State', {
      removalPolicy: removalPolicyOf(config),
      // Kept archives are found by their names (the Service stack's outputs); none is made again.
      ...(config.state.existingArchives
        ? {}
        : {
            archive: {
              inboundSource: config.inboundSource,
              retention: Duration.days(config.archiveRetentionDays),
              archiveName: names.inboundArchive,
            },
            outboundArchive: {
              outboundSource: config.outboundSource,
              retention: Duration.days(config.outboundArchiveRetentionDays),
              archiveName: names.outboundArchive,
            },
          }),
      ...(adoptedTable !== undefined
        ? { existingTableObj: dynamodb.Table.fromTableName(this, 'AdoptedTable', adoptedTable) }
        : { tableProps: { tableName: stateNames.tableName } }),
      ...('existingBusName' in config.eventBus
        ? {
            existingEventBusObj: events.EventBus.fromEventBusName(
              this,
              'ImportedBus',
              config.eventBus.existingBusName,
            ),
          }
        : { eventBusProps: { eventBusName: stateNames.eventBusName } }),
      ...('existingSecretName' in config.tokenSecret
        ? {
            existingTokenSecretObj: secretsmanager.Secret.fromSecretNameV2(
              this,
              'ImportedTokenSecret',
              config.tokenSecret.existingSecretName,
            ),
          }
        : { tokenSecretProps: { secretName: stateNames.tokenSecretName } }),
    });
    if (config.publishers) {
      addPublisherPolicies(this, this.state.eventBus, config.publishers, config.inboundSource);
    }
    addStateOutputs(this, { tokenSecret: this.state.tokenSecret, names });
    applyConnectorNagSuppressions(this);
  }
}

/**
 * The adopted table's description checked against what the code needs (lib/adopted-table.ts), or a
 * warning that it was not: synth is offline and cannot look.
 */
function checkAdoptedTable(stack: Stack, config: ConnectorConfig, tableName: string): void {
  const file = config.state.existingTableDescription;
  if (file === undefined) {
    Annotations.of(stack).addWarningV2(
      'workforce-connector:adopted-table-unchecked',
      `state.existingTableName ${tableName}: its keys and indexes are not checked; save \`aws dynamodb describe-table --table-name ${tableName}\` and name the file in state.existingTableDescription (docs/deploy.md, "Teardown and restore")`,
    );
    return;
  }
  const problems = adoptedTableProblems(readTableDescription(file, process.cwd()), {
    tableName,
    ...(config.account ? { account: config.account } : {}),
    ...(config.region ? { region: config.region } : {}),
  });
  if (problems.length > 0) {
    throw new ConnectorConfigError(
      `state.existingTableDescription ${file}`,
      problems.map((problem) => `table ${tableName}: ${problem}`),
    );
  }
}

export interface ConnectorServiceStackProps extends ConnectorStackProps {
  /** Construct props applied over those the config gives (test fixtures: other routes). @default - none */
  readonly connectorOverrides?: Partial<WorkforceConnectorProps>;
}

export class ConnectorServiceStack extends Stack {
  readonly connector: WorkforceConnector;

  constructor(scope: Construct, id: string, props: ConnectorServiceStackProps) {
    super(scope, id, props);
    const { config } = props;
    const names = namesOf(config);
    const stateNames = stateNamesOf(config, names);
    const alarmTopic = config.alarms.topicArn
      ? sns.Topic.fromTopicArn(this, 'ImportedAlarmTopic', config.alarms.topicArn)
      : undefined;
    const ticketTopic = config.alarms.ticketTopicArn
      ? sns.Topic.fromTopicArn(this, 'ImportedTicketAlarmTopic', config.alarms.ticketTopicArn)
      : undefined;
    const archiveArn = (archiveName: string) =>
      this.formatArn({ service: 'events', resource: 'archive', resourceName: archiveName });
    this.connector = new WorkforceConnector(this, 'Connector', {
      partnerName: config.partnerName,
      provisioningUrls: config.provisioningUrls,
      installUrlTemplate: config.installUrlTemplate,
      // Required by the config outside local runs; the local runtime's config names the sandbox's.
      allowedHostnameSuffixes: config.allowedHostnameSuffixes ?? [],
      hourBudgetType: config.hourBudgetType,
      inboundSource: config.inboundSource,
      outboundSource: config.outboundSource,
      trialThresholdsDays: config.trialThresholdsDays,
      driftCheckEveryHours: config.driftWatch.everyHours,
      schedules: {
        'trial-watch': events.Schedule.expression(config.trialWatchSchedule),
        'drift-watch': events.Schedule.expression(config.driftWatch.schedule),
      },
      routeOverrides: config.routes,
      // The state by name (see above): nothing of the State stack is exported to this one.
      existingTableObj: dynamodb.Table.fromTableName(this, 'ImportedTable', stateNames.tableName),
      existingEventBusObj: events.EventBus.fromEventBusName(this, 'ImportedBus', stateNames.eventBusName),
      existingTokenSecretObj: secretsmanager.Secret.fromSecretNameV2(
        this,
        'ImportedTokenSecret',
        stateNames.tokenSecretName,
      ),
      ...('existingSecretName' in config.tokenSecret && config.tokenSecret.kmsKeyArn
        ? { tokenSecretKmsKeyArn: config.tokenSecret.kmsKeyArn }
        : {}),
      existingArchive: { archiveName: names.inboundArchive, archiveArn: archiveArn(names.inboundArchive) },
      existingOutboundArchive: {
        archiveName: names.outboundArchive,
        archiveArn: archiveArn(names.outboundArchive),
      },
      archiveRetention: Duration.days(config.archiveRetentionDays),
      names,
      ...(alarmTopic ? { existingAlarmTopicObj: alarmTopic } : {}),
      ...(config.alarms.email ? { alarmEmail: config.alarms.email } : {}),
      ...(ticketTopic ? { existingTicketTopicObj: ticketTopic } : {}),
      ...(config.alarms.ticketEmail ? { ticketEmail: config.alarms.ticketEmail } : {}),
      runbookBaseUrl: requiredRunbookBaseUrl(config),
      alarmDatapointsToAlarm: config.alarms.datapointsToAlarm,
      alarmEvaluationPeriods: config.alarms.evaluationPeriods,
      partnerSyncFailedPerHour: config.alarms.partnerSyncFailedPerHour,
      logRetention: config.logRetentionDays as logs.RetentionDays,
      logLevel: config.logLevel,
      ...(config.httpTimeoutMs !== undefined ? { httpTimeoutMs: config.httpTimeoutMs } : {}),
      ...(config.idempotencyTtlSeconds !== undefined
        ? { idempotencyTtlSeconds: config.idempotencyTtlSeconds }
        : {}),
      ...(config.metricsBulkThreshold !== undefined
        ? { metricsBulkThreshold: config.metricsBulkThreshold }
        : {}),
      ...(config.referenceCacheMaxAgeSeconds !== undefined
        ? { referenceCacheMaxAgeSeconds: config.referenceCacheMaxAgeSeconds }
        : {}),
      ...(config.serviceAssumptions ? { serviceAssumptions: config.serviceAssumptions } : {}),
      ...(config.requestBudget !== undefined ? { requestBudget: config.requestBudget } : {}),
      locationLookupResource: config.locationLookupResource,
      areaLookupResource: config.areaLookupResource,
      consumers: config.consumers,
      ...props.connectorOverrides,
    });
    applyConnectorNagSuppressions(this);
  }
}

/**
 * The absolute URL alarm descriptions link: `alarms.runbookBaseUrl`, else the docs of the GitHub
 * repository package.json names; without either, synth stops (a relative link in an alarm e-mail
 * opens nothing).
 */
function requiredRunbookBaseUrl(config: ConnectorConfig): string {
  const url = runbookBaseUrlOf(config.alarms);
  if (url === undefined) {
    throw new ConnectorConfigError('alarms', [
      'alarms.runbookBaseUrl: is required (package.json names no GitHub repository to link): the https URL of the published docs folder, e.g. https://github.com/<owner>/<repo>/blob/main/docs',
    ]);
  }
  return url;
}

function removalPolicyOf(config: ConnectorConfig): RemovalPolicy {
  return config.removalPolicy === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
}

export interface ConnectorStacks {
  readonly stateful: ConnectorStatefulStack;
  readonly service: ConnectorServiceStack;
}

/**
 * Adds both stacks to `app`, named after the deployment and stage so that several partners and
 * stages share an account. Their environment is `props.env`, else the config's account and region.
 */
export function addConnectorStacks(
  app: App,
  config: ConnectorConfig,
  props: StackProps = {},
  connectorOverrides: Partial<WorkforceConnectorProps> = {},
): ConnectorStacks {
  const names = namesOf(config);
  const env = props.env ?? { account: config.account, region: config.region };
  const label = `${config.deploymentName ?? config.partnerName}, stage ${config.stage}`;
  const stateful = new ConnectorStatefulStack(app, names.stateStack, {
    ...props,
    env,
    config,
    description: `Workforce connector (${label}): table, bus, token secret, archives`,
  });
  const service = new ConnectorServiceStack(app, names.serviceStack, {
    ...props,
    env,
    config,
    connectorOverrides,
    description: `Workforce connector (${label}): routes, functions, alarms, dashboard`,
  });
  service.addDependency(stateful, 'the service stack finds the table, bus and secret by name');
  return { stateful, service };
}
