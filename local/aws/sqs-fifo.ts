import { createHash } from 'node:crypto';

/**
 * The rules of SQS FIFO queues the connector relies on, each following the Amazon SQS Developer
 * Guide page named beside it (the queue itself: sqs.ts):
 *
 * - FIFO message groups ("Amazon SQS FIFO queue key terms", "Using the message group ID"): a group
 *   with a message in flight returns nothing more until that message is deleted or visible again;
 *   a receive returns as many messages of one group as it can, in order, then other groups.
 * - MessageGroupId ("SendMessage" API reference): 1-128 characters, alphanumeric and punctuation
 *   (!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~); required on FIFO queues.
 * - Deduplication ("Exactly-once processing in Amazon SQS"): a MessageDeduplicationId seen in the
 *   last 5 minutes is accepted and not delivered again; scope is the queue or the message group
 *   (DeduplicationScope); without ContentBasedDeduplication the id is required.
 */

export const FIFO_DEDUPLICATION_WINDOW_MS = 5 * 60 * 1000;
const GROUP_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
const DEDUPLICATION_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;

/** True when SQS accepts the value as a MessageGroupId (SendMessage API reference). */
export function isValidMessageGroupId(value: unknown): value is string {
  return typeof value === 'string' && GROUP_ID_PATTERN.test(value);
}

/** MessageDeduplicationId: 1-128 characters, alphanumeric and punctuation ("SendMessage" API reference). */
export function isValidDeduplicationId(value: string): boolean {
  return DEDUPLICATION_ID_PATTERN.test(value);
}

/** The deduplication id ContentBasedDeduplication gives a message: the SHA-256 of its body. */
export function contentDeduplicationId(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}

interface SeenSend {
  readonly messageId: string;
  readonly sequenceNumber: string;
  readonly at: number;
}

/** The deduplication ids a FIFO queue accepted in the last 5 minutes, in its DeduplicationScope. */
export class DeduplicationWindow {
  private readonly seenIds = new Map<string, SeenSend>();

  constructor(private readonly scope: 'queue' | 'messageGroup') {}

  /** The send that already took this deduplication id within the window, if one did. */
  seen(groupId: string | undefined, deduplicationId: string, now: number): SeenSend | undefined {
    this.forgetExpired(now);
    return this.seenIds.get(this.key(groupId, deduplicationId));
  }

  remember(groupId: string | undefined, deduplicationId: string, send: SeenSend): void {
    this.seenIds.set(this.key(groupId, deduplicationId), send);
  }

  private key(groupId: string | undefined, deduplicationId: string): string {
    return this.scope === 'messageGroup' ? `${groupId}\u0000${deduplicationId}` : deduplicationId;
  }

  private forgetExpired(now: number): void {
    for (const [id, seen] of this.seenIds) {
      if (now - seen.at < FIFO_DEDUPLICATION_WINDOW_MS) break; // insertion order = time order
      this.seenIds.delete(id);
    }
  }
}

/**
 * What a FIFO receive returns: groups in the order of their oldest message, a group with a message
 * not receivable (in flight or held) left out whole; within a group, send order.
 */
export function pickFifo<T extends { readonly groupId?: string }>(
  entries: readonly T[],
  isReceivable: (entry: T) => boolean,
  max: number,
): T[] {
  const blocked = new Set<string>();
  for (const entry of entries) {
    if (!isReceivable(entry)) blocked.add(entry.groupId as string);
  }
  const groups = new Map<string, T[]>();
  for (const entry of entries) {
    const groupId = entry.groupId as string;
    if (blocked.has(groupId)) continue;
    const list = groups.get(groupId) ?? [];
    list.push(entry);
    groups.set(groupId, list);
  }
  const picked: T[] = [];
  for (const list of groups.values()) {
    for (const entry of list) {
      if (picked.length >= max) return picked;
      picked.push(entry);
    }
  }
  return picked;
}
