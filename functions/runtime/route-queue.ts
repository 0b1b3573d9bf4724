import { ChangeMessageVisibilityCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { sqsClient } from '#functions/runtime/clients/sqs.ts';
import { EnvironmentReader } from './environment-reader.ts';

/**
 * The route's own queue, as its handler acts on it beyond what the event source mapping does:
 * making records wait (ChangeMessageVisibility) and keeping a record that gives up in the route's
 * dead-letter queue (SendMessage), from where `npm run redrive` returns it. `lib/` sets the
 * variables below on every route function from the queues it creates.
 */

export const ROUTE_QUEUE_ENV_VARS = [
  'QUEUE_URL',
  'DEAD_LETTER_QUEUE_URL',
  'MAX_RECEIVE_COUNT',
  'MAX_ATTEMPTS',
  'QUEUE_RETENTION_SECONDS',
] as const;

/** Message attributes on a record the handler kept in the dead-letter queue. */
export const DEAD_LETTER_ATTRIBUTES = {
  /** The code of the last failure (the names EventBridge gives its own dead letters). */
  errorCode: 'ERROR_CODE',
  errorMessage: 'ERROR_MESSAGE',
  attempts: 'ATTEMPTS',
  receiveCount: 'RECEIVE_COUNT',
  gaveUpAt: 'GAVE_UP_AT',
  /** "true": the partner was told with SyncFailed RETRIES_EXHAUSTED. */
  reported: 'SYNC_FAILED_PUBLISHED',
} as const;

export interface RouteQueueSettings {
  /** The route's FIFO queue. */
  readonly queueUrl: string;
  /** The route's FIFO dead-letter queue. */
  readonly deadLetterQueueUrl: string;
  /** The queue's redrive policy; the handler gives up a few receives before it (retry-schedule.ts). */
  readonly maxReceiveCount: number;
  /** Counted (retryable) failures before a record gives up. */
  readonly maxAttempts: number;
  /** The queue's MessageRetentionPeriod: a waiting record gives up before SQS would delete it. */
  readonly retentionSeconds: number;
}

const QUEUE_URL_SHAPE = /^https?:\/\/\S+$/;

/** Reads the route's queue settings at cold start; every bad variable is named in one error. */
export function routeQueueSettings(env: NodeJS.ProcessEnv = process.env): RouteQueueSettings {
  const reader = new EnvironmentReader(env);
  const queueUrl = (name: string, what: string) => {
    const url = reader.required(name, what);
    if (url !== '' && !QUEUE_URL_SHAPE.test(url)) reader.problem(name, 'must be a queue URL');
    return url;
  };
  const settings: RouteQueueSettings = {
    queueUrl: queueUrl('QUEUE_URL', 'URL of the route FIFO queue'),
    deadLetterQueueUrl: queueUrl('DEAD_LETTER_QUEUE_URL', 'URL of the route dead-letter queue'),
    maxReceiveCount: reader.requiredWholeNumber(
      'MAX_RECEIVE_COUNT',
      "the queue redrive policy's maxReceiveCount",
      1000,
    ),
    maxAttempts: reader.requiredWholeNumber('MAX_ATTEMPTS', 'counted failures before a record gives up', 100),
    retentionSeconds: reader.requiredWholeNumber(
      'QUEUE_RETENTION_SECONDS',
      "the queue's MessageRetentionPeriod in seconds",
      1_209_600,
    ),
  };
  reader.throwIfBad('route queue configuration');
  return settings;
}

export interface RecordDelay {
  readonly record: SQSRecord;
  /** Seconds from now until the record is visible again (0: at once). */
  readonly seconds: number;
}

export interface KeptRecord {
  readonly record: SQSRecord;
  readonly code: string;
  readonly message: string;
  readonly attempts: number;
  readonly receiveCount: number;
  readonly at: Date;
}

export interface RouteQueue {
  readonly settings: RouteQueueSettings;
  /** Sets the records' visibility; a record whose call fails comes back after the queue's timeout. */
  delay(delays: readonly RecordDelay[]): Promise<void>;
  /** Copies a record that gives up to the dead-letter queue, with why (DEAD_LETTER_ATTRIBUTES). */
  keep(kept: KeptRecord): Promise<void>;
}

/** Longest text of an SQS message attribute kept here (the message body carries the event). */
const MAX_ATTRIBUTE_TEXT = 1024;

/** The route queue over the SQS API. */
export function sqsRouteQueue(settings: RouteQueueSettings): RouteQueue {
  return {
    settings,
    async delay(delays) {
      if (delays.length === 0) return;
      // One call per record (at most a batch, 10): the action the event source's own grant
      // (sqs:ChangeMessageVisibility) names, with nothing more to allow.
      const outcomes = await Promise.allSettled(
        delays.map(({ record, seconds }) =>
          sqsClient().send(
            new ChangeMessageVisibilityCommand({
              QueueUrl: settings.queueUrl,
              ReceiptHandle: record.receiptHandle,
              VisibilityTimeout: seconds,
            }),
          ),
        ),
      );
      const failed = outcomes.filter((outcome) => outcome.status === 'rejected');
      if (failed.length > 0) {
        const reasons = failed.map((outcome) => (outcome.reason as Error)?.name ?? 'Error');
        throw new Error(
          `ChangeMessageVisibility failed for ${failed.length} record(s): ${[...new Set(reasons)].join(', ')}`,
        );
      }
    },
    async keep(kept) {
      await keepInDeadLetterQueue(settings.deadLetterQueueUrl, {
        body: kept.record.body,
        // The account's group: a redrive puts it back in line behind that account's events.
        groupId: kept.record.attributes.MessageGroupId ?? 'unknown',
        // The same message giving up twice within SQS's 5-minute deduplication interval is kept
        // once (SQS API Reference, SendMessage, MessageDeduplicationId).
        deduplicationId: `gave-up-${kept.record.messageId}`,
        code: kept.code,
        message: kept.message,
        attempts: kept.attempts,
        receiveCount: kept.receiveCount,
        at: kept.at,
      });
    },
  };
}

/** A message kept in a route's FIFO dead-letter queue, in the shape its FIFO queue carries. */
export interface DeadLetterCopy {
  /** The FIFO message body: `{"event": <the EventBridge event>}`, as the intake pipe writes it. */
  readonly body: string;
  /** The account id: a redrive puts the message back in line behind that account's events. */
  readonly groupId: string;
  readonly deduplicationId: string;
  /** Why it was kept (DEAD_LETTER_ATTRIBUTES.errorCode / errorMessage). */
  readonly code: string;
  readonly message: string;
  /** Counted attempts of the route's function (0: it never got the record). */
  readonly attempts: number;
  readonly receiveCount: number;
  readonly at: Date;
}

/**
 * Sends `copy` to a route's FIFO dead-letter queue with the attributes that say why it is there
 * (DEAD_LETTER_ATTRIBUTES): what a route handler does with a record that gives up, and what the
 * refusal function does with a routable event the intake could not deliver (refuse-unroutable).
 * `npm run redrive` returns either to the route's FIFO queue.
 */
export async function keepInDeadLetterQueue(deadLetterQueueUrl: string, copy: DeadLetterCopy): Promise<void> {
  // By code points: cutting a surrogate pair would leave a value SQS refuses.
  const text = (value: string) => ({
    DataType: 'String',
    StringValue: Array.from(value).slice(0, MAX_ATTRIBUTE_TEXT).join(''),
  });
  const number = (value: number) => ({ DataType: 'Number', StringValue: String(value) });
  await sqsClient().send(
    new SendMessageCommand({
      QueueUrl: deadLetterQueueUrl,
      MessageBody: copy.body,
      MessageGroupId: copy.groupId,
      MessageDeduplicationId: copy.deduplicationId,
      MessageAttributes: {
        [DEAD_LETTER_ATTRIBUTES.errorCode]: text(copy.code),
        [DEAD_LETTER_ATTRIBUTES.errorMessage]: text(copy.message || copy.code),
        [DEAD_LETTER_ATTRIBUTES.attempts]: number(copy.attempts),
        [DEAD_LETTER_ATTRIBUTES.receiveCount]: number(copy.receiveCount),
        [DEAD_LETTER_ATTRIBUTES.gaveUpAt]: text(copy.at.toISOString()),
        [DEAD_LETTER_ATTRIBUTES.reported]: text('true'),
      },
    }),
  );
}
