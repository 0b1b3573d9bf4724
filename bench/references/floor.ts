/**
 * Cold-start reference "floor", as issue #9 defines it: a bundle that only constructs the AWS SDK
 * clients every connector function constructs (DynamoDB, EventBridge, Secrets Manager) at module
 * scope, and whose invocation does nothing else. The functions' document client is the connector's
 * own (functions/runtime/clients/document-client.ts), not an SDK client: it is not part of the floor.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

const dynamo = new DynamoDBClient({});
const events = new EventBridgeClient({});
const secrets = new SecretsManagerClient({});

export const handler = async (): Promise<{ clients: number }> => ({
  clients: [dynamo, events, secrets].length,
});
