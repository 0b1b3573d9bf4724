import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as syncFailedContract from '#functions/contracts/outbound/sync-failed.ts';
import type {
  EventContract,
  InboundDetail,
  InboundDetailType,
  OutboundDetailType,
} from '#functions/contracts/registry.ts';
import {
  createRouteDecoder,
  type InboundContract,
  type InboundEvent,
} from '#functions/contracts/route-decoder.ts';
import { ConnectorError, PermanentError, TokenProblemError } from '#functions/domain/errors.ts';
import { type OutboundEvent, outboundContractsOf } from '#functions/publisher/publisher.ts';
import { loadConfig } from '#functions/runtime/config.ts';
import { buildDependencies, type Dependencies } from '#functions/runtime/dependencies.ts';
import { MetricName } from '#functions/runtime/metric-names.ts';
import { countSyncFailed, logger, metrics } from '#functions/runtime/observability.ts';
import {
  isServicePause,
  MAX_WAIT_SECONDS,
  mustGiveUp,
  recordTimeReserveMs,
  retryDelaySeconds,
  waitSeconds,
} from '#functions/runtime/retry-schedule.ts';
import {
  type RecordDelay,
  type RouteQueue,
  routeQueueSettings,
  sqsRouteQueue,
} from '#functions/runtime/route-queue.ts';
import { appliedEventId, markApplied } from '#functions/store/applied-events.ts';
import { recordSyncError } from '#functions/store/business.ts';
import { countFailedAttempt, markGaveUp, readRecordAttempts } from '#functions/store/record-attempts.ts';
import { idempotencyPersistenceOptions } from '#functions/store/table.ts';

/**
 * The runtime every queue-fed Lambda is built on, given the one inbound contract of its route and
 * the outbound contracts its use case publishes: a handler's bundle then constructs those schemas
 * and no other. Per SQS
 * FIFO record:
 *
 *   decode ─ no usable accountId / no route ───────▶ ack (the refusal rule sends the SyncFailed)
 *      │ invalid ──────────────────────────────────▶ SyncFailed, ack
 *      │ wrong detail-type for this route ─────────▶ SyncFailed WRONG_ROUTE, ack
 *      │ delivered again after it gave up ─────────▶ ack (already reported and kept)
 *      │ replayed or late (a redrive), its content
 *      │ applied before ────────────────────────────▶ ack (ReplaySkipped)
 *      ▼
 *   idempotent on the EventBridge event id: use case + publish its events
 *      ├─ ok / already done ───────────────────────▶ ack
 *      ├─ PermanentError, event id reused ─────────▶ SyncFailed + business.lastError, ack
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
 * for as long as it waits, so the account's events keep their order while other accounts
 * proceed. A record is not started when less time is left than one service call can take
 * (retry-schedule.ts); it goes back to the queue at once, uncounted. A record on its last chance
 * (its queue's last receives, or its retention near) is never held back or deferred: it is tried,
 * and gives up if it fails. retry-schedule.ts holds the numbers and why.
 */

export interface UseCaseEvent {
  id: string;
  detailType: string;
  time: string;
  source: string;
}

export interface UseCaseInput<Detail = unknown> {
  event: UseCaseEvent;
  detail: Detail;
  /** 1 on the first delivery; use cases may log or relax on later ones. */
  receiveCount: number;
}

/**
 * A use case: returns the events to publish. `accountId` and `causationId` are filled in by the
 * runtime when a detail leaves them out.
 */
export type UseCase<K extends InboundDetailType = InboundDetailType> = (
  input: UseCaseInput<InboundDetail<K>>,
  dependencies: Dependencies,
) => Promise<OutboundEvent[]>;

export interface RouteHandlerOptions<K extends InboundDetailType> {
  /** The inbound contract module of the route. */
  contract: InboundContract<K>;
  /** The outbound contract modules the use case publishes; SyncFailed is always added. */
  publishes: readonly EventContract<OutboundDetailType>[];
  useCase: UseCase<K>;
  /**
   * @default buildDependencies(loadConfig(), publishes + SyncFailed), with the config
   * checked when the handler is created
   */
  dependencies?: () => Dependencies;
  /**
   * The route's queue and dead-letter queue. @default the SQS queues the environment names
   * (route-queue.ts), checked when the handler is created if `dependencies` is not given
   */
  queue?: () => RouteQueue;
}

