import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * One DynamoDB client per process, built on first use rather than at import so tests and the
 * local runtime can set AWS_ENDPOINT_URL_DYNAMODB (honoured by the SDK itself) before anything
 * connects. Keep-alive is the SDK default on Node >= 20, so no custom agent is needed.
 */
let client: DynamoDBClient | undefined;

export function dynamoDbClient(): DynamoDBClient {
  client ??= new DynamoDBClient({});
  return client;
}
