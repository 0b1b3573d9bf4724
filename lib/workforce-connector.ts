import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { DEFAULT_INBOUND_SOURCE, DEFAULT_OUTBOUND_SOURCE } from '#functions/contracts/source.ts';
import {
  queueRoutes as defaultQueueRoutes,
  refusalFunction as defaultRefusalFunction,
  scheduledFunctions as defaultScheduledFunctions,
  type QueueRoute,
  type RefusalFunction,
  type ScheduledFunction,
} from '#functions/routes.ts';
import { DEFAULT_METRICS_NAMESPACE } from '#functions/runtime/metric-names.ts';
import type { ServiceAssumptionsInput } from '#functions/service/assumptions.ts';
import { DEFAULT_TIMEOUT_MS } from '#functions/service/http.ts';
import type { RequestBudgetSettingsInput } from '#functions/store/request-budget.ts';
import { ConnectorAlarms } from './connector-alarms.ts';
import {
  addConsumerRules,
  type ConnectorConsumer,
  type ConnectorConsumerResources,
} from './connector-consumers.ts';
import { createConnectorDashboard } from './connector-dashboard.ts';
import { connectorEnvironment } from './connector-environment.ts';
import type { ConnectorFunctionDefaults } from './connector-function.ts';
import { addConnectorOutputs } from './connector-outputs.ts';
import { ConnectorRefusal, type ConnectorRefusalResources } from './connector-refusal.ts';
import { ConnectorRoute, type ConnectorRouteResources, type RouteOverride } from './connector-route.ts';
import { ConnectorSchedule, type ConnectorScheduleResources } from './connector-schedule.ts';
import { type ConnectorArchive, ConnectorState } from './connector-state.ts';
import type { DeploymentNames } from './deployment-names.ts';

// The types of the construct's props and fields, for apps that import the construct from here.
export type { ConnectorRefusalResources } from './connector-refusal.ts';
export type { ConnectorRouteResources, RouteOverride } from './connector-route.ts';
export type { ConnectorScheduleResources } from './connector-schedule.ts';

export interface WorkforceConnectorProps {
  /** The partner name the service assigned (provisioning path `/connect/v1/partner/{name}`). */
  readonly partnerName: string;
  /** Provisioning root per region; UK and AU are still in development at the service. */
  readonly provisioningUrls: { readonly US: string; readonly UK?: string; readonly AU?: string };
  /** @default 'https://{hostname}' */
  readonly installUrlTemplate?: string;
  /**
   * DNS suffixes of the service's install hostnames: the bearer token goes only to hostnames ending
   * in one of these (required: an install hostname comes from the service's answer).
   */
  readonly allowedHostnameSuffixes: readonly string[];
  /** The metric `type` of hour budgets (the spec names both). @default - the functions' default */
  readonly hourBudgetType?: 'budget_StaffHour' | 'budget_hour';
  /** @default 'partner.app' */
  readonly inboundSource?: string;
  /** @default 'workforce.connector' */
  readonly outboundSource?: string;
  /** @default [7, 3, 1] */
  readonly trialThresholdsDays?: readonly number[];
  /** Every tracked business is compared with the service this often (drift watch). @default 24 */
  readonly driftCheckEveryHours?: number;
  /** Schedule per scheduled function name. @default - each function's `defaultSchedule` */
  readonly schedules?: Readonly<Record<string, events.Schedule>>;
  /** Per detail-type tuning on top of the route table. @default - none */
  readonly routeOverrides?: Readonly<Record<string, RouteOverride>>;

