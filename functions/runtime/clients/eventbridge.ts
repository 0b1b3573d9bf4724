import { EventBridgeClient } from '@aws-sdk/client-eventbridge';

/** Built on first use so AWS_ENDPOINT_URL_EVENTBRIDGE set by a test or the local runtime applies. */
let client: EventBridgeClient | undefined;

export function eventBridgeClient(): EventBridgeClient {
  client ??= new EventBridgeClient({});
  return client;
}
