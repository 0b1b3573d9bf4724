/**
 * Every inbound event → SyncFailed for those no route can take (MISSING_ACCOUNT_ID,
 * INVALID_ACCOUNT_ID, UNKNOWN_DETAIL_TYPE); routable events are left to their route. And every
 * message of a route's intake dead-letter queue → answered, so nothing stays parked there: an
 * event no route can take is refused as above (the same idempotency record, so the partner hears
 * once whichever copy comes first); a routable one is reported with SyncFailed INTAKE_UNDELIVERABLE
 * and kept in its route's FIFO dead-letter queue, from where `npm run redrive` delivers it.
 *
 * primary adapter: SQS standard batches from the refusal rule's queue and from every intake
 * dead-letter queue, told apart by the record's eventSourceARN (Powertools batch, partial
 * failures; idempotent per EventBridge event id) → use cases: refuseUnroutable,
 * answerIntakeDeadLetter → secondary adapters: publisher, the route dead-letter queues (SQS) and
 * the table (idempotency records).
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { SyncFailedDetail } from '#functions/contracts/outbound/sync-failed.ts';
import * as syncFailed from '#functions/contracts/outbound/sync-failed.ts';
import { ConfigurationError } from '#functions/domain/errors.ts';
import { createPublisher, outboundContractsOf } from '#functions/publisher/publisher.ts';
import { dynamoDbClient } from '#functions/runtime/clients/dynamodb.ts';
import { eventBridgeClient } from '#functions/runtime/clients/eventbridge.ts';
import { MetricName } from '#functions/runtime/metric-names.ts';
import { countSyncFailed, logger, metrics } from '#functions/runtime/observability.ts';
import { keepInDeadLetterQueue } from '#functions/runtime/route-queue.ts';
import { idempotencyPersistenceOptions } from '#functions/store/table.ts';
import {
  answerIntakeDeadLetter,
  type Refusal,
  refuseUnroutable,
  type UndeliverableCopy,
} from './refuse-unroutable.ts';
import { refusalSettings } from './settings.ts';

// Cold start: what this function needs, checked once.
const config = refusalSettings();

const publisher = createPublisher({
  contracts: outboundContractsOf([syncFailed]),
  client: eventBridgeClient(),
  busName: config.eventBusName,
  source: config.outboundSource,
});
// Idempotency records in the table, one partition per purpose, through the shared low-level client
// (route-handler.ts does the same).
const persistenceOf = (scope: string) =>
  new DynamoDBPersistenceLayer(idempotencyPersistenceOptions(config.tableName, scope, dynamoDbClient()));
const idempotencyConfig = new IdempotencyConfig({
  eventKeyJmesPath: 'eventId',
  throwOnNoIdempotencyKey: true,
  expiresAfterSeconds: config.idempotencyTtlSeconds,
});
// A duplicate delivery of a refused event must not tell the partner twice.
const publishOnce = makeIdempotent(
  async (refusal: { eventId: string; detail: SyncFailedDetail }) => {
    await publisher.publish([{ detailType: 'SyncFailed', detail: refusal.detail }]);
    countSyncFailed(refusal.detail.code);
    metrics.addMetric(MetricName.EventsRefused, MetricUnit.Count, 1);
    return { published: true };
  },
  {
    persistenceStore: persistenceOf('Refusal'),
    config: idempotencyConfig,
    keyPrefix: 'Refusal',
  },
);

// A routable event an intake dead-letter queue held: kept in its route's dead-letter queue first
// (never lost), then the partner is told. Its own idempotency records (a purpose of their own:
// a refusal and a copy are different answers), so a redelivered dead letter neither tells the
// partner twice nor leaves two copies (the copy's deduplication id is the event id, too: a message
// sent again with the same id is accepted but not delivered within the 5-minute deduplication
// interval, SQS API Reference, SendMessage, MessageDeduplicationId). If the
// publish fails and the retries outlast that interval, the route DLQ may
// hold a second copy: a redrive applies it once anyway (the route is idempotent on the event id).
const keepUndeliverableOnce = makeIdempotent(
  async (undeliverable: {
    eventId: string;
    detail: SyncFailedDetail;
    copy: UndeliverableCopy;
    deadLetterQueueUrl: string;
  }) => {
    await keepInDeadLetterQueue(undeliverable.deadLetterQueueUrl, {
      ...undeliverable.copy,
      attempts: 0,
      receiveCount: 0,
      at: new Date(),
    });
    await publisher.publish([{ detailType: 'SyncFailed', detail: undeliverable.detail }]);
    countSyncFailed(undeliverable.detail.code);
    metrics.addMetric(MetricName.IntakeUndeliverable, MetricUnit.Count, 1);
    return { kept: true };
  },
  {
    persistenceStore: persistenceOf('IntakeUndeliverable'),
    config: idempotencyConfig,
    keyPrefix: 'IntakeUndeliverable',
  },
);

async function refuse(refusal: NonNullable<Refusal>): Promise<void> {
  logger.setCorrelationId(refusal.eventId);
  logger.warn('inbound event refused', { code: refusal.detail.code, eventId: refusal.eventId });
  await publishOnce(refusal);
}

/**
 * A message of an intake dead-letter queue. One that is not an EventBridge event (none of AWS's
 * paths puts one there: someone sent it by hand) cannot be answered to anyone and must not vanish:
 * it fails, so it stays in its queue, comes back after the visibility timeout, logs this error
 * each time and counts in RecordsFailed (alarm RefusalRecordsFailed) until someone removes it or
 * the queue's retention (14 days, DEAD_LETTER_RETENTION) ends.
 */
