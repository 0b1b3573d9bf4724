import { randomBytes, randomUUID } from 'node:crypto';
import type { Context, EventBridgeEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { invocationScope } from '../handler-output.ts';
import type { LocalClock } from './clock.ts';
import { type BatchVerdict, type PollerAccess, QueuePoller } from './poller.ts';
import type { SqsQueue } from './sqs.ts';
import type { ReceivedMessage } from './sqs-message.ts';

/**
 * What the Lambda service does for the connector: invoke a handler with a context (AWS Lambda
 * Developer Guide, "Using the Lambda context object to retrieve Node.js function information"),
 * stop it at its timeout, run the SQS event source mapping ("Using Lambda with Amazon SQS") and
 * invoke asynchronously for EventBridge rules ("How Lambda handles errors and retries with
 * asynchronous invocation"). Handlers run locally must not be able to tell the difference, so the
 * shapes follow what Lambda delivers, field for field.
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

/** A function of the template, ready to be invoked. */
export interface LocalFunction {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  /** Repository-relative source of the handler module. */
  readonly entry: string;
  readonly handlerExport: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly environment: Readonly<Record<string, string>>;
  readonly settings: LambdaFunctionSettings;
  /** The handler, imported on first use (its cold start). */
  handler(): Promise<LambdaHandler>;
}

export function createLambdaContext(settings: LambdaFunctionSettings, startedAt = Date.now()): Context {
  const deadline = startedAt + settings.timeoutMs;
  const day = new Date(startedAt).toISOString().slice(0, 10).replaceAll('-', '/');
  const unsupported = (name: string) => () => {
    throw new Error(`context.${name}() is the legacy callback API; connector handlers are async`);
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: settings.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${settings.region}:${LOCAL_ACCOUNT_ID}:function:${settings.functionName}`,
    memoryLimitInMB: String(settings.memoryMb ?? 128),
    awsRequestId: randomUUID(),
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
    // The invocation's own scope: what the handler writes is labelled with its function.
    return await Promise.race([
      invocationScope.run(settings.functionName, () => handler(event, context)),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** One message as the SQS event source hands it to a function ("Example standard/FIFO queue message event"). */
export function toSqsRecord(message: ReceivedMessage, queueArn: string, region: string): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle,
    body: message.body,
    attributes: message.attributes as unknown as SQSRecord['attributes'],
    messageAttributes: Object.fromEntries(
      Object.entries(message.messageAttributes).map(([name, value]) => [
        name,
        { stringValue: value, stringListValues: [], binaryListValues: [], dataType: 'String' },
      ]),
    ),
    md5OfBody: message.md5OfBody,
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

export function toSqsEvent(batch: readonly ReceivedMessage[], queueArn: string, region: string): SQSEvent {
  return { Records: batch.map((message) => toSqsRecord(message, queueArn, region)) };
}

/**
 * Reads a partial batch response the way the event source mapping does ("Handling errors for an
 * SQS event source in Lambda", ReportBatchItemFailures): an empty list, null or anything that is
 * not a `batchItemFailures` response means the whole batch succeeded; an itemIdentifier that is
 * empty or names no record of the batch fails the whole batch.
 */
export function failedMessageIds(response: unknown, messageIds: readonly string[]): string[] {
  if (typeof response !== 'object' || response === null || !('batchItemFailures' in response)) return [];
  const failures = (response as SQSBatchResponse).batchItemFailures;
  if (failures === null || failures === undefined) return [];
  if (!Array.isArray(failures)) return [...messageIds];
  const ids = new Set(messageIds);
  const failed: string[] = [];
  for (const failure of failures) {
    const id = failure?.itemIdentifier;
    if (typeof id !== 'string' || !ids.has(id)) return [...messageIds];
    failed.push(id);
  }
  return failed;
}

/** How an invocation of an event source mapping's batch ended. */
export type BatchInvocation =
  | { readonly failed: true }
  | { readonly failed: false; readonly response: unknown };

/**
 * The records of a batch the event source mapping returns to the queue after an invocation: all
 * of them when the invocation failed (an error or a timeout); otherwise, with
 * ReportBatchItemFailures, those the partial batch response names (failedMessageIds), and without
 * it none ("Handling errors for an SQS event source in Lambda").
 */
export function keptMessageIds(
  invocation: BatchInvocation,
  messageIds: readonly string[],
  reportBatchItemFailures: boolean,
): string[] {
  if (invocation.failed) return [...messageIds];
  return reportBatchItemFailures ? failedMessageIds(invocation.response, messageIds) : [];
}

export interface EventSourceMappingDefinition {
  readonly queue: SqsQueue;
  readonly function: LocalFunction;
  readonly batchSize: number;
  /** ScalingConfig.MaximumConcurrency; without it Lambda scales up to the account's concurrency. */
  readonly maxConcurrency: number;
  readonly reportBatchItemFailures: boolean;
  readonly region: string;
  /** Chaos hook (poller.ts): the share of successful records delivered again. @default 0 */
  readonly lostDeleteRate?: number;
  readonly random?: () => number;
  /**
   * What the function's execution role must be allowed on the queue: Lambda polls it with that role
   * ("Using Lambda with Amazon SQS", execution role permissions: sqs:ReceiveMessage,
   * sqs:DeleteMessage, sqs:GetQueueAttributes). @default nothing is checked
   */
  readonly access?: PollerAccess;
}

export interface BatchActivity {
  readonly kind: 'batch';
  readonly functionName: string;
  readonly queue: string;
  readonly size: number;
  readonly failed: number;
  readonly reason?: string;
  readonly detailTypes: readonly string[];
  /** When the invocation started (performance.now()) and how long it took (its cold start included, the first time). */
  readonly startedAt: number;
  readonly durationMs: number;
}

/**
 * The SQS event source mapping: batches of up to `BatchSize`, at most `MaximumConcurrency` at once;
 * with ReportBatchItemFailures only the reported records stay on the queue; a function error or
 * timeout leaves the whole batch there ("Handling errors for an SQS event source in Lambda").
 */
export function startEventSourceMapping(
  definition: EventSourceMappingDefinition,
  onBatch?: (activity: BatchActivity) => void,
): QueuePoller {
  const fn = definition.function;
  const poller = new QueuePoller({
    queue: definition.queue,
    batchSize: definition.batchSize,
    maxConcurrency: definition.maxConcurrency,
    ...(definition.lostDeleteRate ? { lostDeleteRate: definition.lostDeleteRate } : {}),
    ...(definition.random ? { random: definition.random } : {}),
    ...(definition.access ? { access: definition.access } : {}),
    process: async (batch): Promise<BatchVerdict> => {
      const byId = new Map(batch.map((message) => [message.messageId, message.receiptHandle]));
      let failedIds: string[];
      let reason: string | undefined;
      const startedAt = performance.now();
      try {
        const handler = await fn.handler();
        const response = await invokeFunction(
          handler,
          toSqsEvent(batch, definition.queue.arn, definition.region),
          fn.settings,
        );
        failedIds = keptMessageIds(
          { failed: false, response },
          [...byId.keys()],
          definition.reportBatchItemFailures,
        );
        if (failedIds.length > 0) reason = describeFailures(fn.name, response);
      } catch (error) {
        failedIds = keptMessageIds({ failed: true }, [...byId.keys()], definition.reportBatchItemFailures);
        reason = `${fn.name} failed: ${error instanceof Error ? error.message : String(error)}`;
      }
      onBatch?.({
        kind: 'batch',
        functionName: fn.name,
        queue: definition.queue.name,
        size: batch.length,
        failed: failedIds.length,
        detailTypes: batch.map((message) => detailTypeOf(message.body)),
        startedAt,
        durationMs: performance.now() - startedAt,
        ...(reason === undefined ? {} : { reason }),
      });
      return {
        failed: new Set(failedIds.map((id) => byId.get(id) as string)),
        ...(reason === undefined ? {} : { reason }),
      };
    },
  });
  poller.start();
  return poller;
}

/**
 * Handlers may say why a record failed next to its itemIdentifier (an extra field Lambda ignores);
 * the local dead-letter view shows it.
 */
function describeFailures(functionName: string, response: unknown): string {
  const failures = (response as { batchItemFailures: Array<Record<string, unknown>> }).batchItemFailures;
  const codes = [
    ...new Set(
      failures.map((failure) => failure['reason']).filter((r): r is string => typeof r === 'string'),
    ),
  ];
  return codes.length > 0
    ? `${functionName}: ${codes.join('; ')}`
    : `${functionName} reported the record in batchItemFailures`;
}

/** The detail-type inside an SQS body, for progress lines (the wrapped or the bare event). */
export function detailTypeOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { 'detail-type'?: unknown; event?: { 'detail-type'?: unknown } };
    const type = parsed.event?.['detail-type'] ?? parsed['detail-type'];
    return typeof type === 'string' ? type : '?';
  } catch {
    return '?';
  }
}

/**
 * Asynchronous invocation, as EventBridge invokes a Lambda target: the event is queued and, when the
 * function fails, retried twice with delays between them ("How Lambda handles errors and retries
 * with asynchronous invocation": "Lambda retries the function two more times ... one minute
 * before the first retry and two minutes between the first and second retries"); then discarded
 * (no on-failure destination is configured). Delays are scaled by the clock.
 */
export async function invokeAsync(
  fn: LocalFunction,
  event: unknown,
  clock: LocalClock,
): Promise<{ result?: unknown; errors: string[] }> {
  const errors: string[] = [];
  const delays = [0, 60, 120];
  for (const delay of delays) {
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, clock.delayMs(delay)));
    try {
      const handler = await fn.handler();
      return { result: await invokeFunction(handler, event, fn.settings), errors };
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  return { errors };
}

export type ScheduledEvent = EventBridgeEvent<'Scheduled Event', Record<string, never>>;

/** The event a schedule rule sends ("Creating a rule that runs on a schedule", example event). */
export function scheduledEvent(ruleArn: string, region: string, at = new Date()): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: LOCAL_ACCOUNT_ID,
    time: eventTime(at),
    region,
    resources: [ruleArn],
    detail: {},
  };
}

/** EventBridge writes event times in seconds, without milliseconds. */
export function eventTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
