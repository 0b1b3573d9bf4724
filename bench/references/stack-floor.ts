/**
 * Cold-start reference "stack floor": what the required stack alone costs before any connector
 * code runs. The SDK clients of `floor.ts` and four first requests (the token, the idempotency
 * record, one PutEvents), plus the libraries every
 * connector handler is built on (middy, Powertools logger, metrics, batch and idempotency, zod),
 * constructed as a handler constructs them, with one record parsed by one small schema.
 */
import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod';

const dynamo = new DynamoDBClient({});
const documents = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
const events = new EventBridgeClient({});
const secrets = new SecretsManagerClient({});
/** Every client a function constructs, the document client included (as the floor's). */
export const clients = [documents, events, secrets];
const logger = new Logger();
const metrics = new Metrics({ namespace: 'BenchStackFloor' });

const tableName = process.env['TABLE_NAME'] ?? 'missing-table';
const busName = process.env['EVENT_BUS_NAME'] ?? 'default';
const secretId = process.env['TOKEN_SECRET_ID'] ?? 'missing-secret';

const envelope = z.object({
  id: z.string(),
  'detail-type': z.string(),
  detail: z.object({ accountId: z.string() }),
});
const idempotencyConfig = new IdempotencyConfig({ eventKeyJmesPath: 'id' });
const work = makeIdempotent(
  async (event: z.infer<typeof envelope>) => {
    await secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
    await events.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: busName,
            Source: 'bench.floor',
            DetailType: 'BenchFloor',
            Detail: '{"floor":true}',
          },
        ],
      }),
    );
    return { id: event.id };
  },
  {
    persistenceStore: new DynamoDBPersistenceLayer({
      tableName,
      awsSdkV3Client: dynamo,
      keyAttr: 'pk',
      sortKeyAttr: 'sk',
    }),
    config: idempotencyConfig,
    keyPrefix: 'BenchStackFloor',
  },
);

export const handler = middy(async (event: SQSEvent, context: Context) => {
  idempotencyConfig.registerLambdaContext(context);
  return processPartialResponse(
    event,
    async (record: SQSRecord) => work(envelope.parse((JSON.parse(record.body) as { event: unknown }).event)),
    new SqsFifoPartialProcessorAsync(),
    { context, skipGroupOnError: true },
  );
})
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics));
