import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as syncFailedContract from '#functions/contracts/outbound/sync-failed.ts';
import type { EventContract, InboundDetailType, OutboundDetailType } from '#functions/contracts/registry.ts';
import {
  createRouteDecoder,
  type InboundContract,
  type InboundEvent,
} from '#functions/contracts/route-decoder.ts';
import { outboundContractsOf } from '#functions/publisher/publisher.ts';
import { loadConfig } from '#functions/runtime/config.ts';
import {
  buildDependencies,
  type Dependencies,
  type DependencyOptions,
} from '#functions/runtime/dependencies.ts';
import { MetricName } from '#functions/runtime/metric-names.ts';
import { logger, metrics } from '#functions/runtime/observability.ts';
import { BatchState, receiveCountOf } from '#functions/runtime/record-batch.ts';
import { type FinalFailure, RecordFailures } from '#functions/runtime/record-failures.ts';
import { recordTimeReserveMs } from '#functions/runtime/retry-schedule.ts';
import { type RouteQueue, routeQueueSettings, sqsRouteQueue } from '#functions/runtime/route-queue.ts';
import { publishSyncFailed } from '#functions/runtime/sync-failed.ts';
import { type IdempotentUseCase, idempotentUseCase, type UseCase } from '#functions/runtime/use-case.ts';
import { appliedEventId } from '#functions/store/applied-events.ts';
import { readRecordAttempts } from '#functions/store/record-attempts.ts';

/**
 * The runtime every queue-fed Lambda is built on, given the one inbound contract of its route and
 * the outbound contracts its use case publishes: a handler's bundle then constructs those schemas
 * and no other. Per SQS
 * FIFO record:
 *
 *   decode ─ valid: the route's onReceived (provision-business: the AccountCreated noted as received)
 *      │ no usable accountId / no route ───────────▶ ack (the refusal rule sends the SyncFailed)
 *      │ invalid ──────────────────────────────────▶ SyncFailed, ack
 *      │ wrong detail-type for this route ─────────▶ SyncFailed WRONG_ROUTE, ack
 *      │ delivered again after it gave up ─────────▶ ack (already reported and kept)
 *      │ replayed or late (a redrive), its content
 *      │ applied before ────────────────────────────▶ ack (ReplaySkipped)
 *      ▼
 *   idempotent on the EventBridge event id: use case + publish its events
 *      ├─ ok / already done ───────────────────────▶ ack
 *      ├─ PermanentError, event id reused ─────────▶ the route's onFinalFailure, SyncFailed +
 *      │                                             business.lastError, ack
 *      ├─ the account's business is on its way ────▶ wait (1 min doubling to 30 min), this
 *      │  (AccountCreated received, not failed)      account's records only; no attempt counted
 *      ├─ token missing or refused ────────────────▶ wait (1 min doubling to 30 min), and the
 *      │                                             rest of the batch with it; no attempt counted
 *      ├─ the service asked for a pause longer
 *      │  than the client waits in process ────────▶ wait that long; no attempt counted
 *      └─ any other failure ───────────────────────▶ attempt counted (DynamoDB, per message):
 *            below MAX_ATTEMPTS ──────────────────▶ back after 1, 2, 4, 8 min
 *            MAX_ATTEMPTS, the queue's last receives,
 *            or its retention near ────────────────▶ give up: copy to the route's DLQ,
 *                                                  SyncFailed RETRIES_EXHAUSTED naming the last
 *                                                  code, ack (a wait gives up the same way)
 *
 * A failed record holds back every later record of its message group (the account) in the batch,
 * for as long as it waits, so the account's events keep the order they reached the queue in
 * while other accounts proceed (not the order they were published in: the intake hops do not keep
 * it; the use cases order by occurredAt, domain/event-order.ts). A record is not started when
 * less time is left than one service call can take (retry-schedule.ts); it goes back to the queue
 * at once, uncounted. A record on its last chance
 * (its queue's last receives, or its retention near) is never held back or deferred: it is tried,
 * and gives up if it fails. retry-schedule.ts holds the numbers and why.
 */