  /** @default - a bus is created */
  readonly existingEventBusObj?: events.IEventBus;
  /** @default - a generated name */
  readonly eventBusProps?: events.EventBusProps;
  /** @default - a table is created from `tableDefinition` */
  readonly existingTableObj?: dynamodb.ITable;
  /** @default - none */
  readonly tableProps?: Partial<dynamodb.TableProps>;
  /** @default - a secret is created (with a placeholder value) */
  readonly existingTokenSecretObj?: secretsmanager.ISecret;
  /** @default - a generated name */
  readonly tokenSecretProps?: { secretName?: string };
  /**
   * The customer managed KMS key an existing token secret (`existingTokenSecretObj`) is encrypted
   * with: the functions that read the token get kms:Decrypt on it, through Secrets Manager only.
   * @default - the secret's own `encryptionKey`, if any (none for a secret imported by name)
   */
  readonly tokenSecretKmsKeyArn?: string;
  /** @default - an archive of the inbound events is created on the bus */
  readonly existingArchive?: ConnectorArchive;
  /** How long the archive keeps inbound events for a replay. @default Duration.days(30) */
  readonly archiveRetention?: Duration;
  /** @default - an archive of the result events (outbound source) is created on the bus */
  readonly existingOutboundArchive?: ConnectorArchive;
  /** How long the outbound archive keeps result events. @default Duration.days(30) */
  readonly outboundArchiveRetention?: Duration;
  /**
   * The deployment's names (lib/deployment-names.ts): alarm and dashboard names, the metric
   * namespace, the outputs' export names. @default - generated names, the default namespace, no exports
   */
  readonly names?: DeploymentNames;
  /** Other accounts' buses that hear the result events (connector-consumers.ts). @default - none */
  readonly consumers?: readonly ConnectorConsumer[];
  /** The page alarm topic (docs/deploy.md, "Alarms"). @default - a KMS-encrypted topic is created */
  readonly existingAlarmTopicObj?: sns.ITopic;
  /** E-mail subscribed to a created page topic. @default - no subscription (synth warns) */
  readonly alarmEmail?: string;
  /** The ticket alarm topic. @default - a KMS-encrypted topic is created */
  readonly existingTicketTopicObj?: sns.ITopic;
  /** E-mail subscribed to a created ticket topic. @default - no subscription (synth warns) */
  readonly ticketEmail?: string;
  /**
   * Where docs/deploy.md is published, without the file name: every alarm's description links
   * `<base>/deploy.md#alarms-…` (an absolute URL an operator can open from the notification).
   */
  readonly runbookBaseUrl: string;
  /** M of the M-of-N alarms (those a single datapoint does not make mean loss). @default 3 */
  readonly alarmDatapointsToAlarm?: number;
  /** N of the M-of-N alarms. @default 5 */
  readonly alarmEvaluationPeriods?: number;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** Of the stateful resources this construct creates (table, bus, secret). @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** @default 'INFO' */
  readonly logLevel?: string;
  /** @default - the functions' default */
  readonly httpTimeoutMs?: number;
  /** What the service client assumes where the spec is silent. @default - the functions' defaults */
  readonly serviceAssumptions?: ServiceAssumptionsInput;
  /**
   * The request budget every service call takes from (rates and bursts per provisioning root, per
   * install and optionally overall), or 'off'. @default - the functions' default (docs/performance.md)
   */
  readonly requestBudget?: RequestBudgetSettingsInput | 'off';
  /** @default - the functions' default */
  readonly idempotencyTtlSeconds?: number;
  /** @default - the functions' default */
  readonly metricsBulkThreshold?: number;
  /** Seconds cached countries and states of an install are used before a new read. @default - the functions' default (7 days) */
  readonly referenceCacheMaxAgeSeconds?: number;
  /**
   * QUERY resource the functions read locations from when a location create's answer was lost
   * (matched on CompanyName and Code); '' disables the lookup. @default 'Company'
   */
  readonly locationLookupResource?: string;
  /** The same for areas (matched on Company and OperationalUnitName). @default 'OperationalUnit' */
  readonly areaLookupResource?: string;
  /** @default - `names.metricsNamespace`, else 'WorkforceConnector' */
  readonly metricsNamespace?: string;
  /** Alarm when a route's oldest queued record is older than this. @default Duration.minutes(30) */
  readonly queueAgeAlarmThreshold?: Duration;
  /** SyncFailed events of the partner-data class per hour before an alarm. @default 10 */
  readonly partnerSyncFailedPerHour?: number;
  /** @default the route table of `functions/routes.ts` */
  readonly queueRoutes?: readonly QueueRoute[];
  /** @default the scheduled functions of `functions/routes.ts` */
  readonly scheduledFunctions?: readonly ScheduledFunction[];
  /** @default the refusal function of `functions/routes.ts` */
  readonly refusalFunction?: RefusalFunction;
}

