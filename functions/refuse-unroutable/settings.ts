import { DEFAULT_OUTBOUND_SOURCE } from '#functions/contracts/source.ts';
import { EnvironmentReader } from '#functions/runtime/environment-reader.ts';

/** What the refusal function needs (it calls no service, so no token), read as every function reads. */
export interface RefusalSettings {
  readonly tableName: string;
  readonly eventBusName: string;
  readonly outboundSource: string;
  /** The detail-types a route takes: any other is refused with UNKNOWN_DETAIL_TYPE. */
  readonly routedDetailTypes: readonly string[];
  readonly idempotencyTtlSeconds: number;
  /** Records from any other queue are intake dead letters (lib/: the intake DLQs' event sources). */
  readonly refusalQueueArn: string;
  /** Where a routable intake dead letter is kept for a redrive: each route's FIFO dead-letter queue. */
  readonly routeDeadLetterQueueUrls: ReadonlyMap<string, string>;
}

const QUEUE_URL_SHAPE = /^https?:\/\/\S+$/;

/** Reads the refusal function's settings at cold start; every bad variable is named in one error. */
export function refusalSettings(env: NodeJS.ProcessEnv = process.env): RefusalSettings {
  const reader = new EnvironmentReader(env);
  const tableName = reader.required('TABLE_NAME', 'DynamoDB table name');
  const eventBusName = reader.required('EVENT_BUS_NAME', 'EventBridge bus name or ARN');
  const outboundSource = reader.text('OUTBOUND_SOURCE') ?? DEFAULT_OUTBOUND_SOURCE;
  const routedDetailTypes = reader.list('ROUTED_DETAIL_TYPES');
  if (routedDetailTypes.length === 0) {
    reader.problem('ROUTED_DETAIL_TYPES', 'is required (comma-separated detail-types the routes take)');
  }
  const idempotencyTtlSeconds = reader.wholeNumber('IDEMPOTENCY_TTL_SECONDS', 86_400, 31_536_000);
  const refusalQueueArn = reader.required('REFUSAL_QUEUE_ARN', "ARN of the refusal rule's queue");
  if (refusalQueueArn !== '' && !refusalQueueArn.startsWith('arn:')) {
    reader.problem('REFUSAL_QUEUE_ARN', 'must be an ARN');
  }
  // `<DetailType>=<URL of the route's FIFO dead-letter queue>,...` (the queue URLs only: Lambda
  // allows 4 KB of variables in all).
  const routeDeadLetterQueueUrls = new Map<string, string>();
  const pairs = reader.list('ROUTE_DEAD_LETTER_QUEUE_URLS');
  if (pairs.length === 0) {
    reader.problem('ROUTE_DEAD_LETTER_QUEUE_URLS', 'is required (<DetailType>=<queue URL>,...)');
  }
  for (const [index, pair] of pairs.entries()) {
    const split = pair.indexOf('=');
    const detailType = split > 0 ? pair.slice(0, split) : '';
    const url = pair.slice(split + 1);
    if (detailType === '' || !QUEUE_URL_SHAPE.test(url)) {
      reader.problem('ROUTE_DEAD_LETTER_QUEUE_URLS', 'must be <DetailType>=<queue URL>', `item ${index + 1}`);
    } else {
      routeDeadLetterQueueUrls.set(detailType, url);
    }
  }
  reader.throwIfBad('refusal function configuration');
  return {
    tableName,
    eventBusName,
    outboundSource,
    routedDetailTypes,
    idempotencyTtlSeconds,
    refusalQueueArn,
    routeDeadLetterQueueUrls,
  };
}
