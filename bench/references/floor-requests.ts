/**
 * Cold-start reference "floor + first requests": the same clients as `floor.ts`, and a first
 * invocation that sends the least any connector function sends on its first record: the token
 * read (GetSecretValue), one DynamoDB read and one write (the idempotency record) and one
 * PutEvents. A client's first request loads and resolves what construction leaves lazy
 * (credentials, endpoint rules, the HTTP handler), which every real first invocation pays too.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';

const dynamo = new DynamoDBClient({});
const documents = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
const events = new EventBridgeClient({});
const secrets = new SecretsManagerClient({});

const tableName = process.env['TABLE_NAME'] ?? 'missing-table';
const busName = process.env['EVENT_BUS_NAME'] ?? 'default';
const secretId = process.env['TOKEN_SECRET_ID'] ?? 'missing-secret';

export const handler = async (): Promise<{ published: number }> => {
  const key = { pk: `BENCH#floor#${process.pid}#${Date.now()}`, sk: 'FLOOR' };
  await secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
  await documents.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
  await documents.send(new PutCommand({ TableName: tableName, Item: { ...key, type: 'BenchFloor' } }));
  const { Entries } = await events.send(
    new PutEventsCommand({
      Entries: [
        { EventBusName: busName, Source: 'bench.floor', DetailType: 'BenchFloor', Detail: '{"floor":true}' },
      ],
    }),
  );
  return { published: Entries?.length ?? 0 };
};
