import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListDeadLetterSourceQueuesCommand,
  ListMessageMoveTasksCommand,
  type ListMessageMoveTasksResultEntry,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { runOperatorCommand } from './aws-setup.ts';

/**
 * Moves the messages of a dead-letter queue back to the one queue that dead-letters into it, with
 * the SQS message-move task (the same mechanism as the console's "Start DLQ redrive"), or shows
 * what it would move, or lists the move tasks of that queue.
 *
 * Every queue of the connector has a dead-letter queue of its own (a route's FIFO queue, a route's
 * intake queue, the refusal queue), so the destination is never a guess: it is the queue whose
 * redrive policy names this dead-letter queue (SQS ListDeadLetterSourceQueues), passed explicitly,
 * because the messages a route handler kept when it gave up were sent, not moved, and name no
 * source. A schedule's dead-letter queue has no source queue: those are missed runs, and the next
 * run catches up (docs/deploy.md).
 */

export const USAGE =
  'usage: npm run redrive -- <dead-letter queue name | URL | ARN> [--dry-run] [--status] [--to <queue>] [--max-rate N] [--region R]';

export const HELP = `${USAGE}

Moves the messages of one of the connector's dead-letter queues back to the queue that sends its
dead letters there: a route's DLQ back to its FIFO queue, an intake DLQ back to its intake queue,
the refusal DLQ back to the refusal queue. The stack outputs name every queue (…DeadLetterQueueUrl).

  --dry-run     say how many messages would move, and where, without moving them
  --status      list the move tasks of this queue (a task runs for a while; follow it here)
  --to <queue>  move them to this queue instead (name, URL or ARN; same type, FIFO or standard)
  --max-rate N  at most N messages a second (1..500; default: as fast as SQS goes)
  --region R    the AWS region of the queues (default: AWS_REGION or your profile's)

Handlers are idempotent on the event id, so a message that was in fact applied is not applied twice.
Credentials come from the usual AWS sources (AWS_PROFILE, environment variables, SSO).`;

/** SQS accepts 1..500 messages per second for a move task. */
export const MAX_MOVE_RATE = 500;

export interface RedriveOptions {
  /** Print the help and do nothing else. */
  readonly help?: boolean;
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
  if (values.help) return { help: true, queue: '', dryRun: false, status: false };
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
      help: { type: 'boolean', short: 'h' },
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
  const url = /^https?:\/\//.test(queue)
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
  const destination =
    options.to === undefined
      ? await sourceQueueOf(sqs, queue)
      : ARN_PATTERN.test(options.to)
        ? { arn: options.to }
        : await resolveQueue(sqs, options.to);
  const where = `${nameOf(destination.arn)} (${destination.arn})`;
  if (options.dryRun) {
    print(`dry run: would move about ${messages} message(s) from ${nameOf(queue.arn)} to ${where}`);
    return { kind: 'dry-run', queue, messages };
  }
  if (messages === 0) {
    print(`nothing to move: ${nameOf(queue.arn)} is empty`);
    return { kind: 'nothing-to-move', queue };
  }
  // Always an explicit destination: a record a route handler kept when it gave up was sent to the
  // dead-letter queue, not moved there, so SQS knows no source queue to return it to.
  const { TaskHandle } = await sqs.send(
    new StartMessageMoveTaskCommand({
      SourceArn: queue.arn,
      DestinationArn: destination.arn,
      ...(options.maxRate !== undefined ? { MaxNumberOfMessagesPerSecond: options.maxRate } : {}),
    }),
  );
  if (!TaskHandle) throw new Error('StartMessageMoveTask answered without a task handle');
  print(
    `started moving about ${messages} message(s) from ${nameOf(queue.arn)} to ${where}` +
      (options.maxRate !== undefined ? ` at most ${options.maxRate}/s` : '') +
      `; task ${TaskHandle}. Follow it with --status.`,
  );
  return { kind: 'started', queue, taskHandle: TaskHandle, messages };
}

/** The one queue whose redrive policy names this dead-letter queue. */
async function sourceQueueOf(sqs: SQSClient, deadLetterQueue: ResolvedQueue): Promise<ResolvedQueue> {
  const { queueUrls = [] } = await sqs.send(
    new ListDeadLetterSourceQueuesCommand({ QueueUrl: deadLetterQueue.url }),
  );
  const [only, ...more] = queueUrls;
  if (only === undefined) {
    throw new RedriveUsageError(
      `no queue sends its dead letters to ${nameOf(deadLetterQueue.arn)}: if it is a schedule's dead-letter queue, its messages are missed runs the next run catches up on (purge them); otherwise name the destination with --to <queue>`,
    );
  }
  if (more.length > 0) {
    throw new RedriveUsageError(
      `${queueUrls.length} queues send their dead letters to ${nameOf(deadLetterQueue.arn)} (${queueUrls.join(', ')}): name the destination with --to <queue>`,
    );
  }
  return resolveQueue(sqs, only);
}

function nameOf(arn: string): string {
  return arn.slice(arn.lastIndexOf(':') + 1);
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

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runOperatorCommand({
    name: 'redrive',
    help: HELP,
    parse: parseRedriveArgs,
    client: (region) => new SQSClient(region ? { region } : {}),
    run: async (sqs, options) => {
      await redrive(sqs, options);
      return 0;
    },
    usageError: RedriveUsageError,
  });
}