export type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

const RECORD_LOG_KEYS = ['correlation_id', 'eventId', 'detailType', 'accountId', 'messageId'];
// SyncFailed.message is capped by its contract.
const MAX_SYNC_FAILED_MESSAGE = 2048;

interface SyncFailure {
  accountId: string;
  sourceEventId: string;
  detailType: string;
  code: string;
  message: string;
}

interface Runtime {
  dependencies: Dependencies;
  idempotencyConfig: IdempotencyConfig;
  runOnce: (event: InboundEvent, receiveCount: number) => Promise<{ published: number }>;
}

/** A record failed on purpose: it waits or was not started; nothing more to log for it. */
class RecordHeldBack extends Error {
  constructor(readonly code: string) {
    super(`record held back (${code})`);
    this.name = 'RecordHeldBack';
  }
}

/** What one invocation decided for its records beyond ack / fail. */
class BatchState {
  /** Visibility to set per failed record, by message id. */
  readonly delays = new Map<string, RecordDelay>();
  /** Set when the token is missing or refused: every later record waits too, untried. */
  wait: { code: string } | undefined;
  started = 0;

  constructor(
    private readonly context: Context,
    private readonly reserveMs: number,
  ) {}

  delay(record: SQSRecord, seconds: number): void {
    this.delays.set(record.messageId, { record, seconds });
  }

  /** The first record always starts; later ones only with a whole service call's time left. */
  outOfTime(): boolean {
    return this.started > 0 && this.context.getRemainingTimeInMillis() < this.reserveMs;
  }
}

type FailureKind =
  | { kind: 'permanent'; code: string; message: string }
  | { kind: 'wait'; code: string; seconds: number; stopsBatch: boolean }
  | { kind: 'in-progress' }
  | { kind: 'attempt'; code: string };

function classify(error: unknown, event: InboundEvent, receiveCount: number): FailureKind {
  if (error instanceof IdempotencyValidationError) {
    // payloadValidationJmesPath 'detail': the same id came back with another detail.
    return {
      kind: 'permanent',
      code: 'EVENT_ID_REUSED',
      message: `event id ${event.id} was already applied with a different detail; publish a change as a new event`,
    };
  }
  if (error instanceof PermanentError) return { kind: 'permanent', code: error.code, message: error.message };
  // Another invocation holds the same event (a duplicate delivery): it decides; nothing counted.
  if (error instanceof IdempotencyAlreadyInProgressError) return { kind: 'in-progress' };
  if (error instanceof TokenProblemError) {
    return { kind: 'wait', code: error.code, seconds: waitSeconds(receiveCount), stopsBatch: true };
  }
  // A wait that is not the record's failure (isServicePause): the connector's own request budget
  // had no request soon enough (nothing was sent), or the service asked for a longer pause than the
  // client waits out in process. The record waits on its queue (ChangeMessageVisibility), uncounted.
  if (isServicePause(error)) {
    return {
      kind: 'wait',
      code: error.code,
      seconds: Math.min(MAX_WAIT_SECONDS, Math.max(1, Math.ceil((error.retryAfterMs ?? 1000) / 1000))),
      stopsBatch: false,
    };
  }
  return { kind: 'attempt', code: errorCode(error) };
}

function receiveCountOf(record: SQSRecord): number {
  const count = Number(record.attributes?.ApproximateReceiveCount);
  return Number.isInteger(count) && count > 0 ? count : 1;
}

/** Seconds since the record was sent to its queue (SentTimestamp, epoch milliseconds). */
function ageSecondsOf(record: SQSRecord, now: Date): number {
  const sent = Number(record.attributes?.SentTimestamp);
  return Number.isFinite(sent) && sent > 0 ? Math.max(0, (now.getTime() - sent) / 1000) : 0;
}

