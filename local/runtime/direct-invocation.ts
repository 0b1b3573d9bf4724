import { createHash, randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { BusEvent } from '../aws/event-bus.ts';
import { dynamicParameter, withImplicitBodyParsing } from '../aws/input-template.ts';
import {
  type BatchInvocation,
  eventTime,
  invokeFunction,
  keptMessageIds,
  LOCAL_ACCOUNT_ID,
  type LocalFunction,
  scheduledEvent,
  toSqsEvent,
} from '../aws/lambda.ts';
import type { LocalDeployment } from '../deployment.ts';
import type { InvocationReport, OutboundEvent } from '../runtime.ts';
import { LOCAL_REGION } from '../template.ts';
import { sandboxNow } from './schedules.ts';

/**
 * One function run once, outside its event source, as `npm run invoke` and `/_local/invoke` run it:
 * the event given is wrapped as the template's rule, pipe and event source would wrap it.
 */

export interface InvocationSetup {
  readonly deployed: LocalDeployment;
  readonly sandboxUrl: string;
  /** Every event accepted by PutEvents so far (grows during the invocation). */
  readonly published: readonly BusEvent[];
  readonly outbound: () => readonly OutboundEvent[];
}

export async function invokeOnce(
  setup: InvocationSetup,
  fn: LocalFunction,
  input?: unknown,
): Promise<InvocationReport> {
  const { published } = setup;
  const built = await invocationEvent(setup, fn, input);
  // An SQS batch's records become real messages of the function's queue, held for this one
  // invocation as the event source mapping holds what it receives: the function's own calls on
  // them (ChangeMessageVisibility for a record that waits) act on a message the queue knows.
  const held = heldRecords(setup.deployed, fn, built);
  const event = held ? held.event : built;
  const before = published.length;
  const started = Date.now();
  let result: unknown;
  let error: string | undefined;
  try {
    result = await invokeFunction(await fn.handler(), event, fn.settings);
  } catch (failure) {
    error = failure instanceof Error ? (failure.stack ?? failure.message) : String(failure);
  }
  const durationMs = Date.now() - started;
  const during = new Set(published.slice(before).map((item) => item.id));
  const retried = held?.release(error === undefined ? { failed: false, response: result } : { failed: true });
  return {
    functionName: fn.name,
    event,
    ...(error === undefined ? { result } : { error }),
    durationMs,
    published: setup.outbound().filter((item) => during.has(item.id)),
    ...(retried && retried.length > 0 ? { retried } : {}),
  };
}

/** The mapping that feeds `fn`: its own queue first (the refusal function also reads dead-letter queues). */
function mappingOf(deployed: LocalDeployment, fn: LocalFunction) {
  const kindOf = (queue: string) => deployed.queueViews.find((view) => view.name === queue)?.kind;
  const fed = deployed.mappings.filter((candidate) => candidate.function === fn);
  return fed.find((mapping) => kindOf(mapping.queue.name) !== 'dead-letter') ?? fed[0];
}

function heldRecords(
  deployed: LocalDeployment,
  fn: LocalFunction,
  event: unknown,
):
  | {
      event: SQSEvent;
      release: (invocation: BatchInvocation) => Array<{ messageId: string; visibleAgainInSeconds: number }>;
    }
  | undefined {
  const mapping = mappingOf(deployed, fn);
  if (!mapping || !isRecord(event) || !Array.isArray(event['Records'])) return undefined;
  const records = event['Records'] as SQSRecord[];
  const adopted = records.map((record) => {
    const queue =
      [...deployed.queues.values()].find((candidate) => candidate.arn === record.eventSourceARN) ??
      mapping.queue;
    const attributes = record.attributes ?? {};
    const message = queue.adoptHeld({
      body: String(record.body),
      ...(queue.fifo
        ? {
            groupId: attributes.MessageGroupId ?? 'invoke',
            deduplicationId: attributes.MessageDeduplicationId ?? record.messageId,
          }
        : {}),
    });
    // The record names the queue it was adopted into, as the event source would: a sample's own
    // ARN (another account, another stack) would otherwise tell the function it came elsewhere.
    return {
      queue,
      record: { ...record, receiptHandle: message.receiptHandle, eventSourceARN: queue.arn },
    };
  });
  return {
    event: { Records: adopted.map(({ record }) => record) },
    release: (invocation) => {
      // What the event source mapping does with the invocation's answer.
      const failures = new Set(
        keptMessageIds(
          invocation,
          adopted.map(({ record }) => record.messageId),
          mapping.reportBatchItemFailures,
        ),
      );
      return adopted.flatMap(({ queue, record }) => {
        const dropped = queue.dropHeld(record.receiptHandle);
        if (!failures.has(record.messageId) || 'deleted' in dropped) return [];
        return [{ messageId: record.messageId, visibleAgainInSeconds: dropped.visibleAgainInSeconds }];
      });
    },
  };
}

/** The event `fn` would receive for `input`, wrapped as the template wraps it. */
async function invocationEvent(setup: InvocationSetup, fn: LocalFunction, input: unknown): Promise<unknown> {
  const { deployed } = setup;
  const region = LOCAL_REGION;
  const scheduled = deployed.scheduledRules.find(({ rule }) =>
    rule.targets.some((target) => target.kind === 'lambda' && target.function === fn),
  );
  if (input === undefined) {
    if (!scheduled) throw new Error(`${fn.name} is fed by a queue: give it an event file`);
    return scheduledEvent(scheduled.rule.arn, region, await sandboxNow(setup.sandboxUrl));
  }
  if (isRecord(input) && Array.isArray(input['Records'])) return input;
  const busEvent = asBusEvent(input, region);
  if (!busEvent) {
    throw new Error(
      'the event must be an SQS batch ({"Records": [...]}), an EventBridge event or a PutEvents entry (events/inbound/*/)',
    );
  }
  if (scheduled) return busEvent;
  const mapping = mappingOf(deployed, fn);
  if (!mapping) throw new Error(`${fn.name} has no event source in the template`);
  const pipe = deployed.pipes.find((candidate) => candidate.target === mapping.queue);
  let body = JSON.stringify(busEvent);
  let groupId: string | undefined;
  let deduplicationId: string | undefined;
  if (pipe) {
    const record = withImplicitBodyParsing({ body, attributes: {}, messageAttributes: {} });
    body = pipe.inputTemplate.evaluate(record, {
      pipeArn: pipe.arn,
      pipeName: pipe.name,
      sourceArn: pipe.source.arn,
      targetArn: pipe.target.arn,
      ingestionTime: new Date().toISOString(),
    });
    if (pipe.messageGroupIdPath) groupId = String(dynamicParameter(pipe.messageGroupIdPath)(record));
    if (pipe.messageDeduplicationIdPath) {
      deduplicationId = String(dynamicParameter(pipe.messageDeduplicationIdPath)(record));
    }
  }
  const sentAt = Date.now();
  return toSqsEvent(
    [
      {
        messageId: randomUUID(),
        receiptHandle: randomUUID(),
        body,
        md5OfBody: createHash('md5').update(body).digest('hex'),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(sentAt),
          SenderId: 'AROA000000000000LOCAL:invoke',
          ApproximateFirstReceiveTimestamp: String(sentAt),
          ...(groupId === undefined
            ? {}
            : { MessageGroupId: groupId, SequenceNumber: '10000000000000000001' }),
          ...(deduplicationId === undefined ? {} : { MessageDeduplicationId: deduplicationId }),
        },
        messageAttributes: {},
      },
    ],
    mapping.queue.arn,
    region,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An EventBridge event from an event or a PutEvents entry (as EventBridge would make it). */
function asBusEvent(input: unknown, region: string): BusEvent | undefined {
  if (!isRecord(input)) return undefined;
  if (typeof input['detail-type'] === 'string' && isRecord(input['detail']))
    return input as unknown as BusEvent;
  if (typeof input['DetailType'] !== 'string' || typeof input['Detail'] !== 'string') return undefined;
  let detail: unknown;
  try {
    detail = JSON.parse(input['Detail']);
  } catch {
    return undefined;
  }
  if (!isRecord(detail)) return undefined;
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': input['DetailType'],
    source: typeof input['Source'] === 'string' ? input['Source'] : '',
    account: LOCAL_ACCOUNT_ID,
    time: eventTime(new Date()),
    region,
    resources: [],
    detail,
  };
}