async function answerIntakeDeadLetterRecord(record: SQSRecord): Promise<void> {
  const attribute = (name: string) => record.messageAttributes[name]?.stringValue;
  const errorCode = attribute('ERROR_CODE');
  const errorMessage = attribute('ERROR_MESSAGE');
  const answer = answerIntakeDeadLetter(
    record.body,
    {
      ...(errorCode === undefined ? {} : { errorCode }),
      ...(errorMessage === undefined ? {} : { errorMessage }),
    },
    config.routedDetailTypes,
  );
  if (answer.kind === 'unreadable') {
    logger.error('intake dead letter is not an EventBridge event: left in its queue for a person', {
      messageId: record.messageId,
      queue: record.eventSourceARN,
      reason: answer.reason,
    });
    throw new Error(`intake dead letter ${record.messageId}: ${answer.reason}`);
  }
  if (answer.kind === 'refused') {
    // Already answered when the refusal queue's copy came first: the idempotency record says so.
    await refuse(answer.refusal);
    return;
  }
  const deadLetterQueueUrl = config.routeDeadLetterQueueUrls.get(answer.detailType);
  if (!deadLetterQueueUrl) {
    throw new ConfigurationError(
      `ROUTE_DEAD_LETTER_QUEUE_URLS names no dead-letter queue for ${answer.detailType}`,
    );
  }
  logger.setCorrelationId(answer.eventId);
  logger.error('routable event in an intake dead-letter queue: reported and kept for a redrive', {
    eventId: answer.eventId,
    detailType: answer.detailType,
    queue: record.eventSourceARN,
    ...(errorCode === undefined ? {} : { errorCode }),
  });
  await keepUndeliverableOnce({
    eventId: answer.eventId,
    detail: answer.syncFailed,
    copy: answer.copy,
    deadLetterQueueUrl,
  });
}

async function processRecord(record: SQSRecord): Promise<void> {
  try {
    if (record.eventSourceARN === config.refusalQueueArn) await checkInboundEvent(record);
    else await answerIntakeDeadLetterRecord(record);
  } catch (error) {
    // The record comes back after its queue's visibility timeout (partial batch failure).
    metrics.addMetric(MetricName.RecordsFailed, MetricUnit.Count, 1);
    throw error;
  }
}

async function checkInboundEvent(record: SQSRecord): Promise<void> {
  let event: unknown;
  try {
    event = JSON.parse(record.body);
  } catch {
    logger.error('refusal queue message is not an EventBridge event', { messageId: record.messageId });
    return;
  }
  const refusal = refuseUnroutable(event, config.routedDetailTypes);
  if (!refusal) return;
  await refuse(refusal);
}

export const handler = middy(async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  idempotencyConfig.registerLambdaContext(context);
  return processPartialResponse(event, processRecord, new BatchProcessor(EventType.SQS), { context });
})
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(logMetrics(metrics));
