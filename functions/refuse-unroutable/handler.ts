/**
 * Every inbound event → SyncFailed for those no route can take (MISSING_ACCOUNT_ID,
 * INVALID_ACCOUNT_ID, UNKNOWN_DETAIL_TYPE); routable events are left to their route.
 *
 * primary adapter: SQS standard batch from the refusal rule's queue (Powertools batch, partial
 * failures; idempotent per EventBridge event id) → use case: refuseUnroutable → secondary
 * adapters: publisher (and the table, for idempotency records).
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { dynamoDbDocumentClient } from '#functions/commons/clients/dynamodb.ts';
import { eventBridgeClient } from '#functions/commons/clients/eventbridge.ts';
import * as syncFailed from '#functions/commons/contracts/outbound/sync-failed.ts';
import { ConfigurationError } from '#functions/commons/errors.ts';
import { createEventPublisher, outboundContractsOf } from '#functions/commons/event-publisher.ts';
import { MetricName } from '#functions/commons/metric-names.ts';
import { countSyncFailed, logger, metrics } from '#functions/commons/observability.ts';
import { idempotencyPersistenceOptions } from '#functions/commons/store/table.ts';
import { refuseUnroutable } from './refuse-unroutable.ts';

// Cold start: what this function needs, checked once (it calls no service, so no token).
const settings = z
  .object({
    TABLE_NAME: z.string().min(1),
    EVENT_BUS_NAME: z.string().min(1),
    OUTBOUND_SOURCE: z.string().min(1).default('workforce.connector'),
    ROUTED_DETAIL_TYPES: z
      .string()
      .transform((raw) =>
        raw
          .split(',')
          .map((type) => type.trim())
          .filter((type) => type !== ''),
      )
      .pipe(z.array(z.string()).min(1)),
    IDEMPOTENCY_TTL_SECONDS: z.coerce.number().int().positive().default(86_400),
  })
  .safeParse(process.env);
if (!settings.success) {
  throw new ConfigurationError(
    `invalid refusal function configuration, cold start aborted: ${settings.error.issues
      .map((issue) => `${issue.path.join('.')} ${issue.message}`)
      .join('; ')}`,
  );
}
const config = settings.data;

const publisher = createEventPublisher({
  contracts: outboundContractsOf([syncFailed]),
  client: eventBridgeClient(),
  busName: config.EVENT_BUS_NAME,
  source: config.OUTBOUND_SOURCE,
});
const idempotencyConfig = new IdempotencyConfig({
  eventKeyJmesPath: 'eventId',
  throwOnNoIdempotencyKey: true,
  expiresAfterSeconds: config.IDEMPOTENCY_TTL_SECONDS,
});
// A duplicate delivery of a refused event must not tell the partner twice.
const publishOnce = makeIdempotent(
  async (refusal: { eventId: string; detail: object }) => {
    await publisher.publish([{ detailType: 'SyncFailed', detail: refusal.detail }]);
    countSyncFailed(String((refusal.detail as { code?: unknown }).code));
    metrics.addMetric(MetricName.EventsRefused, MetricUnit.Count, 1);
    return { published: true };
  },
  {
    persistenceStore: new DynamoDBPersistenceLayer(
      // The document client sends plain DynamoDB commands unchanged (route-handler.ts does the same).
      idempotencyPersistenceOptions(
        config.TABLE_NAME,
        'Refusal',
        dynamoDbDocumentClient() as unknown as DynamoDBClient,
      ),
    ),
    config: idempotencyConfig,
    keyPrefix: 'Refusal',
  },
);

async function processRecord(record: SQSRecord): Promise<void> {
  let event: unknown;
  try {
    event = JSON.parse(record.body);
  } catch {
    logger.error('refusal queue message is not an EventBridge event', { messageId: record.messageId });
    return;
  }
  const refusal = refuseUnroutable(event, config.ROUTED_DETAIL_TYPES);
  if (!refusal) return;
  logger.setCorrelationId(refusal.eventId);
  logger.warn('inbound event refused', { code: refusal.detail.code, eventId: refusal.eventId });
  await publishOnce(refusal);
}

export const handler = middy(async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  idempotencyConfig.registerLambdaContext(context);
  return processPartialResponse(event, processRecord, new BatchProcessor(EventType.SQS), { context });
})
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(logMetrics(metrics));
