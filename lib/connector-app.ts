import { type App, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { ConnectorConfig } from './config.ts';
import { ConnectorState } from './connector-state.ts';
import { applyConnectorNagSuppressions } from './nag-suppressions.ts';
import { WorkforceConnector, type WorkforceConnectorProps } from './workforce-connector.ts';

/**
 * The two stacks of the ready app: the stateful one (table, and the bus and secret when the config
 * creates them) and the service stack (everything else), so functions redeploy freely and a
 * `cdk destroy` of the service never touches data.
 */

export interface ConnectorStackProps extends StackProps {
  readonly config: ConnectorConfig;
}

export class ConnectorStatefulStack extends Stack {
  readonly state: ConnectorState;

  constructor(scope: Construct, id: string, props: ConnectorStackProps) {
    super(scope, id, props);
    const { config } = props;
    // Imported bus/secret are resolved by the service stack itself; only created ones live here.
    this.state = new ConnectorState(this, 'State', {
      removalPolicy: removalPolicyOf(config),
      archive: { inboundSource: config.inboundSource, retention: Duration.days(config.archiveRetentionDays) },
      ...('existingBusName' in config.eventBus
        ? {
            existingEventBusObj: events.EventBus.fromEventBusName(
              this,
              'ImportedBus',
              config.eventBus.existingBusName,
            ),
          }
        : config.eventBus.name
          ? { eventBusProps: { eventBusName: config.eventBus.name } }
          : {}),
      ...('existingSecretName' in config.tokenSecret
        ? {
            existingTokenSecretObj: secretsmanager.Secret.fromSecretNameV2(
              this,
              'ImportedTokenSecret',
              config.tokenSecret.existingSecretName,
            ),
          }
        : config.tokenSecret.name
          ? { tokenSecretProps: { secretName: config.tokenSecret.name } }
          : {}),
    });
    applyConnectorNagSuppressions(this);
  }
}

export interface ConnectorServiceStackProps extends ConnectorStackProps {
  readonly state: ConnectorState;
  /** Construct props applied over those the config gives (test fixtures: other routes). @default - none */
  readonly connectorOverrides?: Partial<WorkforceConnectorProps>;
}

export class ConnectorServiceStack extends Stack {
  readonly connector: WorkforceConnector;

  constructor(scope: Construct, id: string, props: ConnectorServiceStackProps) {
    super(scope, id, props);
    const { config, state } = props;
    const alarmTopic = config.alarms.topicArn
      ? sns.Topic.fromTopicArn(this, 'ImportedAlarmTopic', config.alarms.topicArn)
      : undefined;
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
      // Imports are re-made in this stack: an imported ARN built in the other stack would drag
      // that stack's pseudo parameters across as exports.
      existingTableObj: state.table,
      existingEventBusObj:
        'existingBusName' in config.eventBus
          ? events.EventBus.fromEventBusName(this, 'ImportedBus', config.eventBus.existingBusName)
          : state.eventBus,
      existingTokenSecretObj:
        'existingSecretName' in config.tokenSecret
          ? secretsmanager.Secret.fromSecretNameV2(
              this,
              'ImportedTokenSecret',
              config.tokenSecret.existingSecretName,
            )
          : state.tokenSecret,
      ...('existingSecretName' in config.tokenSecret && config.tokenSecret.kmsKeyArn
        ? { tokenSecretKmsKeyArn: config.tokenSecret.kmsKeyArn }
        : {}),
      ...(state.archive ? { existingArchive: state.archive } : {}),
      archiveRetention: Duration.days(config.archiveRetentionDays),
      ...(alarmTopic ? { existingAlarmTopicObj: alarmTopic } : {}),
      ...(config.alarms.email ? { alarmEmail: config.alarms.email } : {}),
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
      ...props.connectorOverrides,
    });
    applyConnectorNagSuppressions(this);
  }
}

function removalPolicyOf(config: ConnectorConfig): RemovalPolicy {
  return config.removalPolicy === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
}

export interface ConnectorStacks {
  readonly stateful: ConnectorStatefulStack;
  readonly service: ConnectorServiceStack;
}

/** Adds both stacks to `app`, named after the partner so several partners can share an account. */
export function addConnectorStacks(
  app: App,
  config: ConnectorConfig,
  props: StackProps = {},
  connectorOverrides: Partial<WorkforceConnectorProps> = {},
): ConnectorStacks {
  const prefix = `WorkforceConnector-${config.partnerName}`;
  const stateful = new ConnectorStatefulStack(app, `${prefix}-State`, {
    ...props,
    config,
    description: `Workforce connector (${config.partnerName}): table, bus and token secret`,
  });
  const service = new ConnectorServiceStack(app, `${prefix}-Service`, {
    ...props,
    config,
    state: stateful.state,
    connectorOverrides,
    description: `Workforce connector (${config.partnerName}): routes, functions, alarms, dashboard`,
  });
  return { stateful, service };
}