/**
 * The connector, deployable into any CDK app: for each route of `functions/routes.ts`, an
 * EventBridge rule (source + detail-type) feeding an SQS FIFO queue per account (message group =
 * `detail.accountId`, deduplication = event id) and its function; the scheduled trial watch; the
 * table, bus and token secret (created or imported); alarms, paging and ticketing through composite
 * alarms on two SNS topics; a dashboard.
 *
 * Why a standard intake queue and a pipe between rule and FIFO queue: an EventBridge rule's SQS
 * target takes only a fixed `MessageGroupId` (no JSON path; see aws/aws-cdk#32965 and the
 * CloudFormation roadmap #2298), which would put every account in one message group and
 * serialize the whole connector. EventBridge Pipes resolve `$.body.detail.accountId` and
 * `$.body.id` per message, so ordering is per account and deduplication is on the event id
 * itself (content-based deduplication stays off).
 *
 * Why the parts (connector-route.ts, connector-refusal.ts, connector-schedule.ts,
 * connector-alarms.ts, connector-dashboard.ts, connector-outputs.ts) make their resources in this
 * construct's scope instead of being constructs of their own: a resource's logical ID is made from
 * its construct path (AWS CDK Developer Guide, "Identifiers", Logical IDs), and CloudFormation
 * takes a changed logical ID for a new resource, replacing the old one. A construct per part would
 * add its id to every path: a deployed stack would lose its queues, with their messages, on update.
 * The parts are made in the order the template lists them (resources come out in the order they
 * are made), so moving code between parts leaves the template as it was, byte for byte.
 */
