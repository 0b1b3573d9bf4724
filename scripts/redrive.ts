import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListMessageMoveTasksCommand,
  type ListMessageMoveTasksResultEntry,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';

/**
 * Moves the messages of a dead-letter queue back to the queue(s) they came from, with the SQS
 * message-move task (the same mechanism as the console's "Start DLQ redrive"), or shows what it
 * would move, or lists the move tasks of that queue.
 *
 *   npm run redrive -- <queue name | URL | ARN> [--dry-run] [--status] [--to <queue>] [--max-rate N] [--region R]
 *
 * `--to` names the destination: needed for messages that EventBridge itself dead-lettered (a rule or
 * schedule target that failed), since SQS returns only messages it moved from a source queue.
 */

export const USAGE =
  'usage: npm run redrive -- <dead-letter queue name | URL | ARN> [--dry-run] [--status] [--to <queue>] [--max-rate N] [--region R]';

/** SQS accepts 1..500 messages per second for a move task. */
export const MAX_MOVE_RATE = 500;

export interface RedriveOptions {
  readonly queue: string;
  readonly dryRun: boolean;
  readonly status: boolean;
  readonly maxRate?: number;
  readonly region?: string;
  /** Destination queue (name, URL or ARN). @default - each message's source queue */
  readonly to?: string;
}

export class RedriveUsageError extends Error {
  constructor(message: string) {
    super(`${message}\n${USAGE}`);
    this.name = 'RedriveUsageError';
  }
}

export function parseRedriveArgs(argv: readonly string[]): RedriveOptions {
  let parsed: ReturnType<typeof parseRedriveArgv>;
  try {
    parsed = parseRedriveArgv(argv);
  } catch (error) {
    throw new RedriveUsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [queue, ...extra] = positionals;
  if (queue === undefined) throw new RedriveUsageError('missing the dead-letter queue');
  if (extra.length > 0) throw new RedriveUsageError(`unexpected arguments: ${extra.join(' ')}`);
  let maxRate: number | undefined;
  if (values['max-rate'] !== undefined) {
    maxRate = Number(values['max-rate']);
    if (!Number.isInteger(maxRate) || maxRate < 1 || maxRate > MAX_MOVE_RATE) {
      throw new RedriveUsageError(`--max-rate must be a whole number from 1 to ${MAX_MOVE_RATE}`);
    }
  }
  return {
    queue,
    dryRun: values['dry-run'] ?? false,
    status: values.status ?? false,
    ...(maxRate !== undefined ? { maxRate } : {}),
    ...(values.region ? { region: values.region } : {}),
    ...(values.to ? { to: values.to } : {}),
  };
}

function parseRedriveArgv(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      'dry-run': { type: 'boolean' },
      status: { type: 'boolean' },
      'max-rate': { type: 'string' },
      region: { type: 'string' },
      to: { type: 'string' },
    },
  });
}

export interface ResolvedQueue {
  readonly url: string;
  readonly arn: string;
}

const ARN_PATTERN = /^arn:[a-z-]+:sqs:[a-z0-9-]+:(\d{12}):(.+)$/;

/** Accepts a queue name, URL or ARN; the move task wants the ARN, the attributes call the URL. */
export async function resolveQueue(sqs: SQSClient, queue: string): Promise<ResolvedQueue> {
  const arnMatch = ARN_PATTERN.exec(queue);
  const url = queue.startsWith('https://')
    ? queue
    : (
        await sqs.send(
          new GetQueueUrlCommand(
            arnMatch ? { QueueName: arnMatch[2], QueueOwnerAWSAccountId: arnMatch[1] } : { QueueName: queue },
          ),
        )
      ).QueueUrl;
  if (!url) throw new Error(`queue ${queue} not found`);
  if (arnMatch) return { url, arn: queue };
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  const arn = Attributes?.QueueArn;
  if (!arn) throw new Error(`queue ${queue} has no ARN in its attributes`);
  return { url, arn };
}

export type RedriveOutcome =
  | { readonly kind: 'dry-run'; readonly queue: ResolvedQueue; readonly messages: number }
  | {
      readonly kind: 'started';
      readonly queue: ResolvedQueue;
      readonly taskHandle: string;
      readonly messages: number;
    }
  | { readonly kind: 'nothing-to-move'; readonly queue: ResolvedQueue }
  | {
      readonly kind: 'status';
      readonly queue: ResolvedQueue;
      readonly tasks: readonly ListMessageMoveTasksResultEntry[];
    };

/** Runs one redrive command; `print` receives the lines an operator reads. */
export async function redrive(
  sqs: SQSClient,
  options: RedriveOptions,
  print: (line: string) => void = console.log,
): Promise<RedriveOutcome> {
  const queue = await resolveQueue(sqs, options.queue);
  if (options.status) {
    const { Results = [] } = await sqs.send(
      new ListMessageMoveTasksCommand({ SourceArn: queue.arn, MaxResults: 10 }),
    );
    if (Results.length === 0) print(`no move tasks for ${queue.arn}`);
    for (const task of Results) print(describeTask(task));
    return { kind: 'status', queue, tasks: Results };
  }
  const messages = await approximateMessages(sqs, queue.url);
  const destination = options.to === undefined ? undefined : await destinationArn(sqs, options.to);
  const where = destination ?? 'their source queue(s)';
  if (options.dryRun) {
    print(`dry run: would move about ${messages} message(s) from ${queue.arn} to ${where}`);
    return { kind: 'dry-run', queue, messages };
  }
  if (messages === 0) {
    print(`nothing to move: ${queue.arn} is empty`);
    return { kind: 'nothing-to-move', queue };
  }
  // No DestinationArn: SQS returns each message to the queue it was dead-lettered from.
  const { TaskHandle } = await sqs.send(
    new StartMessageMoveTaskCommand({
      SourceArn: queue.arn,
      ...(destination === undefined ? {} : { DestinationArn: destination }),
      ...(options.maxRate !== undefined ? { MaxNumberOfMessagesPerSecond: options.maxRate } : {}),
    }),
  );
  if (!TaskHandle) throw new Error('StartMessageMoveTask answered without a task handle');
  print(
    `started moving about ${messages} message(s) from ${queue.arn} to ${where}` +
      (options.maxRate !== undefined ? ` at most ${options.maxRate}/s` : '') +
      `; task ${TaskHandle}. Follow it with --status.`,
  );
  return { kind: 'started', queue, taskHandle: TaskHandle, messages };
}

async function destinationArn(sqs: SQSClient, queue: string): Promise<string> {
  return ARN_PATTERN.test(queue) ? queue : (await resolveQueue(sqs, queue)).arn;
}

async function approximateMessages(sqs: SQSClient, url: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0);
}

function describeTask(task: ListMessageMoveTasksResultEntry): string {
  const started = task.StartedTimestamp ? new Date(task.StartedTimestamp).toISOString() : 'unknown start';
  const moved = `${task.ApproximateNumberOfMessagesMoved ?? 0}/${task.ApproximateNumberOfMessagesToMove ?? '?'} moved`;
  const failure = task.FailureReason ? ` (${task.FailureReason})` : '';
  return `${task.Status ?? 'UNKNOWN'} ${moved}, started ${started}${failure}`;
}

async function main(): Promise<void> {
  let options: RedriveOptions;
  try {
    options = parseRedriveArgs(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 2;
    return;
  }
  const sqs = new SQSClient(options.region ? { region: options.region } : {});
  try {
    await redrive(sqs, options);
  } catch (error) {
    console.error(`redrive failed: ${(error as Error).message}`);
    process.exitCode = 1;
  } finally {
    sqs.destroy();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
