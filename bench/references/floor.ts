/**
 * Cold-start reference "floor", as issue #9 defines it: a bundle that only constructs the AWS SDK
 * clients every connector function constructs (DynamoDB + DocumentClient, EventBridge, Secrets
 * Manager) at module scope, and whose invocation does nothing else.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const dynamo = new DynamoDBClient({});
const documents = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
const events = new EventBridgeClient({});
const secrets = new SecretsManagerClient({});

export const handler = async (): Promise<{ clients: number }> => ({
  clients: [documents, events, secrets].length,
});
