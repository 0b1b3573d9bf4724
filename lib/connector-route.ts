import { Duration, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as pipes from 'aws-cdk-lib/aws-pipes';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { PIPE_INPUT_TEMPLATE } from '#functions/contracts/envelope.ts';
import type { QueueRoute } from '#functions/routes.ts';
import {
  ROUTE_QUEUE_RETENTION_SECONDS,
  routeMaxReceiveCount,
  startWindowProblem,
} from '#functions/runtime/retry-schedule.ts';
import {
  bindConnectorState,
  ConnectorFunction,
  type ConnectorFunctionDefaults,
} from './connector-function.ts';
import {
  DEAD_LETTER_RETENTION,
  DELIVERY_MAX_EVENT_AGE,
  DELIVERY_RETRY_ATTEMPTS,
  eventSourceVisibility,
} from './delivery-settings.ts';
import { addQueueEventSource, grantChangeVisibility, grantSend } from './queue-access.ts';

/**
 * One inbound detail-type's way through the connector: rule → intake queue (+ DLQ) → pipe →
 * FIFO queue (+ DLQ) → function. Its alarms are in connector-alarms.ts.
 */

export interface RouteOverride {
  /** Concurrent invocations of the route's event source (2..1000). @default the route's `maxConcurrency` */
  readonly maxConcurrency?: number;
  /** Records per invocation (1..10). @default the route's `batchSize` */
  readonly batchSize?: number;
  /** Function timeout in seconds; the queue's visibility timeout is six times this. @default the route's */
  readonly timeoutSeconds?: number;
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
  readonly eventSource: lambda.EventSourceMapping;
  readonly batchSize: number;
  readonly maxConcurrency: number;
  /** The queue's redrive policy: waits and attempts fit before it (retry-schedule.ts). */
  readonly maxReceiveCount: number;
}

export interface ConnectorRouteProps extends ConnectorFunctionDefaults {
  readonly route: QueueRoute;
  /** @default - the route's own settings */
  readonly override?: RouteOverride;
  /** The refusal function reads this route's intake dead-letter queue, hidden for its timeout. */
  readonly refusalTimeoutSeconds: number;
  readonly inboundSource: string;
  /** The functions' HTTP timeout, which the route's timeout must leave room for. */
  readonly httpTimeoutMs: number;
  /** How long the archive keeps inbound events. */
  readonly archiveRetention: Duration;
}

/**
 * Intake receives before a message the pipe cannot forward (an accountId that is no message group
 * id, a broken pipe role, a deleted FIFO queue) moves to the intake dead-letter queue, where the
 * refusal function answers it.
 */
const INTAKE_MAX_RECEIVE_COUNT = 5;

/**
 * One route's resources, made in `scope` itself under the ids the route's detail-type starts
 * (`AccountCreatedQueue`, …), not in a construct of its own: see WorkforceConnector on why.
 */
export class ConnectorRoute implements ConnectorRouteResources {
  readonly route: QueueRoute;
  readonly rule: events.Rule;
  readonly intakeQueue: sqs.Queue;
  readonly intakeDeadLetterQueue: sqs.Queue;
  readonly pipe: pipes.CfnPipe;
  readonly pipeLogGroup: logs.LogGroup;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly function: ConnectorFunction;
  readonly eventSource: lambda.EventSourceMapping;
  readonly batchSize: number;
  readonly maxConcurrency: number;
  readonly maxReceiveCount: number;

  constructor(scope: Construct, props: ConnectorRouteProps) {
    const { route } = props;
    const id = route.detailType;
    const override = props.override ?? {};
    const batchSize = override.batchSize ?? route.batchSize;
    const maxConcurrency = override.maxConcurrency ?? route.maxConcurrency;
    const timeoutSeconds = override.timeoutSeconds ?? route.timeoutSeconds;
    // The same check as the deployment config's, for apps that use the construct directly.
    const tooShort = startWindowProblem(props.httpTimeoutMs, {
      detailType: route.detailType,
      timeoutSeconds,
    });
    if (tooShort) throw new Error(`WorkforceConnector: ${tooShort}`);
    const retentionSeconds = route.retentionSeconds ?? ROUTE_QUEUE_RETENTION_SECONDS;
    const maxReceiveCount = routeMaxReceiveCount(route.maxAttempts, retentionSeconds);

    const deadLetterQueue = new sqs.Queue(scope, `${id}DeadLetterQueue`, {
      fifo: true,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DEAD_LETTER_RETENTION,
    });
    const queue = new sqs.Queue(scope, `${id}Queue`, {
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

    const intakeDeadLetterQueue = new sqs.Queue(scope, `${id}IntakeDeadLetterQueue`, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DEAD_LETTER_RETENTION,
      // The refusal function reads it (connector-refusal.ts).
      visibilityTimeout: eventSourceVisibility(props.refusalTimeoutSeconds),
    });
    const intakeQueue = new sqs.Queue(scope, `${id}IntakeQueue`, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: intakeDeadLetterQueue, maxReceiveCount: INTAKE_MAX_RECEIVE_COUNT },
    });
    const rule = new events.Rule(scope, `${id}Rule`, {
      eventBus: props.state.eventBus,
      description: `${route.detailType} events for ${route.functionName}`,
      eventPattern: {
        source: [props.inboundSource],
        detailType: [route.detailType],
        // An event without an accountId has no message group: the pipe could not forward it, so
        // it is left to the refusal rule ("exists" matches leaf values only: objects are left too).
        // One whose accountId is no group id (a space, > 128 characters) still matches, as no
        // pattern operator can say "a valid group id": the pipe fails it into the intake
        // dead-letter queue, where the refusal function answers it (connector-refusal.ts).
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
    const { pipe, logGroup: pipeLogGroup } = createFifoPipe(
      scope,
      id,
      intakeQueue,
      queue,
      props.logRetention,
    );

    const fn = new ConnectorFunction(scope, `${id}Function`, {
      entry: route.entry,
      handlerExport: route.handlerExport,
      description: route.description,
      timeout: Duration.seconds(timeoutSeconds),
      memorySize: route.memorySizeMb,
      logRetention: props.logRetention,
      environment: {
        ...props.environment,
        POWERTOOLS_SERVICE_NAME: route.functionName,
        // functions/runtime/route-queue.ts
        QUEUE_URL: queue.queueUrl,
        DEAD_LETTER_QUEUE_URL: deadLetterQueue.queueUrl,
        MAX_RECEIVE_COUNT: String(maxReceiveCount),
        MAX_ATTEMPTS: String(route.maxAttempts),
        QUEUE_RETENTION_SECONDS: String(retentionSeconds),
        // A replayed event is checked against markers kept as long as the archive keeps events.
        REPLAY_MARKER_TTL_SECONDS: String(props.archiveRetention.toSeconds()),
      },
    });
    bindConnectorState(fn, route, props.state);
    // The handler keeps a record that gives up in the dead-letter queue itself, and makes a record
    // wait by changing its visibility (functions/runtime/route-queue.ts).
    grantSend(fn, deadLetterQueue);
    grantChangeVisibility(fn, queue);
    // FIFO event sources refuse a batching window, so the route's maxBatchingWindowSeconds is not used.
    const eventSource = addQueueEventSource(fn, queue, { batchSize, maxConcurrency });

    this.route = route;
    this.rule = rule;
    this.intakeQueue = intakeQueue;
    this.intakeDeadLetterQueue = intakeDeadLetterQueue;
    this.pipe = pipe;
    this.pipeLogGroup = pipeLogGroup;
    this.queue = queue;
    this.deadLetterQueue = deadLetterQueue;
    this.function = fn;
    this.eventSource = eventSource;
    this.batchSize = batchSize;
    this.maxConcurrency = maxConcurrency;
    this.maxReceiveCount = maxReceiveCount;
  }
}

function createFifoPipe(
  scope: Construct,
  id: string,
  intakeQueue: sqs.Queue,
  queue: sqs.Queue,
  logRetention: logs.RetentionDays,
): { pipe: pipes.CfnPipe; logGroup: logs.LogGroup } {
  const role = new iam.Role(scope, `${id}PipeRole`, {
    assumedBy: new iam.ServicePrincipal('pipes.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
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
  const logGroup = new logs.LogGroup(scope, `${id}PipeLogGroup`, { retention: logRetention });
  logGroup.grantWrite(role);
  const pipe = new pipes.CfnPipe(scope, `${id}Pipe`, {
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
