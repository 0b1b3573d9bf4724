import { SQSClient } from '@aws-sdk/client-sqs';

/** Built on first use so AWS_ENDPOINT_URL_SQS set by a test or the local runtime applies. */
let client: SQSClient | undefined;

export function sqsClient(): SQSClient {
  client ??= new SQSClient({});
  return client;
}
