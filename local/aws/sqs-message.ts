import { createHash } from 'node:crypto';

/**
 * A message as the SQS API takes it (SendMessage), keeps it and gives it back (ReceiveMessage):
 * the shapes the queue (sqs.ts), its API (sqs-api.ts) and its pollers share.
 */

export interface SendInput {
  readonly body: string;
  readonly groupId?: string;
  readonly deduplicationId?: string;
  /** Message attributes (string values), e.g. what EventBridge adds to a dead-letter message. */
  readonly messageAttributes?: Readonly<Record<string, string>>;
  /** SendMessage's per-message DelaySeconds (0-900): standard queues only. */
  readonly delaySeconds?: number;
}

export interface SendResult {
  readonly messageId: string;
  readonly sequenceNumber?: string;
  /** True when the deduplication id was seen within 5 minutes and nothing was enqueued. */
  readonly duplicate: boolean;
}

/** A message as a receiver sees it. */
export interface ReceivedMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
  readonly md5OfBody: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly messageAttributes: Readonly<Record<string, string>>;
}

/** A message of this queue, with what the local runtime knows about its past (not part of SQS). */
export interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly groupId?: string;
  readonly deduplicationId?: string;
  readonly sequenceNumber?: string;
  readonly sentTimestamp: number;
  readonly messageAttributes: Readonly<Record<string, string>>;
  /** ARN of the queue a dead-lettered message came from. */
  readonly deadLetterSourceArn?: string;
  receiveCount: number;
  firstReceiveTimestamp?: number;
  /** Why its last processing failed, as the poller that released it said. Local only. */
  lastFailure?: string;
}

export interface ReceiveOptions {
  readonly maxMessages: number;
  /** @default the queue's visibility timeout */
  readonly visibilityTimeoutSeconds?: number;
  /** Held until `release`/`delete`: for pollers of this runtime. @default false */
  readonly hold?: boolean;
}

/** A message as ReceiveMessage returns it, with the attributes SQS sets on it. */
export function receivedMessage(
  message: StoredMessage & { readonly receiptHandle?: string },
): ReceivedMessage {
  const attributes: Record<string, string> = {
    ApproximateReceiveCount: String(message.receiveCount),
    SentTimestamp: String(message.sentTimestamp),
    SenderId: 'AROA000000000000LOCAL:local',
    ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp ?? message.sentTimestamp),
  };
  if (message.sequenceNumber !== undefined) attributes['SequenceNumber'] = message.sequenceNumber;
  if (message.groupId !== undefined) attributes['MessageGroupId'] = message.groupId;
  if (message.deduplicationId !== undefined) attributes['MessageDeduplicationId'] = message.deduplicationId;
  if (message.deadLetterSourceArn !== undefined)
    attributes['DeadLetterQueueSourceArn'] = message.deadLetterSourceArn;
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle as string,
    body: message.body,
    md5OfBody: createHash('md5').update(message.body, 'utf8').digest('hex'),
    attributes,
    messageAttributes: message.messageAttributes,
  };
}
