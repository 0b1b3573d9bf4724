import type { LocalClock } from './clock.ts';
import { type CompiledTemplate, dynamicParameter, withImplicitBodyParsing } from './input-template.ts';
import { type BatchVerdict, QueuePoller } from './poller.ts';
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
  onActivity?: (activity: PipeActivity) => void,
): QueuePoller {
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
    process: async (batch): Promise<BatchVerdict> => {
      try {
        for (const message of batch) forward(message);
        return { failed: new Set() };
      } catch (error) {
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
