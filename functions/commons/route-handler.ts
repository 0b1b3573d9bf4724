import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { loadConfig } from '#functions/commons/config.ts';
import * as syncFailedContract from '#functions/commons/contracts/outbound/sync-failed.ts';
import type {
  EventContract,
  InboundDetail,
  InboundDetailType,
  OutboundDetailType,
} from '#functions/commons/contracts/registry.ts';
import {
  createRouteDecoder,
  type InboundContract,
  type InboundEvent,
} from '#functions/commons/contracts/route-decoder.ts';
import { ConnectorError, PermanentError } from '#functions/commons/errors.ts';
import { type OutboundEvent, outboundContractsOf } from '#functions/commons/event-publisher.ts';
import { buildFunctionDependencies, type Dependencies } from '#functions/commons/function-dependencies.ts';
import { MetricName } from '#functions/commons/metric-names.ts';
import { logger, metrics } from '#functions/commons/observability.ts';
import { recordSyncError } from '#functions/commons/store/business.ts';
import { idempotencyPersistenceOptions } from '#functions/commons/store/table.ts';

/**
 * The runtime every queue-fed Lambda is built on, given the one inbound contract of its route and
 * the outbound contracts its use case publishes: a handler's bundle then constructs those schemas
 * and no other (`queue-handler.ts` builds the same runtime from the registry, for tests). Per SQS
 * FIFO record:
 *
 *   decode ─ no usable accountId / no route ───────▶ ack (the refusal rule sends the SyncFailed)
 *      │ invalid ──────────────────────────────────▶ SyncFailed, ack
 *      │ wrong detail-type for this route ─────────▶ SyncFailed WRONG_ROUTE, ack
 *      ▼
 *   idempotent on the EventBridge event id: use case + publish its events
 *      ├─ ok / already done ───────────────────────▶ ack
 *      ├─ PermanentError ──────────────────────────▶ SyncFailed + business.lastError, ack
 *      └─ RetryableError or anything unknown ──────▶ batch item failure (retry, then DLQ)
 *
 * A failed record fails every later record of its message group (the account) in the batch, so
 * the account's events keep their order, while other accounts proceed.
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
   * @default buildFunctionDependencies(loadConfig(), publishes + SyncFailed), with the config
   * checked when the handler is created
   */
  dependencies?: () => Dependencies;
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

function receiveCountOf(record: SQSRecord): number {
  const count = Number(record.attributes?.ApproximateReceiveCount);
  return Number.isInteger(count) && count > 0 ? count : 1;
}

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
    resolveDependencies = () => buildFunctionDependencies(config, publishes);
  }
  const dependenciesOf = resolveDependencies;

  let runtime: Runtime | undefined;
  function runtimeFor(dependencies: Dependencies): Runtime {
    if (runtime?.dependencies === dependencies) return runtime;
    const idempotencyConfig = new IdempotencyConfig({
      eventKeyJmesPath: 'id',
      throwOnNoIdempotencyKey: true,
      expiresAfterSeconds: dependencies.config.idempotencyTtlSeconds,
    });
    // Idempotency records live in the store's table, reached through the store's own client, so
    // they can never point at another endpoint or table than the state they protect. The document
    // client sends plain DynamoDB commands unchanged; only its own commands are (un)marshalled.
    const persistenceStore = new DynamoDBPersistenceLayer(
      idempotencyPersistenceOptions(
        dependencies.store.tableName,
        dependencies.store.doc as unknown as DynamoDBClient,
      ),
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
    const single = metrics.singleMetric();
    single.addDimension('code', failure.code);
    single.addMetric(MetricName.SyncFailed, MetricUnit.Count, 1);
  }

  async function processRecord(record: SQSRecord, current: Runtime): Promise<void> {
    const { dependencies } = current;
    logger.removeKeys(RECORD_LOG_KEYS);
    logger.appendKeys({ messageId: record.messageId });
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

    try {
      await current.runOnce(event, receiveCountOf(record));
      metrics.addMetric(MetricName.RecordsProcessed, MetricUnit.Count, 1);
    } catch (error) {
      if (!(error instanceof PermanentError)) {
        // Unknown errors are retried too: nothing is lost, and the DLQ catches poison messages.
        metrics.addMetric(MetricName.RecordsFailed, MetricUnit.Count, 1);
        logger.warn('record will be retried', { code: errorCode(error), error: error as Error });
        throw error;
      }
      logger.warn('record failed permanently', { code: error.code, error });
      // If this publish fails the record is retried, so the partner always hears about it.
      await publishSyncFailed(dependencies, {
        accountId,
        sourceEventId: event.id,
        detailType: event.detailType,
        code: error.code,
        message: error.message,
      });
      try {
        await recordSyncError(dependencies.store, accountId, {
          code: error.code,
          message: error.message.slice(0, MAX_SYNC_FAILED_MESSAGE),
          at: dependencies.clock.now(),
        });
      } catch (storeError) {
        // Best effort: SyncFailed already told the partner; lastError is a convenience.
        logger.warn('could not record the sync error on the business', { error: storeError as Error });
      }
    }
  }

  const handleBatch = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const current = runtimeFor(dependenciesOf());
    current.idempotencyConfig.registerLambdaContext(context);
    // A processor per invocation: it holds the batch's state, and the local runtime may run
    // several invocations of one handler at once.
    const processor = new SqsFifoPartialProcessorAsync();
    try {
      return await processPartialResponse(
        event,
        (record: SQSRecord) => processRecord(record, current),
        processor,
        {
          context,
          skipGroupOnError: true,
          // A fully failed batch is reported like a partial one rather than thrown: same retry,
          // without a misleading invocation error.
          throwOnFullBatchFailure: false,
        },
      );
    } finally {
      logger.removeKeys(RECORD_LOG_KEYS);
    }
  };

  return middy<SQSEvent, SQSBatchResponse, Error, Context>(handleBatch)
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
}