export interface RouteHandlerOptions<K extends InboundDetailType> {
  /** The inbound contract module of the route. */
  contract: InboundContract<K>;
  /** The outbound contract modules the use case publishes; SyncFailed is always added. */
  publishes: readonly EventContract<OutboundDetailType>[];
  useCase: UseCase<K>;
  /**
   * @default buildDependencies(loadConfig(), publishes + SyncFailed, dependencyOptions), with the
   * config checked when the handler is created
   */
  dependencies?: () => Dependencies;
  /** What a local run adds to the default dependencies (dependencies.ts). */
  dependencyOptions?: DependencyOptions;
  /**
   * What the route notes about a valid record as soon as it arrives, before anything can hold it
   * back (a missing token, too little time left): provision-business notes the account's
   * AccountCreated as received, so the account's other events wait for its business uncounted.
   * A failure here fails the record (it comes back after the queue's visibility timeout, uncounted).
   */
  onReceived?: (dependencies: Dependencies, event: InboundEvent) => Promise<void>;
  /**
   * What the route records when one of its records ends in a SyncFailed from its use case (a
   * permanent failure, or given up), before the SyncFailed is published: provision-business
   * records the account FAILED, naming the event and the code. A failure here fails the record,
   * which is reported on a later receive.
   */
  onFinalFailure?: (dependencies: Dependencies, event: InboundEvent, failure: FinalFailure) => Promise<void>;
  /**
   * The route's queue and dead-letter queue. @default the SQS queues the environment names
   * (route-queue.ts), checked when the handler is created if `dependencies` is not given
   */
  queue?: () => RouteQueue;
}

export type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

const RECORD_LOG_KEYS = ['correlation_id', 'eventId', 'detailType', 'accountId', 'messageId'];

/**
 * A record sent to its queue this long after its event's time did not come straight from the
 * partner: a redrive, a replay, or a delivery EventBridge retried for long. Normally the pipe
 * forwards an event within seconds.
 */
const LATE_ARRIVAL_SECONDS = 5 * 60;

