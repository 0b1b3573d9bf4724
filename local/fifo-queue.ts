import { randomUUID } from 'node:crypto';

/**
 * A local SQS FIFO queue with its Lambda event source mapping and redrive policy, as one engine.
 *
 * What it keeps from AWS, because the connector's correctness depends on it:
 * - order per message group: a group is locked while any of its messages is in flight or waiting
 *   out its visibility delay, so a failed message blocks the messages behind it (SQS FIFO);
 * - content of a batch: as many messages of one group as fit, then other unlocked groups (what
 *   ReceiveMessage does on a FIFO queue), never more than `batchSize`;
 * - concurrency: at most `maxConcurrency` batches in flight (the event source's maximum concurrency);
 * - deduplication: a deduplication id seen in the last 5 minutes is accepted and dropped;
 * - redrive: a message that failed `maxReceiveCount` times goes to the dead-letter queue.
 */

/** SQS FIFO keeps deduplication ids for five minutes. */
export const FIFO_DEDUPLICATION_WINDOW_MS = 5 * 60 * 1000;

export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly groupId: string;
  readonly deduplicationId: string;
  /** 20-digit, strictly increasing per queue, like SQS FIFO sequence numbers. */
  readonly sequenceNumber: string;
  readonly sentTimestamp: number;
  receiveCount: number;
  firstReceiveTimestamp: number | undefined;
}

/** What the consumer (the Lambda invocation) reports for one batch. */
export interface BatchOutcome {
  /** Message ids to leave on the queue (partial batch response). */
  readonly failedMessageIds: readonly string[];
  /** Why they failed, kept on the dead-letter entry when they run out of receives. */
  readonly reason?: string;
}

export type BatchConsumer = (batch: readonly QueuedMessage[]) => Promise<BatchOutcome>;

export interface DeadLetter {
  readonly queue: string;
  readonly body: string;
  readonly attempts: number;
  readonly reason: string;
  readonly messageId: string;
  readonly groupId: string;
}

export interface FifoQueueOptions {
  readonly name: string;
  readonly batchSize: number;
  readonly maxConcurrency: number;
  readonly maxReceiveCount: number;
  readonly consume: BatchConsumer;
  readonly onDeadLetter: (deadLetter: DeadLetter) => void;
  /** How long a failed message stays invisible before it is received again. */
  readonly visibilityDelayMs?: number;
  /** Clock for sent/receive timestamps and the deduplication window. */
  readonly now?: () => number;
}

export interface SendResult {
  readonly messageId: string;
  readonly sequenceNumber: string;
  /** True when the deduplication id was seen within the window and the message was dropped. */
  readonly duplicate: boolean;
}

interface MessageGroup {
  readonly messages: QueuedMessage[];
  locked: boolean;
}

const DEFAULT_VISIBILITY_DELAY_MS = 250;

export class FifoQueue {
  readonly name: string;
  private readonly options: Required<Omit<FifoQueueOptions, 'name' | 'consume' | 'onDeadLetter'>>;
  private readonly consume: BatchConsumer;
  private readonly onDeadLetter: (deadLetter: DeadLetter) => void;
  // Map iteration order is the fairness order: a served group moves to the back.
  private readonly groups = new Map<string, MessageGroup>();
  private readonly recentDeduplicationIds = new Map<
    string,
    { messageId: string; sequenceNumber: string; at: number }
  >();
  private readonly visibilityTimers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private idleWaiters: Array<() => void> = [];
  private sequence = 10_000_000_000_000_000_000n;
  private closed = false;
  private pumpScheduled = false;

  constructor(options: FifoQueueOptions) {
    for (const key of ['batchSize', 'maxConcurrency', 'maxReceiveCount'] as const) {
      if (!Number.isInteger(options[key]) || options[key] < 1) {
        throw new RangeError(`queue ${options.name}: ${key} must be a positive integer, got ${options[key]}`);
      }
    }
    this.name = options.name;
    this.consume = options.consume;
    this.onDeadLetter = options.onDeadLetter;
    this.options = {
      batchSize: options.batchSize,
      maxConcurrency: options.maxConcurrency,
      maxReceiveCount: options.maxReceiveCount,
      visibilityDelayMs: options.visibilityDelayMs ?? DEFAULT_VISIBILITY_DELAY_MS,
      now: options.now ?? Date.now,
    };
  }

