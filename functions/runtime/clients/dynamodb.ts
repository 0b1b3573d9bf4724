import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DocumentClient } from './document-client.ts';

/**
 * One DynamoDB client per process, built on first use rather than at import so tests and the
 * local runtime can set AWS_ENDPOINT_URL_DYNAMODB (honoured by the SDK itself) before anything
 * connects. Keep-alive is the SDK default on Node >= 20, so no custom agent is needed.
 */
let client: DynamoDBClient | undefined;
let documentClient: DocumentClient | undefined;

export function dynamoDbClient(): DynamoDBClient {
  client ??= new DynamoDBClient({});
  return client;
}

/** The store's document client (document-client.ts) over that client. */
export function dynamoDbDocumentClient(): DocumentClient {
  documentClient ??= new DocumentClient(dynamoDbClient(), {
    // Optional fields of domain objects arrive as undefined; DynamoDB rejects them otherwise.
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
}
