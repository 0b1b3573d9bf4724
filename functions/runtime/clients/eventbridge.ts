import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { perEndpoint } from './per-endpoint.ts';

/** The process's EventBridge client (one per endpoint: per-endpoint.ts). */
export const eventBridgeClient = perEndpoint('AWS_ENDPOINT_URL_EVENTBRIDGE', () => new EventBridgeClient({}));