  send(message: { body: string; groupId: string; deduplicationId: string }): SendResult {
    if (this.closed) throw new Error(`queue ${this.name} is closed`);
    const now = this.options.now();
    this.forgetExpiredDeduplicationIds(now);
    const seen = this.recentDeduplicationIds.get(message.deduplicationId);
    if (seen) return { messageId: seen.messageId, sequenceNumber: seen.sequenceNumber, duplicate: true };

    this.sequence += 1n;
    const queued: QueuedMessage = {
      messageId: randomUUID(),
      body: message.body,
      groupId: message.groupId,
      deduplicationId: message.deduplicationId,
      sequenceNumber: this.sequence.toString(),
      sentTimestamp: now,
      receiveCount: 0,
      firstReceiveTimestamp: undefined,
    };
    this.recentDeduplicationIds.set(message.deduplicationId, {
      messageId: queued.messageId,
      sequenceNumber: queued.sequenceNumber,
      at: now,
    });
    let group = this.groups.get(message.groupId);
    if (!group) {
      group = { messages: [], locked: false };
      this.groups.set(message.groupId, group);
    }
    group.messages.push(queued);
    this.schedulePump();
    return { messageId: queued.messageId, sequenceNumber: queued.sequenceNumber, duplicate: false };
  }

  /** Messages not yet deleted: waiting, in flight or waiting out a visibility delay. */
  depth(): number {
    let count = 0;
    for (const group of this.groups.values()) count += group.messages.length;
    return count;
  }

  isIdle(): boolean {
    return (
      !this.pumpScheduled &&
      this.depth() === 0 &&
      this.inFlight.size === 0 &&
      this.visibilityTimers.size === 0
    );
  }

  /** Resolves once every message has been consumed or dead-lettered. */
  waitForIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops receiving, drops pending visibility delays and waits for batches in flight. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.visibilityTimers) clearTimeout(timer);
    this.visibilityTimers.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private forgetExpiredDeduplicationIds(now: number): void {
    for (const [id, seen] of this.recentDeduplicationIds) {
      if (now - seen.at < FIFO_DEDUPLICATION_WINDOW_MS) break; // insertion order = time order
      this.recentDeduplicationIds.delete(id);
    }
  }

  // Receiving on the next turn lets the entries of one PutEvents call share a batch, as a poller would.
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (!this.closed && this.inFlight.size < this.options.maxConcurrency) {
      const batch = this.receiveBatch();
      if (batch.length === 0) break;
      const run = this.process(batch).finally(() => {
        this.inFlight.delete(run);
        this.pump();
        this.notifyIfIdle();
      });
      this.inFlight.add(run);
    }
  }

  private receiveBatch(): QueuedMessage[] {
    const batch: QueuedMessage[] = [];
    const served: string[] = [];
    for (const [groupId, group] of this.groups) {
      if (batch.length >= this.options.batchSize) break;
      if (group.locked || group.messages.length === 0) continue;
      group.locked = true;
      served.push(groupId);
      batch.push(...group.messages.slice(0, this.options.batchSize - batch.length));
    }
    const receivedAt = this.options.now();
    for (const message of batch) {
      message.receiveCount += 1;
      message.firstReceiveTimestamp ??= receivedAt;
    }
    for (const groupId of served) {
      const group = this.groups.get(groupId)!;
      this.groups.delete(groupId);
      this.groups.set(groupId, group);
    }
    return batch;
  }

  private async process(batch: readonly QueuedMessage[]): Promise<void> {
    let outcome: BatchOutcome;
    try {
      outcome = await this.consume(batch);
    } catch (error) {
      // A thrown handler fails the whole batch, exactly as Lambda reports it to the event source.
      outcome = {
        failedMessageIds: batch.map((message) => message.messageId),
        reason: error instanceof Error ? error.message : String(error),
      };
    }
    const failed = new Set(outcome.failedMessageIds);
    const groupsToDelay = new Set<string>();
    for (const message of batch) {
      const group = this.groups.get(message.groupId)!;
      if (!failed.has(message.messageId)) {
        removeMessage(group, message);
        continue;
      }
      if (message.receiveCount >= this.options.maxReceiveCount) {
        removeMessage(group, message);
        this.onDeadLetter({
          queue: this.name,
          body: message.body,
          attempts: message.receiveCount,
          reason: outcome.reason ?? 'reported in batchItemFailures',
          messageId: message.messageId,
          groupId: message.groupId,
        });
        continue;
      }
      groupsToDelay.add(message.groupId);
    }
    for (const groupId of new Set(batch.map((message) => message.groupId))) {
      const group = this.groups.get(groupId)!;
      if (groupsToDelay.has(groupId)) this.unlockLater(groupId, group);
      else this.release(groupId, group);
    }
  }

  private unlockLater(groupId: string, group: MessageGroup): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.visibilityTimers.delete(timer);
      this.release(groupId, group);
      this.pump();
      this.notifyIfIdle();
    }, this.options.visibilityDelayMs);
    this.visibilityTimers.add(timer);
  }

  private release(groupId: string, group: MessageGroup): void {
    group.locked = false;
    if (group.messages.length === 0) this.groups.delete(groupId);
  }

  private notifyIfIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

function removeMessage(group: MessageGroup, message: QueuedMessage): void {
  const index = group.messages.indexOf(message);
  if (index >= 0) group.messages.splice(index, 1);
}
