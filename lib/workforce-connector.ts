import { CfnOutput, Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambdaEventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as pipes from 'aws-cdk-lib/aws-pipes';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PIPE_INPUT_TEMPLATE } from '#functions/contracts/envelope.ts';
import {
  queueRoutes as defaultQueueRoutes,
  refusalFunction as defaultRefusalFunction,
  scheduledFunctions as defaultScheduledFunctions,
  type QueueRoute,
  type RefusalFunction,
  type ScheduledFunction,
  type TableAccess,
} from '#functions/routes.ts';
import { DEFAULT_AREA_LOOKUP_RESOURCE, DEFAULT_LOCATION_LOOKUP_RESOURCE } from '#functions/runtime/config.ts';
import {
  ConnectorMetric,
  DEFAULT_METRICS_NAMESPACE,
  MetricName,
  TOKEN_PROBLEM_CODES,
  UNCONFIRMED_SIGNUP_LOG_MESSAGE,
  UNCONFIRMED_SIGNUPS_LOGGED_PER_RUN,
} from '#functions/runtime/metric-names.ts';
import {
  ROUTE_QUEUE_RETENTION_SECONDS,
  routeMaxReceiveCount,
  startWindowProblem,
} from '#functions/runtime/retry-schedule.ts';
import { type ServiceAssumptionsInput, serviceAssumptionsSchema } from '#functions/service/assumptions.ts';
import { DEFAULT_TIMEOUT_MS } from '#functions/service/http.ts';
import {
  type RequestBudgetSettingsInput,
  requestBudgetSettingsSchema,
} from '#functions/store/request-budget.ts';
import { bindBus, bindSecret, bindTable, ConnectorFunction } from './connector-function.ts';
import { type ConnectorArchive, ConnectorState } from './connector-state.ts';

export interface RouteOverride {
  /** Concurrent invocations of the route's event source (2..1000). @default the route's `maxConcurrency` */
  readonly maxConcurrency?: number;
  /** Records per invocation (1..10). @default the route's `batchSize` */
  readonly batchSize?: number;
  /** Function timeout in seconds; the queue's visibility timeout is six times this. @default the route's */
  readonly timeoutSeconds?: number;
}

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
  /** @default - an archive of the inbound events is created on the bus */
  readonly existingArchive?: ConnectorArchive;
  /** How long the archive keeps inbound events for a replay. @default Duration.days(30) */
  readonly archiveRetention?: Duration;
  /** @default - a KMS-encrypted topic is created */
  readonly existingAlarmTopicObj?: sns.ITopic;
  /** E-mail subscribed to a created alarm topic. @default - no subscription */
  readonly alarmEmail?: string;
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
  /** @default 'WorkforceConnector' */
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

/** Everything one inbound detail-type flows through, exposed for extension and tests. */
export interface ConnectorRouteResources {
  readonly route: QueueRoute;
  readonly rule: events.Rule;
  /** Standard queue the rule delivers to (EventBridge cannot set a per-event FIFO group id). */
  readonly intakeQueue: sqs.Queue;
  /**
   * Events the rule could not deliver, or the pipe could not forward: this route's only. An event
   * source of the refusal function, which answers each one (nothing stays parked here).
   */
  readonly intakeDeadLetterQueue: sqs.Queue;
  /** Moves intake messages into the FIFO queue with group id = accountId and dedup id = event id. */
  readonly pipe: pipes.CfnPipe;
  /** The pipe's ERROR-level execution log. */
  readonly pipeLogGroup: logs.LogGroup;
  readonly queue: sqs.Queue;
  /** Records that gave up (kept by the handler) or that no invocation got to decide on. */
  readonly deadLetterQueue: sqs.Queue;
  readonly function: ConnectorFunction;
  readonly eventSource: lambdaEventSources.SqsEventSource;
  readonly batchSize: number;
  readonly maxConcurrency: number;
  /** The queue's redrive policy: waits and attempts fit before it (retry-schedule.ts). */
  readonly maxReceiveCount: number;
}

/**
 * The refusal rule: every inbound event, answered with SyncFailed when no route can take it; its
 * function also answers every message of the routes' intake dead-letter queues.
 */
export interface ConnectorRefusalResources {
  readonly rule: events.Rule;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly function: ConnectorFunction;
  /** The refusal queue's event source, then one per route's intake dead-letter queue. */
  readonly eventSources: readonly lambdaEventSources.SqsEventSource[];
}

export interface ConnectorScheduleResources {
  readonly scheduled: ScheduledFunction;
  readonly rule: events.Rule;
  /** Schedule events EventBridge could not deliver to the function. */
  readonly deadLetterQueue: sqs.Queue;
  readonly function: ConnectorFunction;
}

/** Messages wait this long in a dead-letter queue (the SQS maximum) for a redrive. */
const DEAD_LETTER_RETENTION = Duration.days(14);
/**
 * The visibility timeout of a queue a function reads through an event source mapping: six times
 * the function's timeout, as the Lambda Developer Guide asks ("Creating and configuring an Amazon
 * SQS event source mapping": "at least six times the configuration timeout on your function. The
 * extra time allows Lambda to retry if your function is throttled while processing a previous
 * batch"), so a record is not redelivered while a throttled or retried invocation still holds it.
 */