export class WorkforceConnector extends Construct {
  readonly table: dynamodb.ITable;
  readonly eventBus: events.IEventBus;
  readonly tokenSecret: secretsmanager.ISecret;
  /** The archive of inbound events that `npm run replay` replays from. */
  readonly archive: ConnectorArchive;
  /** The archive of result events (replays to one consumer rule). */
  readonly outboundArchive: ConnectorArchive;
  /** Rules forwarding result events to other accounts, and their dead-letter queue. */
  readonly consumers: ConnectorConsumerResources;
  readonly routes: readonly ConnectorRouteResources[];
  readonly refusal: ConnectorRefusalResources;
  readonly schedules: readonly ConnectorScheduleResources[];
  /** The page topic. */
  readonly alarmTopic: sns.ITopic;
  readonly ticketAlarmTopic: sns.ITopic;
  readonly alarmTopicKey?: kms.Key;
  /** The metric alarms (no actions of their own). */
  readonly alarms: readonly cloudwatch.Alarm[];
  /** The composite alarms: per route, and the connector's page and ticket ones. */
  readonly compositeAlarms: readonly cloudwatch.CompositeAlarm[];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: WorkforceConnectorProps) {
    super(scope, id);
    const inboundSource = props.inboundSource ?? DEFAULT_INBOUND_SOURCE;
    const archiveRetention = props.archiveRetention ?? Duration.days(30);
    const outboundSource = props.outboundSource ?? DEFAULT_OUTBOUND_SOURCE;
    const state = new ConnectorState(this, 'State', {
      ...(props.removalPolicy ? { removalPolicy: props.removalPolicy } : {}),
      ...(props.existingEventBusObj ? { existingEventBusObj: props.existingEventBusObj } : {}),
      ...(props.eventBusProps ? { eventBusProps: props.eventBusProps } : {}),
      ...(props.existingTableObj ? { existingTableObj: props.existingTableObj } : {}),
      ...(props.tableProps ? { tableProps: props.tableProps } : {}),
      ...(props.existingTokenSecretObj ? { existingTokenSecretObj: props.existingTokenSecretObj } : {}),
      ...(props.tokenSecretProps ? { tokenSecretProps: props.tokenSecretProps } : {}),
      ...(props.existingArchive
        ? { existingArchive: props.existingArchive }
        : { archive: { inboundSource, retention: archiveRetention } }),
      ...(props.existingOutboundArchive
        ? {}
        : {
            outboundArchive: {
              outboundSource,
              retention: props.outboundArchiveRetention ?? Duration.days(30),
            },
          }),
    });
    this.table = state.table;
    this.eventBus = state.eventBus;
    this.tokenSecret = state.tokenSecret;
    if (!state.archive) throw new Error('the connector state has no archive');
    this.archive = state.archive;
    const outboundArchive = props.existingOutboundArchive ?? state.outboundArchive;
    if (!outboundArchive) throw new Error('the connector state has no outbound archive');
    this.outboundArchive = outboundArchive;

    const namespace = props.metricsNamespace ?? props.names?.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;
    const alarms = new ConnectorAlarms(this, {
      ...(props.names ? { alarmName: props.names.alarm } : {}),
      page: {
        ...(props.existingAlarmTopicObj ? { existingTopicObj: props.existingAlarmTopicObj } : {}),
        ...(props.alarmEmail ? { email: props.alarmEmail } : {}),
      },
      ticket: {
        ...(props.existingTicketTopicObj ? { existingTopicObj: props.existingTicketTopicObj } : {}),
        ...(props.ticketEmail ? { email: props.ticketEmail } : {}),
      },
      runbookBaseUrl: props.runbookBaseUrl,
      ...(props.alarmDatapointsToAlarm !== undefined
        ? { datapointsToAlarm: props.alarmDatapointsToAlarm }
        : {}),
      ...(props.alarmEvaluationPeriods !== undefined
        ? { evaluationPeriods: props.alarmEvaluationPeriods }
        : {}),
      namespace,
      queueAgeAlarmThreshold: props.queueAgeAlarmThreshold,
    });
    this.alarmTopic = alarms.topic;
    this.ticketAlarmTopic = alarms.ticketTopic;
    this.alarmTopicKey = alarms.topicKey;

    const functions: ConnectorFunctionDefaults = {
      environment: connectorEnvironment({ ...props, metricsNamespace: namespace }),
      logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      state: {
        table: this.table,
        eventBus: this.eventBus,
        tokenSecret: this.tokenSecret,
        ...(props.tokenSecretKmsKeyArn ? { tokenSecretKmsKeyArn: props.tokenSecretKmsKeyArn } : {}),
        outboundSource,
      },
    };
    const refusal = props.refusalFunction ?? defaultRefusalFunction;
    // Each part's alarms right after the part, where the template has them.
    this.routes = (props.queueRoutes ?? defaultQueueRoutes).map((route) => {
      const resources = new ConnectorRoute(this, {
        ...functions,
        route,
        override: props.routeOverrides?.[route.detailType],
        refusalTimeoutSeconds: refusal.timeoutSeconds,
        inboundSource,
        httpTimeoutMs: props.httpTimeoutMs ?? DEFAULT_TIMEOUT_MS,
        archiveRetention,
      });
      alarms.watchRoute(resources);
      return resources;
    });
    this.refusal = new ConnectorRefusal(this, { ...functions, refusal, routes: this.routes, inboundSource });
    alarms.watchRefusal(this.refusal, refusal.functionName);
    this.schedules = (props.scheduledFunctions ?? defaultScheduledFunctions).map((scheduled) => {
      const resources = new ConnectorSchedule(this, {
        ...functions,
        scheduled,
        schedule: props.schedules?.[scheduled.functionName],
      });
      alarms.watchSchedule(resources);
      return resources;
    });
    alarms.watchConnector(props.partnerSyncFailedPerHour ?? 10);
    this.consumers = addConsumerRules(this, {
      eventBus: this.eventBus,
      outboundSource,
      consumers: props.consumers ?? [],
    });
    if (this.consumers.deadLetterQueue) alarms.watchConsumerDeliveries(this.consumers.deadLetterQueue);
    alarms.addComposites();
    this.alarms = alarms.alarms;
    this.compositeAlarms = alarms.composites;

    this.dashboard = createConnectorDashboard(this, {
      namespace,
      routes: this.routes,
      schedules: this.schedules,
      ...(props.names ? { dashboardName: props.names.dashboard } : {}),
    });
    addConnectorOutputs(
      this,
      {
        ...this,
        ...(this.consumers.deadLetterQueue
          ? { consumerDeadLetterQueue: this.consumers.deadLetterQueue }
          : {}),
      },
      props.names,
    );
  }
}
