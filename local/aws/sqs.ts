import { randomBytes, randomUUID } from 'node:crypto';
import type { LocalClock } from './clock.ts';
import {
  contentDeduplicationId,
  DeduplicationWindow,
  isValidDeduplicationId,
  isValidMessageGroupId,
  pickFifo,
} from './sqs-fifo.ts';
import {
  type ReceivedMessage,
  type ReceiveOptions,
  receivedMessage,
  type SendInput,
  type SendResult,
  type StoredMessage,
} from './sqs-message.ts';

/**
 * An SQS queue, standard or FIFO, with the semantics the connector relies on. Each rule follows
 * the Amazon SQS Developer Guide page named beside it (FIFO message groups, MessageGroupId and
 * deduplication: sqs-fifo.ts):
 *
 * - Visibility timeout ("Amazon SQS visibility timeout"): a received message is invisible for the
 *   timeout, then visible again unless deleted; ChangeMessageVisibility sets a new timeout counted
 *   from the call (at most 12 hours).
 * - Redrive ("Using dead-letter queues in Amazon SQS"): when ApproximateReceiveCount exceeds
 *   maxReceiveCount the message moves to the dead-letter queue, keeping its body, id and
 *   attributes; a FIFO message's deduplication id becomes its message id.
 * - Retention ("Amazon SQS message quotas", MessageRetentionPeriod, default 4 days): older messages are deleted.
 *
 * Locally, visibility timeouts are scaled by the clock (clock.ts). A message held by a poller of
 * this runtime (a Lambda event source mapping or a pipe) stays invisible until the poller releases
 * it, and its timeout counts from then: on AWS the visibility timeout is set to at least six times
 * the function timeout, so a message never reappears while it is being processed, and scaling must
 * not make it do so locally.
 */

export const MAX_VISIBILITY_TIMEOUT_SECONDS = 12 * 60 * 60;

/** An SQS API error, with the code the AWS API gives it. */
export class SqsError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SqsError';
  }
}

export interface QueueSettings {
  readonly name: string;
  readonly arn: string;
  readonly url: string;
  readonly fifo: boolean;
  /** @default false */
  readonly contentBasedDeduplication?: boolean;
  /** @default 'queue' */
  readonly deduplicationScope?: 'queue' | 'messageGroup';
  /** @default 30 */
  readonly visibilityTimeoutSeconds?: number;
  /** @default 345600 (4 days) */
  readonly retentionSeconds?: number;
  readonly redrive?: { readonly deadLetterQueue: SqsQueue; readonly maxReceiveCount: number };
}

interface Entry extends StoredMessage {
  visibleAt: number;
  receiptHandle?: string;
  /** Held by a poller of this runtime: invisible until released. */
  held: boolean;
  /** Timeout to apply on release, and the time it counts from (undefined: the release). */
  visibility?: { seconds: number; from?: number };
}

export class SqsQueue {
  readonly name: string;
  readonly arn: string;
  readonly url: string;
  readonly fifo: boolean;
  readonly visibilityTimeoutSeconds: number;
  readonly redrive?: QueueSettings['redrive'];
  private readonly contentBasedDeduplication: boolean;
  private readonly deduplication: DeduplicationWindow;
  private readonly retentionMs: number;
  private readonly clock: LocalClock;
  private readonly entries: Entry[] = [];
  private readonly byHandle = new Map<string, Entry>();
  private readonly listeners = new Set<() => void>();
  private sequence = 10_000_000_000_000_000_000n;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;
  private closed = false;

  constructor(settings: QueueSettings, clock: LocalClock) {
    this.name = settings.name;
    this.arn = settings.arn;
    this.url = settings.url;
    this.fifo = settings.fifo;
    this.contentBasedDeduplication = settings.contentBasedDeduplication ?? false;
    this.deduplication = new DeduplicationWindow(settings.deduplicationScope ?? 'queue');
    this.visibilityTimeoutSeconds = settings.visibilityTimeoutSeconds ?? 30;
    this.retentionMs = (settings.retentionSeconds ?? 345_600) * 1000;
    if (settings.redrive) {
      if (settings.redrive.deadLetterQueue.fifo !== this.fifo) {
        throw new SqsError(
          'InvalidParameterValue',
          `queue ${this.name}: the dead-letter queue of a ${this.fifo ? 'FIFO' : 'standard'} queue must be ${this.fifo ? 'FIFO' : 'standard'}`,
        );
      }
      this.redrive = settings.redrive;
    }
    this.clock = clock;
  }