function eventSourceVisibility(functionTimeoutSeconds: number): Duration {
  return Duration.seconds(functionTimeoutSeconds * 6);
}
/** The intake pipe forwards within seconds; an older intake message means it is not. */
const INTAKE_AGE_ALARM = Duration.minutes(5);
/** Counted retries per route in 15 minutes before an alarm (a service blip retries a few). */
const RECORDS_FAILED_ALARM = 10;
/** Where each alarm's runbook entry is. */
const RUNBOOK = 'docs/deploy.md#alarms';
/** Past this, a dead letter has used most of its retention: redrive or lose it. */
const DEAD_LETTER_AGE_ALARM = Duration.days(7);
/** EventBridge retries a failed delivery for up to 24 h; then the event goes to the ingress DLQ. */
const DELIVERY_MAX_EVENT_AGE = Duration.hours(24);
const DELIVERY_RETRY_ATTEMPTS = 185;
/**
 * Intake receives before a message the pipe cannot forward (an accountId that is no message group
 * id, a broken pipe role, a deleted FIFO queue) moves to the intake dead-letter queue, where the
 * refusal function answers it.
 */
const INTAKE_MAX_RECEIVE_COUNT = 5;
/**
 * An intake dead-letter queue that never empties for this long is not being answered (its event
 * source disabled or failing as a whole): messages there are normally taken within seconds.
 */
const INTAKE_DEAD_LETTERS_UNANSWERED = Duration.minutes(15);
/** Refusal records failing this often in 15 minutes: one coming back every visibility timeout, not a blip. */
const REFUSAL_RECORDS_FAILED_ALARM = 3;

/**
 * The connector, deployable into any CDK app: for each route of `functions/routes.ts`, an
 * EventBridge rule (source + detail-type) feeding an SQS FIFO queue per account (message group =
 * `detail.accountId`, deduplication = event id) and its function; the scheduled trial watch; the
 * table, bus and token secret (created or imported); alarms to an SNS topic; a dashboard.
 *
 * Why a standard intake queue and a pipe between rule and FIFO queue: an EventBridge rule's SQS
 * target takes only a fixed `MessageGroupId` (no JSON path; see aws/aws-cdk#32965 and the
 * CloudFormation roadmap #2298), which would put every account in one message group and
 * serialize the whole connector. EventBridge Pipes resolve `$.body.detail.accountId` and
 * `$.body.id` per message, so ordering is per account and deduplication is on the event id
 * itself (content-based deduplication stays off).
 */
export class WorkforceConnector extends Construct {
  readonly table: dynamodb.ITable;
  readonly eventBus: events.IEventBus;
  readonly tokenSecret: secretsmanager.ISecret;
  /** The archive of inbound events that `npm run replay` replays from. */
  readonly archive: ConnectorArchive;
  readonly routes: readonly ConnectorRouteResources[];
  readonly refusal: ConnectorRefusalResources;
  readonly schedules: readonly ConnectorScheduleResources[];
  readonly alarmTopic: sns.ITopic;
  readonly alarmTopicKey?: kms.Key;
  readonly alarms: readonly cloudwatch.Alarm[];
  readonly dashboard: cloudwatch.Dashboard;

