import { createHash, randomUUID } from 'node:crypto';
import { AwsApiError, type Operation } from '../aws-endpoint.ts';
import { SqsError, type SqsQueue } from './sqs.ts';

/**
 * The SQS API (AWS JSON 1.0, "Amazon SQS JSON API") over the local queues, for handlers
 * (ChangeMessageVisibility), `npm run redrive` and partners' own tools: SendMessage,
 * SendMessageBatch, ReceiveMessage, DeleteMessage, ChangeMessageVisibility, GetQueueUrl, GetQueueAttributes,
 * ListQueues, ListDeadLetterSourceQueues, PurgeQueue, StartMessageMoveTask and ListMessageMoveTasks.
 *
 * A message move ("StartMessageMoveTask": the source must be a dead-letter queue; without a
 * destination each message goes back to the queue it was dead-lettered from; "All redriven
 * messages are considered new messages" with a new id) runs at once locally, whatever rate it asks.
 *
 * SendMessage's DelaySeconds is the queue's to judge (sqs.ts: a FIFO queue refuses one other than 0
 * with InvalidParameterValue); SendMessageBatch judges each entry so, answering it in `Failed`
 * ("SendMessageBatch" API reference: "The result of sending each message is reported individually
 * in the response"; BatchResultErrorEntry: Id, SenderFault, Code, Message), and refuses the whole
 * request when it has no entry (EmptyBatchRequest), more than 10 (TooManyEntriesInBatchRequest),
 * two entries with one Id (BatchEntryIdsNotDistinct) or an Id other than 1-80 alphanumeric
 * characters, hyphens and underscores (InvalidBatchEntryId).
 */

export const SEND_MESSAGE_BATCH_MAX_ENTRIES = 10;
const BATCH_ENTRY_ID_PATTERN = /^[A-Za-z0-9_-]{1,80}$/;

interface MoveTask {
  readonly TaskHandle: string;
  readonly Status: 'COMPLETED' | 'FAILED';
  readonly SourceArn: string;
  readonly DestinationArn?: string;
  readonly ApproximateNumberOfMessagesMoved: number;
  readonly ApproximateNumberOfMessagesToMove: number;
  readonly FailureReason?: string;
  readonly StartedTimestamp: number;
}

const QUERY_ERRORS: Record<string, string> = {
  QueueDoesNotExist: 'AWS.SimpleQueueService.NonExistentQueue;Sender',
  ReceiptHandleIsInvalid: 'ReceiptHandleIsInvalid;Sender',
  MessageNotInflight: 'AWS.SimpleQueueService.MessageNotInflight;Sender',
  InvalidParameterValue: 'InvalidParameterValue;Sender',
  MissingParameter: 'MissingParameter;Sender',
  ResourceNotFoundException: 'ResourceNotFoundException;Sender',
  UnsupportedOperation: 'AWS.SimpleQueueService.UnsupportedOperation;Sender',
  EmptyBatchRequest: 'AWS.SimpleQueueService.EmptyBatchRequest;Sender',
  TooManyEntriesInBatchRequest: 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest;Sender',
  BatchEntryIdsNotDistinct: 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct;Sender',
  InvalidBatchEntryId: 'AWS.SimpleQueueService.InvalidBatchEntryId;Sender',
};

function apiError(type: string, message: string, status = 400): AwsApiError {
  return new AwsApiError(type, message, status, QUERY_ERRORS[type]);
}

