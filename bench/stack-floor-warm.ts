import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { dynamoDbClient } from '#functions/runtime/clients/dynamodb.ts';
import { eventBridgeClient } from '#functions/runtime/clients/eventbridge.ts';
import { idempotencyPersistenceOptions } from '#functions/store/table.ts';

/**
 * The warm-path reference "stack floor" (issue #17 §2–§3): the required stack alone, warm, with
 * trivial code of its own — what the cold-start reference `bench/references/stack-floor.ts` is to
 * a first invocation. middy, Powertools logger (with the Lambda context), metrics (one metric,
 * flushed per invocation), the FIFO batch processor and idempotency (a key by JMESPath and a
 * payload hash, as the connector configures it), one record parsed by one small zod schema, and
 * one PutEvents, configured as the connector's route handler configures them. It runs in the
 * bench's process on the clients the handlers share, so the recorder sees its requests and
 * section 2 measures it against their raw replay like a flow. Its difference in ms, beside a
 * flow's, is what the stack alone adds per event before any connector code runs (its ratio is to
 * its own few requests, not to a flow's). Its detail is small: the payload hash grows with a
 * flow's detail, a stack cost this reference does not show.
 */

const envelope = z.object({
  id: z.string(),
  'detail-type': z.string(),
  time: z.string(),
  detail: z.object({ accountId: z.string() }).loose(),
});

export function stackFloorWarmHandler(options: {
  tableName: string;
  busName: string;
}): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const logger = new Logger({ serviceName: 'bench-stack-floor' });
  const metrics = new Metrics({ namespace: 'BenchStackFloor', serviceName: 'bench-stack-floor' });
  const idempotencyConfig = new IdempotencyConfig({
    eventKeyJmesPath: 'id',
    payloadValidationJmesPath: 'detail',
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: 3600,
  });
  const work = makeIdempotent(
    async (event: z.infer<typeof envelope>) => {
      await eventBridgeClient().send(
        new PutEventsCommand({
          Entries: [
            {
              EventBusName: options.busName,
              Source: 'bench.stack-floor',
              DetailType: 'BenchStackFloor',
              Detail: JSON.stringify({ causationId: event.id, accountId: event.detail.accountId }),
            },
          ],
        }),
      );
      metrics.addMetric('EventsPublished', MetricUnit.Count, 1);
      return { published: 1 };
    },
    {
      // The connector's own persistence options, under a scope of its own (no collision).
      persistenceStore: new DynamoDBPersistenceLayer(
        idempotencyPersistenceOptions(options.tableName, 'BenchStackFloor', dynamoDbClient()),
      ),
      config: idempotencyConfig,
      keyPrefix: 'BenchStackFloor',
    },
  );
  return (
    middy(async (event: SQSEvent, context: Context) => {
      idempotencyConfig.registerLambdaContext(context);
      return processPartialResponse(
        event,
        async (record: SQSRecord) =>
          work(envelope.parse((JSON.parse(record.body) as { event: unknown }).event)),
        new SqsFifoPartialProcessorAsync(),
        { context, skipGroupOnError: true, throwOnFullBatchFailure: false },
      );
    })
      // As the connector's route handler uses them (functions/runtime/route-handler.ts).
      .use(injectLambdaContext(logger, { resetKeys: true }))
      .use(logMetrics(metrics, { captureColdStartMetric: true })) as unknown as (
      event: SQSEvent,
      context: Context,
    ) => Promise<SQSBatchResponse>
  );
}
