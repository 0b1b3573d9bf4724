import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { perEndpoint } from './per-endpoint.ts';

/**
 * The process's DynamoDB client (one per endpoint: per-endpoint.ts). Keep-alive is the SDK default
 * on Node >= 20, so no custom agent is needed.
 */
export const dynamoDbClient = perEndpoint('AWS_ENDPOINT_URL_DYNAMODB', () => new DynamoDBClient({}));