/**
 * A record sent to its queue this long after its event's time did not come straight from the
 * partner: a redrive, a replay, or a delivery EventBridge retried for long. Normally the pipe
 * forwards an event within seconds.
 */
const LATE_ARRIVAL_SECONDS = 5 * 60;

function errorCode(error: unknown): string {
  if (error instanceof ConnectorError) return error.code;
  return error instanceof Error ? error.name : 'UNKNOWN';
}

/** Fills what every outbound detail carries, without overriding what the use case set. */
function completeDetail(event: OutboundEvent, source: InboundEvent): OutboundEvent {
  const detail: Record<string, unknown> = { ...(event.detail as Record<string, unknown>) };
  detail['accountId'] ??= source.detail.accountId;
  detail['causationId'] ??= source.id;
  return { detailType: event.detailType, detail };
}

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
    resolveDependencies = () => buildDependencies(config, publishes);
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

  const lifeOf = (record: SQSRecord, dependencies: Dependencies) => ({
    receiveCount: receiveCountOf(record),
    ageSeconds: ageSecondsOf(record, dependencies.clock.now()),
  });

  /** A record whose next wait would be past its queue's last receives or retention: try it now. */
  const onLastChance = (record: SQSRecord, dependencies: Dependencies): boolean =>
    mustGiveUp(lifeOf(record, dependencies), waitSeconds(receiveCountOf(record)), queueOf().settings);

  let runtime: Runtime | undefined;
  function runtimeFor(dependencies: Dependencies): Runtime {
    if (runtime?.dependencies === dependencies) return runtime;
    const idempotencyConfig = new IdempotencyConfig({
      eventKeyJmesPath: 'id',
      // An event id that comes back with another detail is refused, not answered from the record.
      payloadValidationJmesPath: 'detail',
      throwOnNoIdempotencyKey: true,
      expiresAfterSeconds: dependencies.config.idempotencyTtlSeconds,
    });
    // Idempotency records live in the store's table, reached through the store's own low-level
    // client, so they can never point at another endpoint or table than the state they protect.
    const persistenceStore = new DynamoDBPersistenceLayer(
      idempotencyPersistenceOptions(dependencies.store.tableName, detailType, dependencies.store.client),
    );
    // The unit made idempotent is "use case + publish": a publish failure re-runs the use case,
    // whose creates are guarded in the store, so its events are never lost.
    const useCaseAndPublish = async (event: InboundEvent, receiveCount: number) => {
      const outbound = await options.useCase(
        {
          event: { id: event.id, detailType: event.detailType, time: event.time, source: event.source },
          detail: event.detail as InboundDetail<K>,
          receiveCount,
        },
        dependencies,
      );
      const completed = outbound.map((item) => completeDetail(item, event));
      // Before the publish: a failed publish re-runs the unit, and the marker is written again.
      const markerTtl = dependencies.config.replayMarkerTtlSeconds;
      if (markerTtl !== undefined) {
        await markApplied(dependencies.store, event, { at: dependencies.clock.now(), ttlSeconds: markerTtl });
      }
      await dependencies.publisher.publish(completed);
      if (completed.length > 0)
        metrics.addMetric(MetricName.EventsPublished, MetricUnit.Count, completed.length);
      return { published: completed.length };
    };
    runtime = {
      dependencies,
      idempotencyConfig,
      runOnce: makeIdempotent(useCaseAndPublish, {
        persistenceStore,
        config: idempotencyConfig,
        // The detail-type, not the function name: keys survive a function rename or redeploy.
        keyPrefix: detailType,
        dataIndexArgument: 0,
      }),
    };
    return runtime;
  }

  async function publishSyncFailed(dependencies: Dependencies, failure: SyncFailure): Promise<void> {
    await dependencies.publisher.publish([
      {
        detailType: 'SyncFailed',
        detail: {
          accountId: failure.accountId,
          causationId: failure.sourceEventId,
          sourceEventId: failure.sourceEventId,
          detailType: failure.detailType,
          code: failure.code,
          message: failure.message.slice(0, MAX_SYNC_FAILED_MESSAGE),
        },
      },
    ]);
    countSyncFailed(failure.code);
  }

  async function reportPermanent(
    dependencies: Dependencies,
    event: InboundEvent,
    failure: { code: string; message: string },
  ): Promise<void> {
    const accountId = event.detail.accountId;
    // If this publish fails the record is retried, so the partner always hears about it.
    await publishSyncFailed(dependencies, {
      accountId,
      sourceEventId: event.id,
      detailType: event.detailType,
      code: failure.code,
      message: failure.message,
    });
    try {
      await recordSyncError(dependencies.store, accountId, {
        code: failure.code,
        message: failure.message.slice(0, MAX_SYNC_FAILED_MESSAGE),
        at: dependencies.clock.now(),
      });
    } catch (storeError) {
      // Best effort: SyncFailed already told the partner; lastError is a convenience.
      logger.warn('could not record the sync error on the business', { error: storeError as Error });
    }
  }

  /**
   * The record will not be tried again: keep it in the dead-letter queue first (never lost), then
   * tell the partner, then remember it gave up (a lost delete must not report it twice).
   */
  async function giveUp(
    dependencies: Dependencies,
    record: SQSRecord,
    event: InboundEvent,
    last: { code: string; message: string; attempts: number; receiveCount: number },
  ): Promise<void> {
    const at = dependencies.clock.now();
    await queueOf().keep({ record, ...last, at });
    const tried =
      last.attempts > 0
        ? `${last.attempts} attempt(s) over ${last.receiveCount} receive(s)`
        : `waiting over ${last.receiveCount} receive(s)`;
    await reportPermanent(dependencies, event, {
      code: 'RETRIES_EXHAUSTED',
      message: `gave up after ${tried}; last error ${last.code}: ${last.message}. The event is kept in the ${detailType} dead-letter queue for a redrive once the cause is fixed.`,
    });
    try {
      await markGaveUp(dependencies.store, detailType, record.messageId, {
        eventId: event.id,
        code: last.code,
        at,
      });
    } catch (storeError) {
      logger.warn('could not remember that the record gave up', { error: storeError as Error });
    }
    metrics.addMetric(MetricName.RecordsGaveUp, MetricUnit.Count, 1);
    logger.error('record gave up: reported with SyncFailed RETRIES_EXHAUSTED and kept for redrive', {
      code: last.code,
      attempts: last.attempts,
      receiveCount: last.receiveCount,
    });
  }

  async function handleFailure(
    current: Runtime,
    batch: BatchState,
    record: SQSRecord,
    event: InboundEvent,
    error: unknown,
    receiveCount: number,
  ): Promise<void> {
    const { dependencies } = current;
    const failure = classify(error, event, receiveCount);
    const message = error instanceof Error ? error.message : String(error);
    switch (failure.kind) {
      case 'permanent':
        logger.warn('record failed permanently', { code: failure.code, error: error as Error });
        await reportPermanent(dependencies, event, failure);
        return;
      case 'in-progress':
        logger.warn('record is being processed by another invocation; it comes back later');
        throw error;
      case 'wait': {
        if (mustGiveUp(lifeOf(record, dependencies), failure.seconds, queueOf().settings)) {
          const budget = await readRecordAttempts(dependencies.store, detailType, record.messageId).catch(
            () => undefined,
          );
          await giveUp(dependencies, record, event, {
            code: failure.code,
            message,
            attempts: budget?.attempts ?? 0,
            receiveCount,
          });
          return;
        }
        if (failure.stopsBatch) batch.wait = { code: failure.code };
        batch.delay(record, failure.seconds);
        metrics.addMetric(MetricName.RecordsWaiting, MetricUnit.Count, 1);
        logger.warn('record waits; no attempt counted', {
          code: failure.code,
          waitSeconds: failure.seconds,
          receiveCount,
          error: error as Error,
        });
        throw new RecordHeldBack(failure.code);
      }
      case 'attempt': {
        let attempts: number;
        try {
          attempts = await countFailedAttempt(dependencies.store, detailType, record.messageId, {
            eventId: event.id,
            code: failure.code,
            at: dependencies.clock.now(),
          });
        } catch (storeError) {
          // Uncounted: the record comes back after the queue's visibility timeout.
          logger.warn('record will be retried; its attempt could not be counted', {
            code: failure.code,
            error: error as Error,
            storeError: storeError as Error,
          });
          metrics.addMetric(MetricName.RecordsFailed, MetricUnit.Count, 1);
          throw error;
        }
        const seconds = retryDelaySeconds(attempts);
        const settings = queueOf().settings;
        if (attempts >= settings.maxAttempts || mustGiveUp(lifeOf(record, dependencies), seconds, settings)) {
          await giveUp(dependencies, record, event, { code: failure.code, message, attempts, receiveCount });
          return;
        }
        batch.delay(record, seconds);
        metrics.addMetric(MetricName.RecordsFailed, MetricUnit.Count, 1);
        logger.warn('record will be retried', {
          code: failure.code,
          attempt: attempts,
          maxAttempts: settings.maxAttempts,
          retryInSeconds: seconds,
          error: error as Error,
        });
        throw error;
      }
    }
  }

  async function processRecord(record: SQSRecord, current: Runtime, batch: BatchState): Promise<void> {
    const { dependencies } = current;
    logger.removeKeys(RECORD_LOG_KEYS);
    logger.appendKeys({ messageId: record.messageId });
    // A record on its last chance is tried whatever the batch decided, so it can still give up
    // with a SyncFailed instead of reaching the DLQ through the redrive policy, unreported.
    const lastChance = (batch.wait !== undefined || batch.outOfTime()) && onLastChance(record, dependencies);
    if (batch.wait && !lastChance) {
      // The token is missing or refused: this record would fail the same way. It waits as long as
      // its own receives say, not the record that found the problem.
      batch.delay(record, waitSeconds(receiveCountOf(record)));
      metrics.addMetric(MetricName.RecordsWaiting, MetricUnit.Count, 1);
      throw new RecordHeldBack(batch.wait.code);
    }
    if (batch.outOfTime() && !lastChance) {
      batch.delay(record, 0);
      metrics.addMetric(MetricName.RecordsDeferred, MetricUnit.Count, 1);
      logger.info('record not started: too little time left in this invocation');
      throw new RecordHeldBack('NOT_STARTED');
    }
    batch.started += 1;
    const decoded = decode(record.body, { source: dependencies.config.inboundSource });

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
      await handleFailure(current, batch, record, event, error, receiveCount);
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
      await applyDelays(event.Records, response, batch);
      return response;
    } finally {
      logger.removeKeys(RECORD_LOG_KEYS);
    }
  };

  /**
   * Sets the visibility of the records that failed: each as its failure decided, and a record
   * skipped behind a failed one of its account as long as that one waits, so they come back in
   * order. A failure here only costs time: the records come back after the queue's own timeout.
   */
  async function applyDelays(
    records: readonly SQSRecord[],
    response: SQSBatchResponse,
    batch: BatchState,
  ): Promise<void> {
    const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    const groupDelay = new Map<string, number>();
    for (const { record, seconds } of batch.delays.values()) {
      const group = record.attributes.MessageGroupId ?? '';
      groupDelay.set(group, Math.max(groupDelay.get(group) ?? 0, seconds));
    }
    for (const record of records) {
      if (!failed.has(record.messageId) || batch.delays.has(record.messageId)) continue;
      const seconds = groupDelay.get(record.attributes.MessageGroupId ?? '');
      if (seconds !== undefined) batch.delay(record, seconds);
    }
    const delays = [...batch.delays.values()].filter(({ record }) => failed.has(record.messageId));
    if (delays.length === 0) return;
    try {
      await queueOf().delay(delays);
    } catch (error) {
      logger.warn("could not set the failed records' visibility; they come back after the queue's timeout", {
        error: error as Error,
      });
    }
  }

  return middy<SQSEvent, SQSBatchResponse, Error, Context>(handleBatch)
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
}