export function sqsApi(options: { readonly queues: () => Iterable<SqsQueue> }): Record<string, Operation> {
  const moveTasks: MoveTask[] = [];
  const all = () => [...options.queues()];
  const byUrl = (body: Record<string, unknown>): SqsQueue => {
    const url = body['QueueUrl'];
    const queue = all().find((candidate) => candidate.url === url || candidate.name === url);
    if (!queue) throw apiError('QueueDoesNotExist', 'The specified queue does not exist.');
    return queue;
  };
  const byArn = (arn: unknown): SqsQueue | undefined => all().find((queue) => queue.arn === arn);
  const wrap =
    (operation: (body: Record<string, unknown>) => unknown): Operation =>
    (body) => {
      try {
        return operation(body);
      } catch (error) {
        if (error instanceof SqsError) throw apiError(error.code, error.message);
        throw error;
      }
    };

  return {
    'AmazonSQS.SendMessage': wrap((body) => {
      const queue = byUrl(body);
      return sendOne(queue, body);
    }),
    'AmazonSQS.SendMessageBatch': wrap((body) => {
      const queue = byUrl(body);
      const entries = Array.isArray(body['Entries']) ? (body['Entries'] as unknown[]) : [];
      if (entries.length === 0) {
        throw apiError(
          'EmptyBatchRequest',
          'There should be at least one SendMessageBatchRequestEntry in the request.',
        );
      }
      if (entries.length > SEND_MESSAGE_BATCH_MAX_ENTRIES) {
        throw apiError(
          'TooManyEntriesInBatchRequest',
          `Maximum number of entries per request are ${SEND_MESSAGE_BATCH_MAX_ENTRIES}. You have sent ${entries.length}.`,
        );
      }
      const records = entries.map((entry) =>
        typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {},
      );
      const seen = new Set<string>();
      for (const record of records) {
        const id = record['Id'];
        if (typeof id !== 'string' || !BATCH_ENTRY_ID_PATTERN.test(id)) {
          throw apiError(
            'InvalidBatchEntryId',
            'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.',
          );
        }
        if (seen.has(id)) throw apiError('BatchEntryIdsNotDistinct', `Id ${id} repeated.`);
        seen.add(id);
      }
      const successful: Array<Record<string, unknown>> = [];
      const failed: Array<Record<string, unknown>> = [];
      for (const record of records) {
        try {
          successful.push({ Id: record['Id'], ...sendOne(queue, record) });
        } catch (error) {
          if (!(error instanceof SqsError) && !(error instanceof AwsApiError)) throw error;
          const code = error instanceof SqsError ? error.code : error.type;
          failed.push({ Id: record['Id'], SenderFault: true, Code: code, Message: error.message });
        }
      }
      return { Successful: successful, Failed: failed };
    }),
    'AmazonSQS.ReceiveMessage': wrap((body) => {
      const queue = byUrl(body);
      const messages = queue.receive({
        maxMessages: typeof body['MaxNumberOfMessages'] === 'number' ? body['MaxNumberOfMessages'] : 1,
        ...(typeof body['VisibilityTimeout'] === 'number'
          ? { visibilityTimeoutSeconds: body['VisibilityTimeout'] }
          : {}),
      });
      return {
        Messages: messages.map((message) => ({
          MessageId: message.messageId,
          ReceiptHandle: message.receiptHandle,
          MD5OfBody: message.md5OfBody,
          Body: message.body,
          Attributes: message.attributes,
          MessageAttributes: Object.fromEntries(
            Object.entries(message.messageAttributes).map(([name, value]) => [
              name,
              { DataType: 'String', StringValue: value },
            ]),
          ),
        })),
      };
    }),
    'AmazonSQS.DeleteMessage': wrap((body) => {
      byUrl(body).delete(String(body['ReceiptHandle']));
      return {};
    }),
    'AmazonSQS.ChangeMessageVisibility': wrap((body) => {
      byUrl(body).changeVisibility(String(body['ReceiptHandle']), Number(body['VisibilityTimeout']));
      return {};
    }),
    'AmazonSQS.GetQueueUrl': wrap((body) => {
      const queue = all().find((candidate) => candidate.name === body['QueueName']);
      if (!queue) throw apiError('QueueDoesNotExist', 'The specified queue does not exist.');
      return { QueueUrl: queue.url };
    }),
    // "Returns a list of your queues that have the RedrivePolicy queue attribute configured with a
    // dead-letter queue" (ListDeadLetterSourceQueues API reference): how `npm run redrive` finds
    // where a dead letter goes back to.
    'AmazonSQS.ListDeadLetterSourceQueues': wrap((body) => {
      const deadLetterQueue = byUrl(body);
      return {
        queueUrls: all()
          .filter((queue) => queue.redrive?.deadLetterQueue === deadLetterQueue)
          .map((queue) => queue.url),
      };
    }),
    'AmazonSQS.ListQueues': wrap((body) => {
      const prefix = typeof body['QueueNamePrefix'] === 'string' ? body['QueueNamePrefix'] : '';
      return {
        QueueUrls: all()
          .filter((queue) => queue.name.startsWith(prefix))
          .map((queue) => queue.url),
      };
    }),
    'AmazonSQS.GetQueueAttributes': wrap((body) => {
      const queue = byUrl(body);
      const messages = queue.messages();
      const inFlight = queue.inFlight();
      const attributes: Record<string, string> = {
        QueueArn: queue.arn,
        ApproximateNumberOfMessages: String(messages.length - inFlight),
        ApproximateNumberOfMessagesNotVisible: String(inFlight),
        VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
        FifoQueue: String(queue.fifo),
      };
      if (queue.redrive) {
        attributes['RedrivePolicy'] = JSON.stringify({
          deadLetterTargetArn: queue.redrive.deadLetterQueue.arn,
          maxReceiveCount: queue.redrive.maxReceiveCount,
        });
      }
      const names = Array.isArray(body['AttributeNames']) ? (body['AttributeNames'] as string[]) : ['All'];
      return {
        Attributes: names.includes('All')
          ? attributes
          : Object.fromEntries(Object.entries(attributes).filter(([name]) => names.includes(name))),
      };
    }),
    'AmazonSQS.PurgeQueue': wrap((body) => {
      const queue = byUrl(body);
      for (const message of queue.messages()) queue.take(message.messageId);
      return {};
    }),
    'AmazonSQS.StartMessageMoveTask': wrap((body) => {
      const source = byArn(body['SourceArn']);
      if (!source)
        throw apiError(
          'ResourceNotFoundException',
          'The resource that you specified for the SourceArn parameter does not exist.',
          404,
        );
      if (!all().some((queue) => queue.redrive?.deadLetterQueue === source)) {
        throw apiError('UnsupportedOperation', 'Source queue must be configured as a Dead Letter Queue.');
      }
      const destination = body['DestinationArn'] === undefined ? undefined : byArn(body['DestinationArn']);
      if (body['DestinationArn'] !== undefined && !destination) {
        throw apiError(
          'ResourceNotFoundException',
          'The resource that you specified for the DestinationArn parameter does not exist.',
          404,
        );
      }
      const toMove = source.messages();
      let moved = 0;
      let failure: string | undefined;
      for (const message of toMove) {
        const target = destination ?? byArn(message.deadLetterSourceArn);
        if (!target) {
          failure = `message ${message.messageId} names no source queue to return to`;
          continue;
        }
        try {
          target.send({
            body: message.body,
            ...(message.groupId === undefined ? {} : { groupId: message.groupId }),
            // Not documented: which deduplication id a redriven FIFO message gets. A fresh one here,
            // so a second redrive of the same message within 5 minutes is never dropped as a duplicate
            // (the handlers' idempotency still recognises an event that was already applied).
            ...(target.fifo ? { deduplicationId: `redrive-${randomUUID()}` } : {}),
          });
          source.take(message.messageId);
          moved++;
        } catch (error) {
          failure = error instanceof Error ? error.message : String(error);
        }
      }
      const task: MoveTask = {
        TaskHandle: randomUUID(),
        Status: failure === undefined ? 'COMPLETED' : 'FAILED',
        SourceArn: source.arn,
        ...(destination ? { DestinationArn: destination.arn } : {}),
        ApproximateNumberOfMessagesMoved: moved,
        ApproximateNumberOfMessagesToMove: toMove.length,
        ...(failure === undefined ? {} : { FailureReason: failure }),
        StartedTimestamp: Date.now(),
      };
      moveTasks.unshift(task);
      return { TaskHandle: task.TaskHandle };
    }),
    'AmazonSQS.ListMessageMoveTasks': wrap((body) => {
      const max = typeof body['MaxResults'] === 'number' ? body['MaxResults'] : 1;
      return { Results: moveTasks.filter((task) => task.SourceArn === body['SourceArn']).slice(0, max) };
    }),
  };
}

