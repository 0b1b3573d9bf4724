import { randomBytes, randomUUID } from 'node:crypto';
import type { LocalClock } from './clock.ts';
import { type DeliveryModel, SendOrder, shuffled } from './delivery-model.ts';
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
 * - Standard queues ("Amazon SQS standard queues": "Standard queues ensure at-least-once message
 *   delivery, but due to the highly distributed architecture, more than one copy of a message might
 *   be delivered, and messages may occasionally arrive out of order"; the SQS documentation overview:
 *   "occasionally more than one copy of a message is delivered", "Occasionally, messages might be
 *   delivered in an order different from which they were sent"): unless the runtime's delivery model
 *   is ordered (delivery-model.ts), a receive takes the visible messages in a seeded random order, and
 *   a received message leaves, at the model's redelivery rate, a copy (same message id and body) that
 *   becomes visible within the visibility timeout and is received again. A FIFO queue does neither.
 * - Per-message delay ("SendMessage" API reference, DelaySeconds: "Valid values: 0 to 900 ... When you
 *   set FifoQueue, you can't set DelaySeconds per message. You can set this parameter only on a queue
 *   level."): a standard queue's message becomes visible after its delay; a FIFO queue refuses a
 *   delay other than 0 with InvalidParameterValue (AWS's message: "Value 3 for parameter
 *   DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue
 *   type.", as reported in ruby-shoryuken/shoryuken#731; 0 is accepted, localstack/localstack#6633).
 *
 * Locally, visibility timeouts and delays are scaled by the clock (clock.ts). A message held by a
 * poller of this runtime (a Lambda event source mapping or a pipe) stays invisible until the poller releases
 * it, and its timeout counts from then: on AWS the visibility timeout is set to at least six times
 * the function timeout, so a message never reappears while it is being processed, and scaling must
 * not make it do so locally.
 */

export const MAX_VISIBILITY_TIMEOUT_SECONDS = 12 * 60 * 60;
/** SendMessage's DelaySeconds: "Valid values: 0 to 900. Maximum: 15 minutes." */
export const MAX_DELAY_SECONDS = 900;

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
  /** Its place in send order until its first receive here (standard queues: what `reordered` counts). */
  order?: number;
  /** A copy the delivery model left, not received yet (what `redelivered` counts). */
  copy?: boolean;
  /** It left a copy already, or is one: no further copies. */
  copied?: boolean;
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
  private readonly delivery: DeliveryModel;
  private readonly random: () => number;
  private readonly sendOrder = new SendOrder();
  private readonly entries: Entry[] = [];
  private readonly byHandle = new Map<string, Entry>();
  private readonly listeners = new Set<() => void>();
  private sequence = 10_000_000_000_000_000_000n;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;
  private closed = false;

  constructor(settings: QueueSettings, clock: LocalClock, delivery: DeliveryModel) {
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
    this.delivery = delivery;
    this.random = delivery.random(`sqs:${this.name}`);
  }

  send(input: SendInput, from?: { deadLetterSourceArn?: string; original?: StoredMessage }): SendResult {
    if (this.closed) throw new SqsError('QueueDoesNotExist', `queue ${this.name} is closed`);
    const now = this.clock.now();
    const original = from?.original;
    const delaySeconds = input.delaySeconds ?? 0;
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > MAX_DELAY_SECONDS) {
      throw new SqsError(
        'InvalidParameterValue',
        `Value ${delaySeconds} for parameter DelaySeconds is invalid. Reason: Must be >= 0 and <= ${MAX_DELAY_SECONDS}, if provided.`,
      );
    }
    if (this.fifo && delaySeconds !== 0) {
      throw new SqsError(
        'InvalidParameterValue',
        `Value ${delaySeconds} for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.`,
      );
    }
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
      visibleAt: now + this.clock.delayMs(delaySeconds),
      held: false,
      // A message its sender delayed is out of send order by the sender's choice, not counted.
      ...(this.fifo || delaySeconds > 0 ? {} : { order: this.sendOrder.enter() }),
    };
    this.entries.push(entry);
    if (entry.visibleAt > now) this.scheduleWake(entry.visibleAt);
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
      this.countDelivery(entry);
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
      this.maybeLeaveCopy(entry, now);
    }
    return received;
  }

  delete(receiptHandle: string): void {
    const entry = this.byHandle.get(receiptHandle);
    if (!entry) throw new SqsError('ReceiptHandleIsInvalid', 'The input receipt handle is invalid.');
    this.remove(entry);
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
    this.remove(entry);
    return { visibleAgainInSeconds: seconds };
  }

  /** Every message not deleted, oldest first (for the dead-letter view and redrive). */
  messages(): readonly StoredMessage[] {
    this.expire(this.clock.now());
    return this.entries.map((entry) => ({ ...entry }));
  }

  /**
   * Removes one message by id, wherever it is (a redrive move, a purge of one message); a copy the
   * delivery model left shares its id and is removed by a second call.
   */
  take(messageId: string): StoredMessage | undefined {
    const entry = this.entries.find((candidate) => candidate.messageId === messageId);
    if (entry) this.remove(entry);
    return entry;
  }

  private remove(entry: Entry): void {
    const index = this.entries.indexOf(entry);
    if (index < 0) return;
    this.entries.splice(index, 1);
    if (entry.receiptHandle) this.byHandle.delete(entry.receiptHandle);
    if (entry.order !== undefined) this.sendOrder.drop(entry.order);
    this.notify();
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

  /** Oldest first when the delivery model is ordered; otherwise in a seeded random order. */
  private pickStandard(now: number, max: number): Entry[] {
    const visible = this.entries.filter((entry) => this.isVisible(entry, now));
    return (this.delivery.ordered ? visible : shuffled(visible, this.random)).slice(0, max);
  }

  /** Counts a first receive that overtook an older message, and the first receive of a copy. */
  private countDelivery(entry: Entry): void {
    if (entry.order !== undefined) {
      if (this.sendOrder.deliver(entry.order)) this.delivery.countReordered();
      entry.order = undefined;
    }
    if (entry.copy) {
      this.delivery.countRedelivered();
      entry.copy = false;
    }
  }

  /**
   * At the model's redelivery rate, a message of a standard queue received for the first time leaves
   * a copy: the same message, visible again within the visibility timeout whatever becomes of this
   * delivery, as a copy on another SQS server would be.
   */
  private maybeLeaveCopy(entry: Entry, now: number): void {
    if (this.fifo || entry.copied || this.delivery.redeliveryRate === 0) return;
    entry.copied = true;
    if (this.random() >= this.delivery.redeliveryRate) return;
    const copy: Entry = {
      messageId: entry.messageId,
      body: entry.body,
      sentTimestamp: entry.sentTimestamp,
      messageAttributes: entry.messageAttributes,
      ...(entry.deadLetterSourceArn === undefined ? {} : { deadLetterSourceArn: entry.deadLetterSourceArn }),
      // The stored message as this receive found it: its own receive counts from there.
      receiveCount: entry.receiveCount - 1,
      ...(entry.firstReceiveTimestamp === undefined
        ? {}
        : { firstReceiveTimestamp: entry.firstReceiveTimestamp }),
      visibleAt: now + this.clock.delayMs(this.random() * this.visibilityTimeoutSeconds),
      held: false,
      copy: true,
      copied: true,
    };
    this.entries.push(copy);
    this.scheduleWake(copy.visibleAt);
    this.notify();
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
        this.remove(entry);
        continue;
      }
      if (this.redrive && this.isVisible(entry, now) && entry.receiveCount >= this.redrive.maxReceiveCount) {
        this.remove(entry);
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
