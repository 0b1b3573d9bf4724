import type { AccessCheck } from './access.ts';
import type { SqsQueue } from './sqs.ts';
import type { ReceivedMessage } from './sqs-message.ts';

/**
 * What a Lambda event source mapping and an EventBridge pipe share when they read an SQS queue:
 * receive a batch, hand it to their target, then delete what succeeded and release the rest, with
 * at most `maxConcurrency` batches in flight. Each runs as many batches as the queue can give
 * right now and wakes up when the queue says a message may have become receivable.
 *
 * Both poll as a principal (a pipe as its role, a mapping as its function's execution role) that
 * must be allowed to receive from the queue and delete from it (`access`): a poller refused its
 * receives never starts, and the queue's messages stay where they are (nothing reads them, as on
 * AWS); one refused its deletes leaves each processed message on the queue, to come back when its
 * visibility timeout ends.
 */

/** What a poller's principal must be allowed on its queue. */
export interface PollerAccess {
  /** sqs:ReceiveMessage and sqs:GetQueueAttributes, both needed to poll. */
  readonly receive: AccessCheck;
  readonly delete: AccessCheck;
}

export interface BatchVerdict {
  /** Receipt handles of the messages that failed; every other message of the batch is deleted. */
  readonly failed: ReadonlySet<string>;
  /** Why they failed, kept on the message for the dead-letter view. */
  readonly reason?: string;
}

export interface PollerOptions {
  readonly queue: SqsQueue;
  readonly batchSize: number;
  readonly maxConcurrency: number;
  readonly process: (batch: readonly ReceivedMessage[]) => Promise<BatchVerdict>;
  /**
   * Chaos hook of the local runtime, not an AWS setting: the share of successful messages whose
   * delete is "lost", so they come back after their visibility timeout and are delivered again, as
   * SQS's at-least-once delivery allows ("Amazon SQS at-least-once delivery"). @default 0
   */
  readonly lostDeleteRate?: number;
  readonly random?: () => number;
  readonly access?: PollerAccess;
}

export class QueuePoller {
  private readonly options: PollerOptions;
  private readonly running = new Set<Promise<void>>();
  private unsubscribe: (() => void) | undefined;
  private scheduled = false;
  private stopped = true;
  /** Deletes the chaos hook dropped (messages that will be delivered again). */
  lostDeletes = 0;
  /** Why the poller may not receive (AWS's AccessDenied message): it never polls. */
  blocked: string | undefined;
  /** Until the receive check answered. */
  private checking = false;

  constructor(options: PollerOptions) {
    for (const key of ['batchSize', 'maxConcurrency'] as const) {
      if (!Number.isInteger(options[key]) || options[key] < 1) {
        throw new RangeError(
          `poller of ${options.queue.name}: ${key} must be a positive integer, got ${options[key]}`,
        );
      }
    }
    this.options = options;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const { access } = this.options;
    if (!access) {
      this.listen();
      return;
    }
    this.checking = true;
    void Promise.resolve(access.receive()).then(
      (denied) => {
        this.checking = false;
        if (denied !== undefined) this.blocked = denied;
        else if (!this.stopped) this.listen();
      },
      (error: unknown) => {
        this.checking = false;
        this.blocked = error instanceof Error ? error.message : String(error);
      },
    );
  }

  /** The queue this poller reads. */
  get queue(): SqsQueue {
    return this.options.queue;
  }

  private listen(): void {
    this.unsubscribe = this.options.queue.subscribe(() => this.schedule());
    this.schedule();
  }

  /** Batches currently being processed (1 while its access is being checked). */
  get busy(): number {
    return this.running.size + (this.checking ? 1 : 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await Promise.allSettled([...this.running]);
  }

  // On the next turn, so the entries of one send burst can share a batch, as a long poll would.
  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    const { queue, batchSize, maxConcurrency } = this.options;
    while (!this.stopped && this.running.size < maxConcurrency) {
      const batch = queue.receive({ maxMessages: batchSize, hold: true });
      if (batch.length === 0) return;
      const run = this.run(batch).finally(() => {
        this.running.delete(run);
        this.schedule();
      });
      this.running.add(run);
    }
  }

  private async run(batch: readonly ReceivedMessage[]): Promise<void> {
    const { queue } = this.options;
    let verdict: BatchVerdict;
    try {
      verdict = await this.options.process(batch);
    } catch (error) {
      verdict = {
        failed: new Set(batch.map((message) => message.receiptHandle)),
        reason: error instanceof Error ? error.message : String(error),
      };
    }
    const lostDeleteRate = this.options.lostDeleteRate ?? 0;
    const random = this.options.random ?? Math.random;
    const deleteDenied =
      this.options.access && batch.some((message) => !verdict.failed.has(message.receiptHandle))
        ? await this.options.access.delete()
        : undefined;
    for (const message of batch) {
      if (verdict.failed.has(message.receiptHandle)) queue.release(message.receiptHandle, verdict.reason);
      else if (deleteDenied !== undefined) queue.release(message.receiptHandle, deleteDenied);
      else if (lostDeleteRate > 0 && random() < lostDeleteRate) {
        this.lostDeletes++;
        queue.release(message.receiptHandle);
      } else {
        try {
          queue.delete(message.receiptHandle);
        } catch {
          // Already gone (a redrive took it); nothing to delete.
        }
      }
    }
  }
}
