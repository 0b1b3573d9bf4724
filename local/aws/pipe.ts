import { type AccessCheck, AccessDeniedError } from './access.ts';
import type { LocalClock } from './clock.ts';
import { type DeliveryModel, PIPE_POLLER_MAX_DELAY_SECONDS, SendOrder, shuffled } from './delivery-model.ts';
import { type CompiledTemplate, dynamicParameter, withImplicitBodyParsing } from './input-template.ts';
import { type BatchVerdict, type PollerAccess, QueuePoller } from './poller.ts';
import { SqsError, type SqsQueue } from './sqs.ts';
import type { ReceivedMessage } from './sqs-message.ts';

/**
 * An EventBridge pipe from an SQS queue to an SQS queue, as the EventBridge user guide describes it:
 *
 * - "Amazon SQS as a source": the pipe polls in batches of `BatchSize`; "When your pipe
 *   successfully processes a batch, EventBridge deletes its messages from the queue ... if your
 *   pipe encounters an error while processing a batch, all messages in that batch become visible in
 *   the queue again."
 * - "Amazon EventBridge Pipes error handling": "A pipe inherits dead-letter queue (DLQ) behavior
 *   from the source. If the source Amazon SQS queue has a configured DLQ, messages are
 *   automatically delivered there after the configured number of attempts."
 * - Target parameters `MessageGroupId` / `MessageDeduplicationId` are dynamic path parameters,
 *   read from the original event, not the transformed one ("Amazon EventBridge input
 *   transformation": "dynamic path parameters must reference the original event").
 * - The target input is the `InputTemplate` evaluated on the record (input-template.ts).
 * - No order from a standard queue: "If a source enforces order to the events sent to EventBridge
 *   Pipes, that order is maintained throughout the entire process to the destination" ("Amazon
 *   EventBridge Pipes sources"); a standard queue enforces none ("Amazon SQS standard queues":
 *   "messages may occasionally arrive out of order"), and "EventBridge polls up to 10 messages in
 *   your queue simultaneously" ("Amazon SQS as a source"). Unless the runtime's delivery model is
 *   ordered (delivery-model.ts), each of the pipe's concurrent pollers takes a seeded random time
 *   (below PIPE_POLLER_MAX_DELAY_SECONDS, scaled by the clock) before it forwards, so a later batch
 *   can overtake an earlier one, and forwards its batch in a seeded shuffled order. A FIFO source's
 *   order would be kept; the connector's pipes read standard intake queues.
 * - Permissions: "EventBridge Pipes uses the execution role to … read from the source and … invoke
 *   the target" ("Amazon EventBridge Pipes permissions": for an SQS source sqs:ReceiveMessage,
 *   sqs:DeleteMessage and sqs:GetQueueAttributes; for an SQS target sqs:SendMessage). A pipe that
 *   may not receive never polls (poller.ts); one that may not send fails its batch, which stays on
 *   the source queue (and goes to its DLQ after its receives, as any failed batch).
 */

export interface PipeDefinition {
  readonly name: string;
  readonly arn: string;
  readonly source: SqsQueue;
  readonly target: SqsQueue;
  readonly batchSize: number;
  readonly inputTemplate: CompiledTemplate;
  readonly messageGroupIdPath?: string;
  readonly messageDeduplicationIdPath?: string;
  readonly region: string;
  /** What the pipe's role must be allowed (access.ts). @default nothing is checked */
  readonly access?: PollerAccess & { readonly send: AccessCheck };
}

export type PipeActivity =
  | {
      readonly kind: 'pipe-forwarded';
      readonly pipe: string;
      readonly messageId: string;
      readonly duplicate: boolean;
    }
  | { readonly kind: 'pipe-failed'; readonly pipe: string; readonly size: number; readonly reason: string };

export function startPipe(
  definition: PipeDefinition,
  clock: LocalClock,
  delivery: DeliveryModel,
  onActivity?: (activity: PipeActivity) => void,
): QueuePoller {
  const keepsOrder = delivery.ordered || definition.source.fifo;
  const random = delivery.random(`pipe:${definition.name}`);
  /** Receive order: what a forward that overtakes an earlier received message breaks. */
  const receiveOrder = new SendOrder();
  const groupIdOf = definition.messageGroupIdPath
    ? dynamicParameter(definition.messageGroupIdPath)
    : undefined;
  const deduplicationIdOf = definition.messageDeduplicationIdPath
    ? dynamicParameter(definition.messageDeduplicationIdPath)
    : undefined;

  const forward = (message: ReceivedMessage): void => {
    const event = withImplicitBodyParsing(sourceRecord(message, definition));
    const body = definition.inputTemplate.evaluate(event, {
      pipeArn: definition.arn,
      pipeName: definition.name,
      sourceArn: definition.source.arn,
      targetArn: definition.target.arn,
      ingestionTime: new Date(clock.now()).toISOString(),
    });
    const groupId = groupIdOf === undefined ? undefined : parameterText('MessageGroupId', groupIdOf(event));
    const deduplicationId =
      deduplicationIdOf === undefined
        ? undefined
        : parameterText('MessageDeduplicationId', deduplicationIdOf(event));
    const sent = definition.target.send({
      body,
      ...(groupId === undefined ? {} : { groupId }),
      ...(deduplicationId === undefined ? {} : { deduplicationId }),
    });
    onActivity?.({
      kind: 'pipe-forwarded',
      pipe: definition.name,
      messageId: message.messageId,
      duplicate: sent.duplicate,
    });
  };

  const poller = new QueuePoller({
    queue: definition.source,
    batchSize: definition.batchSize,
    // A pipe scales its pollers with the backlog; locally a handful is as fast as the target.
    maxConcurrency: 5,
    ...(definition.access ? { access: definition.access } : {}),
    process: async (batch): Promise<BatchVerdict> => {
      const positions = new Map(batch.map((message) => [message, receiveOrder.enter()]));
      try {
        const denied = await definition.access?.send();
        if (denied !== undefined) throw new AccessDeniedError(denied);
        if (!keepsOrder) {
          const delayMs = clock.delayMs(random() * PIPE_POLLER_MAX_DELAY_SECONDS);
          await new Promise((resolve) => setTimeout(resolve, delayMs));
        }
        for (const message of keepsOrder ? batch : shuffled(batch, random)) {
          forward(message);
          if (receiveOrder.deliver(positions.get(message) as number)) delivery.countReordered();
        }
        return { failed: new Set() };
      } catch (error) {
        for (const position of positions.values()) receiveOrder.drop(position);
        const reason = `pipe ${definition.name}: target ${definition.target.name} refused the message: ${
          error instanceof Error ? error.message : String(error)
        }`;
        onActivity?.({ kind: 'pipe-failed', pipe: definition.name, size: batch.length, reason });
        return { failed: new Set(batch.map((message) => message.receiptHandle)), reason };
      }
    },
  });
  poller.start();
  return poller;
}

/** The SQS record a pipe's source hands it ("Amazon SQS as a source", example events). */
function sourceRecord(message: ReceivedMessage, definition: PipeDefinition): Record<string, unknown> {
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle,
    body: message.body,
    attributes: message.attributes,
    messageAttributes: message.messageAttributes,
    md5OfBody: message.md5OfBody,
    eventSource: 'aws:sqs',
    eventSourceARN: definition.source.arn,
    awsRegion: definition.region,
  };
}

/**
 * A dynamic parameter must give text. Numbers and booleans are sent as their text (not
 * documented; decided here); anything else fails the target call, which leaves the message on
 * the source for its redrive.
 */
function parameterText(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new SqsError('InvalidParameterValue', `${name}: the dynamic path selects no text value`);
}