  send(input: SendInput, from?: { deadLetterSourceArn?: string; original?: StoredMessage }): SendResult {
    if (this.closed) throw new SqsError('QueueDoesNotExist', `queue ${this.name} is closed`);
    const now = this.clock.now();
    const original = from?.original;
    let groupId: string | undefined;
    let deduplicationId: string | undefined;
    if (this.fifo) {
      if (input.groupId === undefined) {
        throw new SqsError('MissingParameter', 'The request must contain the parameter MessageGroupId.');
      }
      if (!isValidMessageGroupId(input.groupId)) {
        throw new SqsError(
          'InvalidParameterValue',
          'Value for parameter MessageGroupId is invalid. Reason: it must be 1-128 alphanumeric or punctuation characters.',
        );
      }
      groupId = input.groupId;
      deduplicationId =
        input.deduplicationId ??
        (this.contentBasedDeduplication ? contentDeduplicationId(input.body) : undefined);
      if (deduplicationId === undefined) {
        throw new SqsError(
          'InvalidParameterValue',
          'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
        );
      }
      if (!isValidDeduplicationId(deduplicationId)) {
        throw new SqsError('InvalidParameterValue', 'Value for parameter MessageDeduplicationId is invalid.');
      }
    }
    const messageId = original?.messageId ?? randomUUID();
    if (this.fifo && original === undefined) {
      // A message moved by a redrive keeps its id; deduplication applies to new sends only.
      const seen = this.deduplication.seen(groupId, deduplicationId as string, now);
      if (seen) return { messageId: seen.messageId, sequenceNumber: seen.sequenceNumber, duplicate: true };
      this.sequence += 1n;
      this.deduplication.remember(groupId, deduplicationId as string, {
        messageId,
        sequenceNumber: this.sequence.toString(),
        at: now,
      });
    } else if (this.fifo) {
      this.sequence += 1n;
    }
    const sequenceNumber = this.fifo ? this.sequence.toString() : undefined;
    const entry: Entry = {
      messageId,
      body: input.body,
      ...(groupId === undefined ? {} : { groupId }),
      ...(deduplicationId === undefined ? {} : { deduplicationId }),
      ...(sequenceNumber === undefined ? {} : { sequenceNumber }),
      sentTimestamp: original?.sentTimestamp ?? now,
      messageAttributes: { ...(original?.messageAttributes ?? {}), ...(input.messageAttributes ?? {}) },
      ...(from?.deadLetterSourceArn === undefined ? {} : { deadLetterSourceArn: from.deadLetterSourceArn }),
      receiveCount: original?.receiveCount ?? 0,
      ...(original?.firstReceiveTimestamp === undefined
        ? {}
        : { firstReceiveTimestamp: original.firstReceiveTimestamp }),
      ...(original?.lastFailure === undefined ? {} : { lastFailure: original.lastFailure }),
      visibleAt: now,
      held: false,
    };
    this.entries.push(entry);
    this.notify();
    return { messageId, ...(sequenceNumber === undefined ? {} : { sequenceNumber }), duplicate: false };
  }

  /** Visible messages, at most `maxMessages` (1-10), made invisible for the visibility timeout. */
  receive(options: ReceiveOptions): ReceivedMessage[] {
    if (this.closed) return [];
    const max = options.maxMessages;
    if (!Number.isInteger(max) || max < 1 || max > 10) {
      throw new SqsError(
        'InvalidParameterValue',
        'Value for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10.',
      );
    }
    const now = this.clock.now();
    this.expire(now);
    const picked = this.fifo
      ? pickFifo(this.entries, (entry) => this.isVisible(entry, now), max)
      : this.pickStandard(now, max);
    const seconds = options.visibilityTimeoutSeconds ?? this.visibilityTimeoutSeconds;
    const received: ReceivedMessage[] = [];
    for (const entry of picked) {
      entry.receiveCount += 1;
      entry.firstReceiveTimestamp ??= now;
      if (entry.receiptHandle) this.byHandle.delete(entry.receiptHandle);
      entry.receiptHandle = randomBytes(48).toString('base64');
      this.byHandle.set(entry.receiptHandle, entry);
      if (options.hold) {
        entry.held = true;
        entry.visibleAt = Number.POSITIVE_INFINITY;
        entry.visibility = { seconds };
      } else {
        entry.held = false;
        entry.visibleAt = now + this.clock.delayMs(seconds);
        this.scheduleWake(entry.visibleAt);
      }
      received.push(receivedMessage(entry));
    }
    return received;
  }