/** One message of SendMessage, or one entry of SendMessageBatch, sent to `queue`. */
function sendOne(queue: SqsQueue, body: Record<string, unknown>) {
  if (typeof body['MessageBody'] !== 'string' || body['MessageBody'] === '') {
    throw apiError('MissingParameter', 'The request must contain the parameter MessageBody.');
  }
  const delay = body['DelaySeconds'];
  if (delay !== undefined && delay !== null && typeof delay !== 'number') {
    throw apiError('InvalidParameterValue', `Value ${String(delay)} for parameter DelaySeconds is invalid.`);
  }
  const attributes = messageAttributesOf(body['MessageAttributes']);
  const sent = queue.send({
    body: body['MessageBody'],
    ...(Object.keys(attributes).length > 0 ? { messageAttributes: attributes } : {}),
    ...(typeof body['MessageGroupId'] === 'string' ? { groupId: body['MessageGroupId'] } : {}),
    ...(typeof body['MessageDeduplicationId'] === 'string'
      ? { deduplicationId: body['MessageDeduplicationId'] }
      : {}),
    ...(typeof delay === 'number' ? { delaySeconds: delay } : {}),
  });
  return {
    MessageId: sent.messageId,
    // The SDK checks this against the body it sent.
    MD5OfMessageBody: createHash('md5').update(body['MessageBody'], 'utf8').digest('hex'),
    ...(sent.sequenceNumber ? { SequenceNumber: sent.sequenceNumber } : {}),
  };
}

/**
 * SendMessage's MessageAttributes ({name: {DataType, StringValue}}): kept as their string values,
 * which is all the connector reads back (String and Number attributes alike).
 */
function messageAttributesOf(raw: unknown): Record<string, string> {
  if (typeof raw !== 'object' || raw === null) return {};
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const text = (value as { StringValue?: unknown } | null)?.StringValue;
    if (typeof text !== 'string') {
      throw apiError(
        'InvalidParameterValue',
        `The message attribute '${name}' must contain a non-empty value.`,
      );
    }
    attributes[name] = text;
  }
  return attributes;
}