  private readonly alarmList: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: WorkforceConnectorProps) {
    super(scope, id);
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
        : {
            archive: {
              inboundSource: props.inboundSource ?? 'partner.app',
              retention: props.archiveRetention ?? Duration.days(30),
            },
          }),
    });
    this.table = state.table;
    this.eventBus = state.eventBus;
    this.tokenSecret = state.tokenSecret;
    if (!state.archive) throw new Error('the connector state has no archive');
    this.archive = state.archive;

    if (props.existingAlarmTopicObj) {
      this.alarmTopic = props.existingAlarmTopicObj;
    } else {
      const { topic, key } = this.createAlarmTopic(props.alarmEmail);
      this.alarmTopic = topic;
      this.alarmTopicKey = key;
    }

    const environment = connectorEnvironment(props);
    const namespace = props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;
    const logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const refusalFunction = props.refusalFunction ?? defaultRefusalFunction;
    this.routes = (props.queueRoutes ?? defaultQueueRoutes).map((route) =>
      this.createRoute(route, refusalFunction, props, environment, logRetention, namespace),
    );
    this.refusal = this.createRefusal(
      refusalFunction,
      this.routes,
      props,
      environment,
      logRetention,
      namespace,
    );
    this.schedules = (props.scheduledFunctions ?? defaultScheduledFunctions).map((scheduled) =>
      this.createSchedule(scheduled, props, environment, logRetention, namespace),
    );
    this.createConnectorAlarms(namespace, props.partnerSyncFailedPerHour ?? 10);
    this.alarms = this.alarmList;
    this.dashboard = this.createDashboard(namespace);
    this.createOutputs();
  }

  private createRoute(
    route: QueueRoute,
    refusal: RefusalFunction,
    props: WorkforceConnectorProps,
    environment: Record<string, string>,
    logRetention: logs.RetentionDays,
    namespace: string,
  ): ConnectorRouteResources {
    const id = route.detailType;
    const override = props.routeOverrides?.[route.detailType] ?? {};
    const batchSize = override.batchSize ?? route.batchSize;
    const maxConcurrency = override.maxConcurrency ?? route.maxConcurrency;
    const timeoutSeconds = override.timeoutSeconds ?? route.timeoutSeconds;
    // The same check as the deployment config's, for apps that use the construct directly.
    const tooShort = startWindowProblem(props.httpTimeoutMs ?? DEFAULT_TIMEOUT_MS, {
      detailType: route.detailType,
      timeoutSeconds,
    });
    if (tooShort) throw new Error(`WorkforceConnector: ${tooShort}`);
    const retentionSeconds = route.retentionSeconds ?? ROUTE_QUEUE_RETENTION_SECONDS;
    const maxReceiveCount = routeMaxReceiveCount(route.maxAttempts, retentionSeconds);

    const deadLetterQueue = new sqs.Queue(this, `${id}DeadLetterQueue`, {
      fifo: true,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DEAD_LETTER_RETENTION,
    });
    const queue = new sqs.Queue(this, `${id}Queue`, {
      fifo: true,
      contentBasedDeduplication: false,
      // High-throughput FIFO: ordering and deduplication per account, no queue-wide 300 TPS cap.
      deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: eventSourceVisibility(timeoutSeconds),
      // Records that wait for a token fix stay as long as SQS allows.
      retentionPeriod: Duration.seconds(retentionSeconds),
      // A backstop: the handler gives up (SyncFailed, copy here) long before, by attempts.
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount },
    });

    const intakeDeadLetterQueue = new sqs.Queue(this, `${id}IntakeDeadLetterQueue`, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DEAD_LETTER_RETENTION,
      // The refusal function reads it (createRefusal).
      visibilityTimeout: eventSourceVisibility(refusal.timeoutSeconds),
    });
    const intakeQueue = new sqs.Queue(this, `${id}IntakeQueue`, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: intakeDeadLetterQueue, maxReceiveCount: INTAKE_MAX_RECEIVE_COUNT },
    });
    const rule = new events.Rule(this, `${id}Rule`, {
      eventBus: this.eventBus,
      description: `${route.detailType} events for ${route.functionName}`,
      eventPattern: {
        source: [props.inboundSource ?? 'partner.app'],
        detailType: [route.detailType],
        // An event without an accountId has no message group: the pipe could not forward it, so
        // it is left to the refusal rule ("exists" matches leaf values only: objects are left too).
        // One whose accountId is no group id (a space, > 128 characters) still matches, as no
        // pattern operator can say "a valid group id": the pipe fails it into the intake
        // dead-letter queue, where the refusal function answers it (createRefusal).
        detail: { accountId: [{ exists: true }] },
      },
    });
    rule.addTarget(
      new targets.SqsQueue(intakeQueue, {
        deadLetterQueue: intakeDeadLetterQueue,
        retryAttempts: DELIVERY_RETRY_ATTEMPTS,
        maxEventAge: DELIVERY_MAX_EVENT_AGE,
      }),
    );
    const { pipe, logGroup: pipeLogGroup } = this.createFifoPipe(id, intakeQueue, queue, logRetention);

    const fn = new ConnectorFunction(this, `${id}Function`, {
      entry: route.entry,
      handlerExport: route.handlerExport,
      description: route.description,
      timeout: Duration.seconds(timeoutSeconds),
      memorySize: route.memorySizeMb,
      logRetention,
      environment: {
        ...environment,
        POWERTOOLS_SERVICE_NAME: route.functionName,
        // functions/runtime/route-queue.ts
        QUEUE_URL: queue.queueUrl,
        DEAD_LETTER_QUEUE_URL: deadLetterQueue.queueUrl,
        MAX_RECEIVE_COUNT: String(maxReceiveCount),
        MAX_ATTEMPTS: String(route.maxAttempts),
        QUEUE_RETENTION_SECONDS: String(retentionSeconds),
        // A replayed event is checked against markers kept as long as the archive keeps events.
        REPLAY_MARKER_TTL_SECONDS: String((props.archiveRetention ?? Duration.days(30)).toSeconds()),
      },
    });
    this.bindState(fn, route, props);
    // The handler keeps a record that gives up here itself (ChangeMessageVisibility, its waits,
    // is part of the event source's consume grant).
    deadLetterQueue.grantSendMessages(fn);
    // FIFO event sources refuse a batching window, so the route's maxBatchingWindowSeconds is not used.
    const eventSource = new lambdaEventSources.SqsEventSource(queue, {
      batchSize,
      maxConcurrency,
      reportBatchItemFailures: true,
    });
    fn.addEventSource(eventSource);

    this.alarmOn(`${id}QueueAge`, queueAge(queue, props.queueAgeAlarmThreshold), {
      what: `${id} records waiting longer than expected (the token may be missing, or the service slow)`,
      runbook: 'queue-age',
    });
    this.alarmOn(`${id}DeadLetters`, deadLetterDepth(deadLetterQueue), {
      what: `${id} records gave up and are kept for a redrive`,
      runbook: 'dead-letters',
    });
    this.alarmOn(`${id}DeadLetterAge`, deadLetterAge(deadLetterQueue), {
      what: `${id} dead letters near the end of their 14-day retention`,
      runbook: 'dead-letters',
    });
    this.alarmOn(
      `${id}IntakeQueueAge`,
      { metric: maximumAge(intakeQueue), threshold: INTAKE_AGE_ALARM.toSeconds() },
      { what: `${id} events not forwarded by the intake pipe`, runbook: 'intake' },
    );
    // Its messages are answered by the refusal function within seconds (SyncFailed; a routable
    // event is kept in the route's DLQ, whose alarm fires): a message left 15 minutes is not being
    // answered. Its age, not its depth: every message passes through for a few seconds. It fires
    // surely when nobody takes them (the event source disabled or not polling). For a message the
    // function takes and keeps failing, the SQS Developer Guide ("Available CloudWatch metrics for
    // Amazon SQS") says two things: a message received three times or more is left out of
    // ApproximateAgeOfOldestMessage, and for a dead-letter queue (this is the intake queue's) the
    // metric is the longest time a message has been in the queue. Which one holds here is not
    // ours to rely on: RefusalRecordsFailed counts those failures whichever it is. (The age of a
    // dead letter counts from its move into the dead-letter queue, not from its first send: SQS
    // Developer Guide, "Setting-up dead-letter queue retention"; a dead letter does not arrive old.)
    this.alarmOn(`${id}IntakeDeadLetters`, queueAge(intakeDeadLetterQueue, INTAKE_DEAD_LETTERS_UNANSWERED), {
      what: `${id} intake dead letters not answered for ${INTAKE_DEAD_LETTERS_UNANSWERED.toMinutes()} minutes (the refusal function does not take them)`,
      runbook: 'intake',
    });
    this.alarmOn(`${id}PipeFailures`, pipeFailures(pipe), {
      what: `${id} intake pipe executions failed`,
      runbook: 'intake',
    });
    this.alarmOn(
      `${id}RecordsFailed`,
      {
        metric: serviceMetric(namespace, MetricName.RecordsFailed, route.functionName, Duration.minutes(15)),
        threshold: RECORDS_FAILED_ALARM,
        comparison: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      },
      { what: `${id} records failing and being retried`, runbook: 'records-failed' },
    );
    this.alarmOnFunction(id, fn);

    return {
      route,
      rule,
      intakeQueue,
      intakeDeadLetterQueue,
      pipe,
      pipeLogGroup,
      queue,
      deadLetterQueue,
      function: fn,
      eventSource,
      batchSize,
      maxConcurrency,
      maxReceiveCount,
    };
  }

  private createFifoPipe(
    id: string,
    intakeQueue: sqs.Queue,
    queue: sqs.Queue,
    logRetention: logs.RetentionDays,
  ): { pipe: pipes.CfnPipe; logGroup: logs.LogGroup } {
    const role = new iam.Role(this, `${id}PipeRole`, {
      assumedBy: new iam.ServicePrincipal('pipes.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: `Moves ${id} events from the intake queue to the FIFO queue`,
    });
    iam.Grant.addToPrincipal({
      grantee: role,
      actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
      resourceArns: [intakeQueue.queueArn],
    });
    iam.Grant.addToPrincipal({ grantee: role, actions: ['sqs:SendMessage'], resourceArns: [queue.queueArn] });
    // Execution failures only ("ERROR – EventBridge sends any records related to errors"), without
    // execution data: payloads are the partner's events ("EventBridge makes no attempt to redact").
    // EventBridge user guide, "Logging Amazon EventBridge Pipes performance". The role writes them,
    // as the CDK's own pipes module grants (CloudwatchLogsLogDestination.grantPush).
    const logGroup = new logs.LogGroup(this, `${id}PipeLogGroup`, { retention: logRetention });
    logGroup.grantWrite(role);
    const pipe = new pipes.CfnPipe(this, `${id}Pipe`, {
      description: `${id}: intake → FIFO (group = accountId, deduplication = event id)`,
      roleArn: role.roleArn,
      source: intakeQueue.queueArn,
      // One message per batch: "if your pipe encounters an error while processing a batch, all
      // messages in that batch become visible in the queue again" (EventBridge user guide, "Amazon
      // SQS as a source"), so a message the FIFO queue refuses (an accountId that is no message
      // group id) must not take its neighbours to the dead-letter queue with it.
      sourceParameters: { sqsQueueParameters: { batchSize: 1 } },
      target: queue.queueArn,
      logConfiguration: {
        level: 'ERROR',
        cloudwatchLogsLogDestination: { logGroupArn: logGroup.logGroupArn },
      },
      targetParameters: {
        // The EventBridge event, unchanged, wrapped in JSON: a bare <$.body> would strip its quotes
        // ("Amazon EventBridge Pipes input transformation", Implicit body data parsing); see
        // PIPE_INPUT_TEMPLATE and the route decoder that reads exactly this shape.
        inputTemplate: PIPE_INPUT_TEMPLATE,
        // Dynamic path parameters read the original event, before the input template applies.
        sqsQueueParameters: {
          messageGroupId: '$.body.detail.accountId',
          messageDeduplicationId: '$.body.id',
        },
      },
    });
    // The pipe validates its permissions on creation.
    pipe.node.addDependency(role);
    return { pipe, logGroup };
  }

  private createRefusal(
    refusal: RefusalFunction,
    routes: readonly ConnectorRouteResources[],
    props: WorkforceConnectorProps,
    environment: Record<string, string>,
    logRetention: logs.RetentionDays,
    namespace: string,
  ): ConnectorRefusalResources {
    const deadLetterQueue = new sqs.Queue(this, 'RefusalDeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DEAD_LETTER_RETENTION,
    });
    const queue = new sqs.Queue(this, 'RefusalQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: eventSourceVisibility(refusal.timeoutSeconds),
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: refusal.maxReceiveCount },
    });
    // Every event of the inbound source: which ones no route can take is decided by the function,
    // because an event pattern cannot say "not a valid SQS message group id" (no regular expressions).
    const rule = new events.Rule(this, 'RefusalRule', {
      eventBus: this.eventBus,
      description: 'Every inbound event, for refusing those no route can take',
      eventPattern: { source: [props.inboundSource ?? 'partner.app'] },
    });
    rule.addTarget(
      new targets.SqsQueue(queue, {
        deadLetterQueue,
        retryAttempts: DELIVERY_RETRY_ATTEMPTS,
        maxEventAge: DELIVERY_MAX_EVENT_AGE,
      }),
    );
    const fn = new ConnectorFunction(this, 'RefusalFunction', {
      entry: refusal.entry,
      handlerExport: refusal.handlerExport,
      description: refusal.description,
      timeout: Duration.seconds(refusal.timeoutSeconds),
      memorySize: refusal.memorySizeMb,
      logRetention,
      environment: {
        ...environment,
        POWERTOOLS_SERVICE_NAME: refusal.functionName,
        ROUTED_DETAIL_TYPES: routes.map(({ route }) => route.detailType).join(','),
        // functions/refuse-unroutable/handler.ts: a record from any other queue is an intake dead
        // letter; a routable one is kept in its route's dead-letter queue (URLs only, by
        // detail-type: Lambda allows 4 KB of variables in all).
        REFUSAL_QUEUE_ARN: queue.queueArn,
        ROUTE_DEAD_LETTER_QUEUE_URLS: routes
          .map(({ route, deadLetterQueue }) => `${route.detailType}=${deadLetterQueue.queueUrl}`)
          .join(','),
      },
    });
    // It calls no service: the table (idempotency records), the bus and the route dead-letter
    // queues (SendMessage of a routable intake dead letter) only.
    bindTable(fn, { table: this.table, ...tableAccessOf(refusal) });
    bindBus(fn, { eventBus: this.eventBus, source: props.outboundSource ?? 'workforce.connector' });
    for (const { deadLetterQueue } of routes) deadLetterQueue.grantSendMessages(fn);
    // The refusal queue, then every intake dead-letter queue: EventBridge sends an event it could
    // not deliver to the rule target's dead-letter queue as the message body, with the attributes
    // RULE_ARN, TARGET_ARN, ERROR_CODE and ERROR_MESSAGE (EventBridge user guide, "Using
    // dead-letter queues to process undelivered events in EventBridge"), and the intake queue's
    // redrive moves its message, whose body is the event, unchanged (SQS developer guide, "Using
    // dead-letter queues in Amazon SQS"): either way the function reads the event. The consume
    // grant comes with each event source.
    const eventSources = [queue, ...routes.map(({ intakeDeadLetterQueue }) => intakeDeadLetterQueue)].map(
      (source) => {
        const eventSource = new lambdaEventSources.SqsEventSource(source, {
          batchSize: refusal.batchSize,
          maxConcurrency: refusal.maxConcurrency,
          reportBatchItemFailures: true,
        });
        fn.addEventSource(eventSource);
        return eventSource;
      },
    );
    this.alarmOn('RefusalQueueAge', queueAge(queue, props.queueAgeAlarmThreshold), {
      what: 'Inbound events waiting for the refusal check',
      runbook: 'refusal',
    });
    this.alarmOn('RefusalDeadLetters', deadLetterDepth(deadLetterQueue), {
      what: 'Inbound events the refusal check could not take or answer',
      runbook: 'refusal',
    });
    // An intake dead letter the function cannot answer stays in its queue and comes back: counted
    // here (a message that is not an event, a route dead-letter queue it may not write to).
    this.alarmOn(
      'RefusalRecordsFailed',
      {
        metric: serviceMetric(
          namespace,
          MetricName.RecordsFailed,
          refusal.functionName,
          Duration.minutes(15),
        ),
        threshold: REFUSAL_RECORDS_FAILED_ALARM,
        comparison: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      },
      {
        what: 'Refusal records (inbound events or intake dead letters) keep failing and coming back',
        runbook: 'refusal',
      },
    );
    this.alarmOnFunction('Refusal', fn);
    return { rule, queue, deadLetterQueue, function: fn, eventSources };
  }

  private createSchedule(
    scheduled: ScheduledFunction,
    props: WorkforceConnectorProps,
    environment: Record<string, string>,
    logRetention: logs.RetentionDays,
    namespace: string,
  ): ConnectorScheduleResources {
    const id = pascalCase(scheduled.functionName);
    const fn = new ConnectorFunction(this, `${id}Function`, {
      entry: scheduled.entry,
      handlerExport: scheduled.handlerExport,
      description: scheduled.description,
      timeout: Duration.seconds(scheduled.timeoutSeconds),
      memorySize: scheduled.memorySizeMb,
      logRetention,
      environment: { ...environment, POWERTOOLS_SERVICE_NAME: scheduled.functionName },
    });
    this.bindState(fn, scheduled, props);
    // Schedule rules always run on the account's default bus, not the connector's.
    const rule = new events.Rule(this, `${id}Schedule`, {
      description: scheduled.description,
      schedule:
        props.schedules?.[scheduled.functionName] ?? events.Schedule.expression(scheduled.defaultSchedule),
    });
    const deadLetterQueue = new sqs.Queue(this, `${id}ScheduleDeadLetterQueue`, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DEAD_LETTER_RETENTION,
    });
    // cdk-nag recognises only queues that are another queue's redrive target as dead-letter queues.
    Validations.of(deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself a dead-letter queue: the schedule rule target sends the runs EventBridge could not deliver to it.',
    });
    rule.addTarget(
      new targets.LambdaFunction(fn, {
        deadLetterQueue,
        retryAttempts: 2,
        maxEventAge: Duration.hours(1),
      }),
    );
    this.alarmOn(`${id}ScheduleDeadLetters`, deadLetterDepth(deadLetterQueue), {
      what: `${scheduled.functionName} runs EventBridge could not start`,
      runbook: 'scheduled',
    });
    if (scheduled.failureMetric) {
      this.alarmOn(
        `${id}Failures`,
        {
          metric: serviceMetric(
            namespace,
            scheduled.failureMetric,
            scheduled.functionName,
            Duration.hours(1),
          ),
          threshold: 0,
        },
        {
          what: `${scheduled.functionName} could not handle some items (the next run retries them)`,
          runbook: 'scheduled',
        },
      );
    }
    this.alarmOnFunction(id, fn);
    return { scheduled, rule, deadLetterQueue, function: fn };
  }

  private bindState(fn: ConnectorFunction, access: TableAccess, props: WorkforceConnectorProps): void {
    bindTable(fn, { table: this.table, ...tableAccessOf(access) });
    bindBus(fn, { eventBus: this.eventBus, source: props.outboundSource ?? 'workforce.connector' });
    bindSecret(fn, { secret: this.tokenSecret });
  }

  private createAlarmTopic(email: string | undefined): { topic: sns.Topic; key: kms.Key } {
    const key = new kms.Key(this, 'AlarmTopicKey', {
      description: 'Encrypts the connector alarm topic',
      enableKeyRotation: true,
    });
    const { account, region, partition } = Stack.of(this);
    // Only alarms of this account and region (CloudWatch user guide, "Setting up Amazon SNS
    // notifications", preventing the confused deputy: aws:SourceArn and aws:SourceAccount).
    const fromOwnAlarms = {
      ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
      StringEquals: { 'aws:SourceAccount': account },
    };
    // CloudWatch publishes alarm notifications to the encrypted topic with this key ("To allow the
    // AWS service to have the kms:GenerateDataKey* and kms:Decrypt permissions, add the following
    // statement to the KMS policy": SNS developer guide, "Data encryption", AWS services). The
    // guide's statement has no condition; AWS's own Modern Data Architecture Accelerator scopes the
    // same grant for CloudWatch alarms with aws:SourceAccount and aws:SourceArn ("conditions here are
    // both supported and correct", unlike EventBridge's). docs/deploy.md has the post-deploy check
    // that an alarm really arrives.
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: fromOwnAlarms,
      }),
    );
    const topic = new sns.Topic(this, 'AlarmTopic', {
      displayName: 'Workforce connector alarms',
      masterKey: key,
      enforceSSL: true,
    });
    // enforceSSL makes a topic policy holding only its TLS deny, which replaces SNS's default
    // policy: without this allow, CloudWatch could not publish and no alarm would reach anyone.
    topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarmsOfThisAccount',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: fromOwnAlarms,
      }),
    );
    if (email) topic.addSubscription(new subscriptions.EmailSubscription(email));
    return { topic, key };
  }

  private alarmOn(id: string, definition: AlarmDefinition, about: { what: string; runbook: string }): void {
    const alarm = new cloudwatch.Alarm(this, `${id}Alarm`, {
      alarmDescription: `${about.what}. What to do: ${RUNBOOK}-${about.runbook}`,
      metric: definition.metric,
      threshold: definition.threshold,
      evaluationPeriods: 1,
      comparisonOperator: definition.comparison ?? cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new cloudwatchActions.SnsAction(this.alarmTopic));
    this.alarmList.push(alarm);
  }

  private alarmOnFunction(id: string, fn: ConnectorFunction): void {
    const period = Duration.minutes(5);
    this.alarmOn(
      `${id}Errors`,
      { metric: fn.metricErrors({ period, statistic: 'Sum' }), threshold: 0 },
      {
        what: `${id} function errors (whole invocations failed, not single records)`,
        runbook: 'function-errors',
      },
    );
    this.alarmOn(
      `${id}Throttles`,
      { metric: fn.metricThrottles({ period, statistic: 'Sum' }), threshold: 0 },
      { what: `${id} function throttled`, runbook: 'function-errors' },
    );
  }

  /** Alarms on what every function publishes without its service dimension (ConnectorMetric). */
  private createConnectorAlarms(namespace: string, partnerSyncFailedPerHour: number): void {
    const byClass = (value: string, period: Duration) =>
      connectorMetric(namespace, ConnectorMetric.SyncFailedByClass, { class: value }, period);
    this.alarmOn(
      'SyncFailedOperator',
      { metric: byClass('operator', Duration.minutes(5)), threshold: 0 },
      {
        what: 'SyncFailed that the operator must act on (retries exhausted, configuration, unreadable service answers)',
        runbook: 'syncfailed-operator',
      },
    );
    this.alarmOn(
      'SyncFailedPartner',
      {
        metric: byClass('partner', Duration.hours(1)),
        threshold: partnerSyncFailedPerHour,
        comparison: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      },
      {
        what: 'Many events refused for their content (invalid, or refused by the service)',
        runbook: 'syncfailed-partner',
      },
    );
    const tokenMetrics = Object.fromEntries(
      TOKEN_PROBLEM_CODES.map((code, index) => [
        `m${index}`,
        connectorMetric(namespace, ConnectorMetric.TokenProblems, { code }, Duration.minutes(5)),
      ]),
    );
    this.alarmOn(
      'TokenProblems',
      {
        metric: new cloudwatch.MathExpression({
          expression: Object.keys(tokenMetrics)
            .map((name) => `FILL(${name}, 0)`)
            .join(' + '),
          usingMetrics: tokenMetrics,
          label: 'Token missing or refused',
          period: Duration.minutes(5),
        }),
        threshold: 0,
      },
      { what: 'The service token is missing or refused: records wait until it is fixed', runbook: 'token' },
    );
  }

  /**
   * What operators and the tools need after a deploy, without digging in the console (the
   * runbook in docs/deploy.md names these outputs): the bus, the table, the archive, every queue
   * and dead-letter queue by route, the alarm topic and the dashboard.
   */
  private createOutputs(): void {
    const output = (id: string, value: string, description: string) =>
      new CfnOutput(this, id, { value, description });
    const { region } = Stack.of(this);
    output('EventBusName', this.eventBus.eventBusName, 'Bus the partner publishes to and hears from');
    output('TableName', this.table.tableName, 'Connector table (mappings, idempotency, retry budgets)');
    output('ArchiveName', this.archive.archiveName, 'Archive of inbound events (npm run replay)');
    output('AlarmTopicArn', this.alarmTopic.topicArn, 'Alarm notifications');
    output(
      'DashboardUrl',
      `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#dashboards:name=${this.dashboard.dashboardName}`,
      'CloudWatch dashboard',
    );
    for (const resources of this.routes) {
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
    output('RefusalQueueUrl', this.refusal.queue.queueUrl, 'Refusal check queue (every inbound event)');
    output('RefusalDeadLetterQueueUrl', this.refusal.deadLetterQueue.queueUrl, 'Refusal check dead letters');
    for (const schedule of this.schedules) {
      output(
        `${pascalCase(schedule.scheduled.functionName)}ScheduleDeadLetterQueueUrl`,
        schedule.deadLetterQueue.queueUrl,
        `${schedule.scheduled.functionName} runs EventBridge could not start`,
      );
    }
  }

  private createDashboard(namespace: string): cloudwatch.Dashboard {
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
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
    for (const { route, queue, deadLetterQueue, intakeDeadLetterQueue, function: fn } of this.routes) {
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
          left: [
            fn.metricInvocations({ period }),
            fn.metricErrors({ period }),
            fn.metricThrottles({ period }),
          ],
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
    const driftWatch = this.schedules.find(({ scheduled }) => scheduled.functionName === 'drift-watch');
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
    for (const { scheduled, function: fn } of this.schedules) {
      dashboard.addWidgets(
        new cloudwatch.GraphWidget({
          title: `${scheduled.functionName}: function`,
          left: [
            fn.metricInvocations({ period }),
            fn.metricErrors({ period }),
            fn.metricThrottles({ period }),
          ],
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

interface AlarmDefinition {
  readonly metric: cloudwatch.IMetric;
  readonly threshold: number;
  /** @default GREATER_THAN_THRESHOLD */
  readonly comparison?: cloudwatch.ComparisonOperator;
}

function tableAccessOf(access: TableAccess): TableAccess {
  return {
    tableActions: access.tableActions,
    ...(access.queriesTrialIndex ? { queriesTrialIndex: true } : {}),
    ...(access.queriesDriftIndex ? { queriesDriftIndex: true } : {}),
  };
}

/** A connector-wide metric (metric-names.ts, ConnectorMetric: one dimension, no service), summed. */
function connectorMetric(
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
function serviceMetric(
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

function maximumAge(queue: sqs.IQueue): cloudwatch.IMetric {
  return queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' });
}

/**
 * Pipe executions that failed or timed out (EventBridge user guide, "Monitoring and debugging
 * EventBridge Pipes": ExecutionFailed and ExecutionTimeout, dimension PipeName; "This value will be
 * 0 if no executions failed"); the causes are in the pipe's ERROR log.
 */
function pipeFailures(pipe: pipes.CfnPipe): AlarmDefinition {
  const pipeMetric = (metricName: string) =>
    new cloudwatch.Metric({
      namespace: 'AWS/EventBridge/Pipes',
      metricName,
      dimensionsMap: { PipeName: pipe.ref },
      statistic: 'Sum',
      period: Duration.minutes(5),
    });
  return {
    metric: new cloudwatch.MathExpression({
      expression: 'FILL(failed, 0) + FILL(timedOut, 0)',
      usingMetrics: { failed: pipeMetric('ExecutionFailed'), timedOut: pipeMetric('ExecutionTimeout') },
      label: 'Pipe executions failed',
      period: Duration.minutes(5),
    }),
    threshold: 0,
  };
}

function deadLetterDepth(queue: sqs.IQueue): AlarmDefinition {
  return {
    metric: queue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(1),
      statistic: 'Maximum',
    }),
    threshold: 0,
  };
}

function deadLetterAge(queue: sqs.IQueue): AlarmDefinition {
  return {
    metric: queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: DEAD_LETTER_AGE_ALARM.toSeconds(),
  };
}

function queueAge(queue: sqs.IQueue, threshold = Duration.minutes(30)): AlarmDefinition {
  return {
    metric: queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: threshold.toSeconds(),
  };
}

/**
 * The functions' settings as env vars, in the formats `functions/runtime/config.ts` parses.
 * Resource names (table, bus, secret) are added by the binders.
 */
export function connectorEnvironment(props: WorkforceConnectorProps): Record<string, string> {
  const env: Record<string, string> = {
    PARTNER_NAME: props.partnerName,
    PROVISIONING_URLS: JSON.stringify(props.provisioningUrls),
    INSTALL_URL_TEMPLATE: props.installUrlTemplate ?? 'https://{hostname}',
    INBOUND_SOURCE: props.inboundSource ?? 'partner.app',
    OUTBOUND_SOURCE: props.outboundSource ?? 'workforce.connector',
    TRIAL_THRESHOLDS_DAYS: (props.trialThresholdsDays ?? [7, 3, 1]).join(','),
    DRIFT_CHECK_EVERY_HOURS: String(props.driftCheckEveryHours ?? 24),
    POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE,
    POWERTOOLS_LOG_LEVEL: props.logLevel ?? 'INFO',
    // Always set: the empty string (lookup disabled) must reach the function as such.
    LOCATION_LOOKUP_RESOURCE: props.locationLookupResource ?? DEFAULT_LOCATION_LOOKUP_RESOURCE,
    AREA_LOOKUP_RESOURCE: props.areaLookupResource ?? DEFAULT_AREA_LOOKUP_RESOURCE,
  };
  if (props.allowedHostnameSuffixes.length === 0) {
    throw new Error('WorkforceConnector: allowedHostnameSuffixes needs at least one DNS suffix');
  }
  env.ALLOWED_HOSTNAME_SUFFIXES = props.allowedHostnameSuffixes.join(',');
  if (props.hourBudgetType) env.HOUR_BUDGET_TYPE = props.hourBudgetType;
  if (props.httpTimeoutMs !== undefined) env.HTTP_TIMEOUT_MS = String(props.httpTimeoutMs);
  if (props.serviceAssumptions !== undefined) {
    // Checked here too, so a construct user's mistake fails the synth, not a cold start.
    env.SERVICE_ASSUMPTIONS = JSON.stringify(serviceAssumptionsSchema.parse(props.serviceAssumptions));
  }
  if (props.requestBudget !== undefined) {
    // Checked here too, so a construct user's mistake fails the synth, not a cold start.
    env.REQUEST_BUDGET =
      props.requestBudget === 'off'
        ? 'off'
        : JSON.stringify(requestBudgetSettingsSchema.parse(props.requestBudget));
  }
  if (props.idempotencyTtlSeconds !== undefined)
    env.IDEMPOTENCY_TTL_SECONDS = String(props.idempotencyTtlSeconds);
  if (props.metricsBulkThreshold !== undefined)
    env.METRICS_BULK_THRESHOLD = String(props.metricsBulkThreshold);
  if (props.referenceCacheMaxAgeSeconds !== undefined)
    env.REFERENCE_CACHE_MAX_AGE_SECONDS = String(props.referenceCacheMaxAgeSeconds);
  return env;
}

function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