  delete(receiptHandle: string): void {
    const entry = this.byHandle.get(receiptHandle);
    if (!entry) throw new SqsError('ReceiptHandleIsInvalid', 'The input receipt handle is invalid.');
    this.byHandle.delete(receiptHandle);
    const index = this.entries.indexOf(entry);
    if (index >= 0) this.entries.splice(index, 1);
    this.notify();
  }

  changeVisibility(receiptHandle: string, seconds: number): void {
    const entry = this.byHandle.get(receiptHandle);
    if (!entry) throw new SqsError('ReceiptHandleIsInvalid', 'The input receipt handle is invalid.');
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_VISIBILITY_TIMEOUT_SECONDS) {
      throw new SqsError(
        'InvalidParameterValue',
        `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Must be between 0 and 43200.`,
      );
    }
    const now = this.clock.now();
    if (entry.held) {
      entry.visibility = { seconds, from: now };
      return;
    }
    if (entry.visibleAt <= now) {
      throw new SqsError('MessageNotInflight', 'The message referred to is not in flight.');
    }
    entry.visibleAt = now + this.clock.delayMs(seconds);
    this.scheduleWake(entry.visibleAt);
    this.notify();
  }

  /**
   * A poller of this runtime is done with a held message it did not delete: its visibility timeout
   * (or the one a ChangeMessageVisibility call set) starts now, scaled. `failure` is kept for the
   * dead-letter view.
   */
  release(receiptHandle: string, failure?: string): void {
    const entry = this.byHandle.get(receiptHandle);
    if (!entry?.held) return;
    const now = this.clock.now();
    const visibility = entry.visibility ?? { seconds: this.visibilityTimeoutSeconds };
    entry.held = false;
    entry.visibility = undefined;
    if (failure !== undefined) entry.lastFailure = failure;
    entry.visibleAt = Math.max(now, (visibility.from ?? now) + this.clock.delayMs(visibility.seconds));
    this.scheduleWake(entry.visibleAt);
    this.notify();
  }

  /**
   * Local tooling, not an SQS behaviour: a message put on the queue already held, as a poller of
   * this runtime holds one it received (no deduplication, not counted as a send), so that a
   * one-off invocation (`npm run invoke`) hands its function a record with a receipt handle the
   * queue knows: ChangeMessageVisibility and DeleteMessage on it work as they would on AWS. The
   * caller removes it with `dropHeld`.
   */
  adoptHeld(input: SendInput): ReceivedMessage {
    if (this.closed) throw new SqsError('QueueDoesNotExist', `queue ${this.name} is closed`);
    const now = this.clock.now();
    if (this.fifo) this.sequence += 1n;
    const entry: Entry = {
      messageId: randomUUID(),
      body: input.body,
      ...(input.groupId === undefined ? {} : { groupId: input.groupId }),
      ...(input.deduplicationId === undefined ? {} : { deduplicationId: input.deduplicationId }),
      ...(this.fifo ? { sequenceNumber: this.sequence.toString() } : {}),
      sentTimestamp: now,
      messageAttributes: { ...(input.messageAttributes ?? {}) },
      receiveCount: 1,
      firstReceiveTimestamp: now,
      visibleAt: Number.POSITIVE_INFINITY,
      receiptHandle: randomBytes(48).toString('base64'),
      held: true,
      visibility: { seconds: this.visibilityTimeoutSeconds },
    };
    this.entries.push(entry);
    this.byHandle.set(entry.receiptHandle as string, entry);
    return receivedMessage(entry);
  }

  /**
   * Removes a held message (see `adoptHeld`) and says what would have happened to it: deleted by
   * its function, or visible again after `visibleAgainInSeconds` (the queue's visibility timeout,
   * or what a ChangeMessageVisibility call set).
   */
  dropHeld(receiptHandle: string): { readonly deleted: true } | { readonly visibleAgainInSeconds: number } {
    const entry = this.byHandle.get(receiptHandle);
    if (!entry) return { deleted: true };
    const seconds = entry.visibility?.seconds ?? this.visibilityTimeoutSeconds;
    this.take(entry.messageId);
    return { visibleAgainInSeconds: seconds };
  }

  /** Every message not deleted, oldest first (for the dead-letter view and redrive). */
  messages(): readonly StoredMessage[] {
    this.expire(this.clock.now());
    return this.entries.map((entry) => ({ ...entry }));
  }

  /** Removes one message by id, wherever it is (a redrive move, a purge of one message). */
  take(messageId: string): StoredMessage | undefined {
    const index = this.entries.findIndex((entry) => entry.messageId === messageId);
    if (index < 0) return undefined;
    const [entry] = this.entries.splice(index, 1);
    if (entry?.receiptHandle) this.byHandle.delete(entry.receiptHandle);
    this.notify();
    return entry;
  }

  /** Messages not deleted: visible, in flight or waiting. */
  depth(): number {
    return this.entries.length;
  }

  /** Messages received and neither deleted nor visible again. */
  inFlight(): number {
    const now = this.clock.now();
    return this.entries.filter((entry) => entry.held || entry.visibleAt > now).length;
  }

  /** Calls `listener` whenever a message may have become receivable. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    this.listeners.clear();
  }

  private pickStandard(now: number, max: number): Entry[] {
    return this.entries.filter((entry) => this.isVisible(entry, now)).slice(0, max);
  }

  private isVisible(entry: Entry, now: number): boolean {
    return !entry.held && entry.visibleAt <= now;
  }

  /**
   * Messages that became visible after using up their receives go to the dead-letter queue now
   * (SQS moves them when a receive would exceed maxReceiveCount); expired ones are deleted.
   */
  private expire(now: number): void {
    for (const entry of [...this.entries]) {
      if (now - entry.sentTimestamp > this.retentionMs) {
        this.take(entry.messageId);
        continue;
      }
      if (this.redrive && this.isVisible(entry, now) && entry.receiveCount >= this.redrive.maxReceiveCount) {
        this.take(entry.messageId);
        this.redrive.deadLetterQueue.send(
          {
            body: entry.body,
            ...(entry.groupId === undefined ? {} : { groupId: entry.groupId }),
            // "When a message is moved from a FIFO queue to a FIFO DLQ, the original message's
            // deduplication ID will be replaced with the original message's ID."
            ...(entry.deduplicationId === undefined ? {} : { deduplicationId: entry.messageId }),
          },
          { deadLetterSourceArn: this.arn, original: entry },
        );
      }
    }
  }

  private scheduleWake(at: number): void {
    if (this.closed || at >= this.wakeAt) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = undefined;
        this.wakeAt = Number.POSITIVE_INFINITY;
        const now = this.clock.now();
        this.expire(now);
        const next = Math.min(
          ...this.entries
            .filter((entry) => !entry.held && entry.visibleAt > now)
            .map((entry) => entry.visibleAt),
        );
        if (Number.isFinite(next)) this.scheduleWake(next);
        this.notify();
      },
      Math.max(0, at - this.clock.now()),
    );
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  /**
   * When the next message not held by a poller becomes receivable; messages already received
   * `maxReceives` times or more are left out (a runtime waiting for work would otherwise wait for
   * one that fails forever on a queue without a redrive policy).
   */
  nextVisibleAt(maxReceives = Number.POSITIVE_INFINITY): number | undefined {
    const pending = this.entries
      .filter((entry) => !entry.held && entry.receiveCount < maxReceives)
      .map((entry) => entry.visibleAt);
    return pending.length === 0 ? undefined : Math.min(...pending);
  }

  /** Messages held by a poller of this runtime right now. */
  heldCount(): number {
    return this.entries.filter((entry) => entry.held).length;
  }
}
