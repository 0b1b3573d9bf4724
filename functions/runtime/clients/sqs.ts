import { SQSClient } from '@aws-sdk/client-sqs';
import { perEndpoint } from './per-endpoint.ts';

/** The process's SQS client (one per endpoint: per-endpoint.ts). */
export const sqsClient = perEndpoint('AWS_ENDPOINT_URL_SQS', () => new SQSClient({}));
