import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { RefusalFunction } from '#functions/routes.ts';
import {
  bindBus,
  bindTable,
  ConnectorFunction,
  type ConnectorFunctionDefaults,
  tableAccessOf,
} from './connector-function.ts';
import type { ConnectorRouteResources } from './connector-route.ts';
import {
  DEAD_LETTER_RETENTION,
  DELIVERY_MAX_EVENT_AGE,
  DELIVERY_RETRY_ATTEMPTS,
  eventSourceVisibility,
} from './delivery-settings.ts';
import { addQueueEventSource, grantSend } from './queue-access.ts';

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
  readonly eventSources: readonly lambda.EventSourceMapping[];
}

export interface ConnectorRefusalProps extends ConnectorFunctionDefaults {
  readonly refusal: RefusalFunction;
  /** The routes whose intake dead letters it answers and whose dead-letter queues it keeps events in. */
  readonly routes: readonly ConnectorRouteResources[];
  readonly inboundSource: string;
}

/**
 * The refusal check's resources, made in `scope` itself under `Refusal…` ids (see
 * WorkforceConnector on why); its alarms are in connector-alarms.ts.
 */
export class ConnectorRefusal implements ConnectorRefusalResources {
  readonly rule: events.Rule;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly function: ConnectorFunction;
  readonly eventSources: readonly lambda.EventSourceMapping[];

  constructor(scope: Construct, props: ConnectorRefusalProps) {
    const { refusal, routes } = props;
    const deadLetterQueue = new sqs.Queue(scope, 'RefusalDeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DEAD_LETTER_RETENTION,
    });
    const queue = new sqs.Queue(scope, 'RefusalQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: eventSourceVisibility(refusal.timeoutSeconds),
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: refusal.maxReceiveCount },
    });
    // Every event of the inbound source: which ones no route can take is decided by the function,
    // because an event pattern cannot say "not a valid SQS message group id" (no regular expressions).
    const rule = new events.Rule(scope, 'RefusalRule', {
      eventBus: props.state.eventBus,
      description: 'Every inbound event, for refusing those no route can take',
      eventPattern: { source: [props.inboundSource] },
    });
    rule.addTarget(
      new targets.SqsQueue(queue, {
        deadLetterQueue,
        retryAttempts: DELIVERY_RETRY_ATTEMPTS,
        maxEventAge: DELIVERY_MAX_EVENT_AGE,
      }),
    );
    const fn = new ConnectorFunction(scope, 'RefusalFunction', {
      entry: refusal.entry,
      handlerExport: refusal.handlerExport,
      description: refusal.description,
      timeout: Duration.seconds(refusal.timeoutSeconds),
      memorySize: refusal.memorySizeMb,
      logRetention: props.logRetention,
      environment: {
        ...props.environment,
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
    bindTable(fn, { table: props.state.table, ...tableAccessOf(refusal) });
    bindBus(fn, { eventBus: props.state.eventBus, source: props.state.outboundSource });
    for (const { deadLetterQueue } of routes) grantSend(fn, deadLetterQueue);
    // The refusal queue, then every intake dead-letter queue: EventBridge sends an event it could
    // not deliver to the rule target's dead-letter queue as the message body, with the attributes
    // RULE_ARN, TARGET_ARN, ERROR_CODE and ERROR_MESSAGE (EventBridge user guide, "Using
    // dead-letter queues to process undelivered events in EventBridge"), and the intake queue's
    // redrive moves its message, whose body is the event, unchanged (SQS developer guide, "Using
    // dead-letter queues in Amazon SQS"): either way the function reads the event. Each event
    // source grants what Lambda's polling needs; the function's code never changes a visibility.
    this.eventSources = [queue, ...routes.map(({ intakeDeadLetterQueue }) => intakeDeadLetterQueue)].map(
      (source) =>
        addQueueEventSource(fn, source, {
          batchSize: refusal.batchSize,
          maxConcurrency: refusal.maxConcurrency,
        }),
    );
    this.rule = rule;
    this.queue = queue;
    this.deadLetterQueue = deadLetterQueue;
    this.function = fn;
  }
}
