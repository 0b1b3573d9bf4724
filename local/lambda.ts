import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Context, EventBridgeEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueuedMessage } from './fifo-queue.ts';

/**
 * What the Lambda service hands a function: the context object, the SQS event of an event source
 * mapping and the EventBridge scheduled event. Handlers run locally must not be able to tell the
 * difference, so the shapes follow what Lambda delivers, field for field.
 */

export const LOCAL_ACCOUNT_ID = '000000000000';

/** The signature every connector handler exports (Lambda's Node.js async handler). */
export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

export interface LambdaFunctionSettings {
  readonly functionName: string;
  readonly region: string;
  readonly timeoutMs: number;
  readonly memoryMb?: number;
}

export function createLambdaContext(settings: LambdaFunctionSettings, startedAt = Date.now()): Context {
  const deadline = startedAt + settings.timeoutMs;
  const requestId = randomUUID();
  const day = new Date(startedAt).toISOString().slice(0, 10).replaceAll('-', '/');
  const unsupported = (name: string) => () => {
    throw new Error(`context.${name}() is the legacy callback API; connector handlers are async`);
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: settings.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${settings.region}:${LOCAL_ACCOUNT_ID}:function:${settings.functionName}`,
    memoryLimitInMB: String(settings.memoryMb ?? 1024),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${settings.functionName}`,
    logStreamName: `${day}/[$LATEST]${randomBytes(16).toString('hex')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported('done'),
    fail: unsupported('fail'),
    succeed: unsupported('succeed'),
  };
}

export class LambdaTimeoutError extends Error {
  constructor(functionName: string, timeoutMs: number) {
    super(`${functionName}: Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`);
    this.name = 'LambdaTimeoutError';
  }
}

/** Runs a handler once with a fresh context; a handler that outlives its timeout fails like Lambda's. */
export async function invokeFunction(
  handler: LambdaHandler,
  event: unknown,
  settings: LambdaFunctionSettings,
): Promise<unknown> {
  const context = createLambdaContext(settings);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new LambdaTimeoutError(settings.functionName, settings.timeoutMs)),
      settings.timeoutMs,
    );
  });
  try {
    return await Promise.race([handler(event, context), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface SqsQueueIdentity {
  readonly queueName: string;
  readonly region: string;
}

export function queueArn(queue: SqsQueueIdentity): string {
  return `arn:aws:sqs:${queue.region}:${LOCAL_ACCOUNT_ID}:${queue.queueName}`;
}

export function toSqsRecord(message: QueuedMessage, queue: SqsQueueIdentity): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: randomBytes(96).toString('base64'),
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentTimestamp),
      SequenceNumber: message.sequenceNumber,
      MessageGroupId: message.groupId,
      SenderId: `AROA${LOCAL_ACCOUNT_ID}LOCAL:events.amazonaws.com`,
      MessageDeduplicationId: message.deduplicationId,
      ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp ?? message.sentTimestamp),
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(message.body, 'utf8').digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn(queue),
    awsRegion: queue.region,
  };
}

export function toSqsEvent(batch: readonly QueuedMessage[], queue: SqsQueueIdentity): SQSEvent {
  return { Records: batch.map((message) => toSqsRecord(message, queue)) };
}

/**
 * Reads a partial batch response the way the event source mapping does: anything else than
 * `{batchItemFailures: [...]}` (including undefined) means the whole batch succeeded, and an
 * itemIdentifier that names no record of the batch fails the whole batch.
 */
export function failedMessageIds(response: unknown, batch: readonly QueuedMessage[]): string[] {
  if (typeof response !== 'object' || response === null || !('batchItemFailures' in response)) return [];
  const failures = (response as SQSBatchResponse).batchItemFailures;
  if (!Array.isArray(failures)) return [];
  const ids = new Set(batch.map((message) => message.messageId));
  const failed: string[] = [];
  for (const failure of failures) {
    const id = failure?.itemIdentifier;
    if (typeof id !== 'string' || !ids.has(id)) return [...ids];
    failed.push(id);
  }
  return failed;
}

export type ScheduledEvent = EventBridgeEvent<'Scheduled Event', Record<string, never>>;

export function scheduledEvent(ruleName: string, region: string, at = new Date()): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: LOCAL_ACCOUNT_ID,
    time: eventTime(at),
    region,
    resources: [`arn:aws:events:${region}:${LOCAL_ACCOUNT_ID}:rule/${ruleName}`],
    detail: {},
  };
}

/** EventBridge writes event times in seconds, without milliseconds. */
export function eventTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