export function createRouteHandler<K extends InboundDetailType>(
  options: RouteHandlerOptions<K>,
): QueueHandler {
  const detailType: K = options.contract.detailType;
  const decode = createRouteDecoder(options.contract);

  let resolveDependencies = options.dependencies;
  if (resolveDependencies === undefined) {
    // Module scope in the handler file, so a bad environment fails the cold start, not a record.
    const config = loadConfig();
    const publishes = outboundContractsOf([...options.publishes, syncFailedContract]);
    let built: Dependencies | undefined;
    resolveDependencies = () => {
      built ??= buildDependencies(config, publishes, options.dependencyOptions);
      return built;
    };
  }
  const dependenciesOf = resolveDependencies;

  let resolveQueue = options.queue;
  if (resolveQueue === undefined) {
    let queue: RouteQueue | undefined = options.dependencies
      ? undefined
      : sqsRouteQueue(routeQueueSettings());
    resolveQueue = () => {
      queue ??= sqsRouteQueue(routeQueueSettings());
      return queue;
    };
  }
  const queueOf = resolveQueue;

  const failures = new RecordFailures(detailType, queueOf, options.onFinalFailure);

  let runtime: IdempotentUseCase | undefined;
  const runtimeFor = (dependencies: Dependencies): IdempotentUseCase => {
    if (runtime?.dependencies !== dependencies) {
      runtime = idempotentUseCase({ detailType, useCase: options.useCase, dependencies });
    }
    return runtime;
  };

  async function processRecord(
    record: SQSRecord,
    current: IdempotentUseCase,
    batch: BatchState,
  ): Promise<void> {
    const { dependencies } = current;
    logger.removeKeys(RECORD_LOG_KEYS);
    logger.appendKeys({ messageId: record.messageId });
    const decoded = decode(record.body, { source: dependencies.config.inboundSource });
    if (decoded.ok && options.onReceived) await options.onReceived(dependencies, decoded.event);
    failures.holdBackIfDue(record, dependencies, batch);

    if (!decoded.ok && decoded.refusedByRule) {
      // The refusal rule sees every inbound event and answers this one (no usable accountId, no
      // route) with its own SyncFailed; a second one here would tell the partner twice.
      logger.setCorrelationId(decoded.eventId ?? record.messageId);
      logger.warn('event left to the refusal rule', { code: decoded.code, eventId: decoded.eventId });
      metrics.addMetric(MetricName.RefusedByRule, MetricUnit.Count, 1);
      return;
    }
    if (!decoded.ok) {
      // The intake pipe sets MessageGroupId from detail.accountId.
      const accountId = decoded.accountId ?? record.attributes?.MessageGroupId ?? 'unknown';
      const sourceEventId = decoded.eventId ?? record.messageId;
      logger.setCorrelationId(sourceEventId);
      logger.appendKeys({ eventId: decoded.eventId, detailType: decoded.detailType, accountId });
      // Another route's event: its detail is not checked here (that contract is not in this bundle).
      const wrongRoute = decoded.code === 'WRONG_ROUTE';
      if (wrongRoute) logger.warn('event delivered to the wrong route', { route: detailType });
      else logger.warn('inbound event refused', { code: decoded.code, reason: decoded.message });
      await publishSyncFailed(dependencies, {
        accountId,
        sourceEventId,
        detailType: decoded.detailType ?? detailType,
        code: decoded.code,
        message: wrongRoute
          ? `detail-type ${decoded.detailType} is not handled by the ${detailType} route`
          : decoded.message,
      });
      return;
    }

    const { event } = decoded;
    const accountId = event.detail.accountId;
    logger.setCorrelationId(event.id);
    logger.appendKeys({ eventId: event.id, detailType: event.detailType, accountId });
    const receiveCount = receiveCountOf(record);

    if (receiveCount > 1) {
      const budget = await readRecordAttempts(dependencies.store, detailType, record.messageId);
      if (budget?.gaveUp) {
        logger.warn('record delivered again after it gave up; already reported and kept for redrive');
        return;
      }
    }
    // A replay, or a late arrival such as a redrive of a record that gave up, may carry an event a
    // replay already applied under another id: its content marker says so (applied-events.ts).
    const late =
      Number(record.attributes?.SentTimestamp) - Date.parse(event.time) > LATE_ARRIVAL_SECONDS * 1000;
    if (
      (event.replayName !== undefined || late) &&
      dependencies.config.replayMarkerTtlSeconds !== undefined
    ) {
      const appliedBy = await appliedEventId(dependencies.store, event, dependencies.clock.now());
      if (appliedBy !== undefined) {
        logger.info('event already applied (replayed or redriven); nothing to do', {
          ...(event.replayName === undefined ? {} : { replayName: event.replayName }),
          appliedBy,
        });
        metrics.addMetric(MetricName.ReplaySkipped, MetricUnit.Count, 1);
        return;
      }
    }

    try {
      await current.runOnce(event, receiveCount);
      metrics.addMetric(MetricName.RecordsProcessed, MetricUnit.Count, 1);
    } catch (error) {
      await failures.handle(dependencies, batch, record, event, error);
    }
  }

  const handleBatch = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const current = runtimeFor(dependenciesOf());
    current.idempotencyConfig.registerLambdaContext(context);
    const batch = new BatchState(context, recordTimeReserveMs(current.dependencies.config.httpTimeoutMs));
    // A processor per invocation: it holds the batch's state, and the local runtime may run
    // several invocations of one handler at once.
    const processor = new SqsFifoPartialProcessorAsync();
    try {
      const response = await processPartialResponse(
        event,
        (record: SQSRecord) => processRecord(record, current, batch),
        processor,
        {
          context,
          skipGroupOnError: true,
          // A fully failed batch is reported like a partial one rather than thrown: same retry,
          // without a misleading invocation error.
          throwOnFullBatchFailure: false,
        },
      );
      await failures.applyDelays(event.Records, response, batch);
      return response;
    } finally {
      logger.removeKeys(RECORD_LOG_KEYS);
    }
  };

  return middy<SQSEvent, SQSBatchResponse, Error, Context>(handleBatch)
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
}
