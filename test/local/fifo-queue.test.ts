import { describe, expect, it } from 'vitest';
import {
  type BatchOutcome,
  type DeadLetter,
  FIFO_DEDUPLICATION_WINDOW_MS,
  FifoQueue,
  type QueuedMessage,
} from '#local/fifo-queue.ts';

interface Delivery {
  readonly bodies: string[];
  readonly groups: string[];
  readonly receiveCounts: number[];
}

function recordingQueue(
  options: Partial<{
    batchSize: number;
    maxConcurrency: number;
    maxReceiveCount: number;
    now: () => number;
  }> & {
    decide?: (batch: readonly QueuedMessage[], deliveryIndex: number) => Promise<BatchOutcome> | BatchOutcome;
  } = {},
) {
  const deliveries: Delivery[] = [];
  const deadLetters: DeadLetter[] = [];
  const queue = new FifoQueue({
    name: 'orders.fifo',
    batchSize: options.batchSize ?? 10,
    maxConcurrency: options.maxConcurrency ?? 2,
    maxReceiveCount: options.maxReceiveCount ?? 3,
    visibilityDelayMs: 5,
    ...(options.now ? { now: options.now } : {}),
    onDeadLetter: (deadLetter) => deadLetters.push(deadLetter),
    consume: async (batch) => {
      const index = deliveries.length;
      deliveries.push({
        bodies: batch.map((message) => message.body),
        groups: batch.map((message) => message.groupId),
        receiveCounts: batch.map((message) => message.receiveCount),
      });
      return options.decide ? options.decide(batch, index) : { failedMessageIds: [] };
    },
  });
  return { queue, deliveries, deadLetters };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('FifoQueue', () => {
  it('delivers the messages of one group in the order they were sent, in batches of batchSize', async () => {
    // Prepare
    const { queue, deliveries } = recordingQueue({ batchSize: 3 });

    // Act
    for (let n = 1; n <= 7; n++)
      queue.send({ body: `m${n}`, groupId: 'account-1', deduplicationId: `e${n}` });
    await queue.waitForIdle();

    // Assess
    expect(deliveries.map((delivery) => delivery.bodies)).toEqual([
      ['m1', 'm2', 'm3'],
      ['m4', 'm5', 'm6'],
      ['m7'],
    ]);
  });

  it('never runs two batches of the same group at once, while other groups run in parallel', async () => {
    // Prepare
    let running = 0;
    let peak = 0;
    const runningGroups = new Set<string>();
    let overlapWithinGroup = false;
    const { queue } = recordingQueue({
      batchSize: 1,
      maxConcurrency: 3,
      decide: async (batch) => {
        const group = batch[0]!.groupId;
        if (runningGroups.has(group)) overlapWithinGroup = true;
        runningGroups.add(group);
        running += 1;
        peak = Math.max(peak, running);
        await sleep(10);
        running -= 1;
        runningGroups.delete(group);
        return { failedMessageIds: [] };
      },
    });

    // Act
    for (let n = 0; n < 12; n++) {
      queue.send({ body: `m${n}`, groupId: `account-${n % 4}`, deduplicationId: `e${n}` });
    }
    await queue.waitForIdle();

    // Assess
    expect(overlapWithinGroup).toBe(false);
    expect(peak).toBe(3);
  });

  it('fills a batch with other groups once the first group has no more messages', async () => {
    // Prepare
    const { queue, deliveries } = recordingQueue({ batchSize: 10, maxConcurrency: 1 });

    // Act
    queue.send({ body: 'a1', groupId: 'a', deduplicationId: 'e1' });
    queue.send({ body: 'b1', groupId: 'b', deduplicationId: 'e2' });
    queue.send({ body: 'a2', groupId: 'a', deduplicationId: 'e3' });
    await queue.waitForIdle();

    // Assess: sent in one tick (one PutEvents call), they arrive in one batch, group a first and in order.
    expect(deliveries.map((delivery) => delivery.bodies)).toEqual([['a1', 'a2', 'b1']]);
  });

  it('drops a message whose deduplication id was seen within five minutes, and accepts it after', async () => {
    // Prepare
    let now = Date.parse('2025-01-01T00:00:00Z');
    const { queue, deliveries } = recordingQueue({ now: () => now });

    // Act
    const first = queue.send({ body: 'first', groupId: 'g', deduplicationId: 'event-1' });
    const repeat = queue.send({ body: 'again', groupId: 'g', deduplicationId: 'event-1' });
    await queue.waitForIdle();
    now += FIFO_DEDUPLICATION_WINDOW_MS;
    const late = queue.send({ body: 'late', groupId: 'g', deduplicationId: 'event-1' });
    await queue.waitForIdle();

    // Assess
    expect(first.duplicate).toBe(false);
    expect(repeat).toEqual({
      messageId: first.messageId,
      sequenceNumber: first.sequenceNumber,
      duplicate: true,
    });
    expect(late.duplicate).toBe(false);
    expect(deliveries.flatMap((delivery) => delivery.bodies)).toEqual(['first', 'late']);
  });

  it('redelivers a failed record before the records behind it in its group', async () => {
    // Prepare: m1 fails on its first receive only.
    const { queue, deliveries } = recordingQueue({
      batchSize: 1,
      decide: (batch) =>
        batch[0]!.body === 'm1' && batch[0]!.receiveCount === 1
          ? { failedMessageIds: [batch[0]!.messageId], reason: 'not yet' }
          : { failedMessageIds: [] },
    });

    // Act
    queue.send({ body: 'm1', groupId: 'g', deduplicationId: 'e1' });
    queue.send({ body: 'm2', groupId: 'g', deduplicationId: 'e2' });
    await queue.waitForIdle();

    // Assess
    expect(deliveries.map((delivery) => [delivery.bodies[0], delivery.receiveCounts[0]])).toEqual([
      ['m1', 1],
      ['m1', 2],
      ['m2', 1],
    ]);
  });

  it('moves a record to the dead-letter queue after maxReceiveCount failures, then serves the group again', async () => {
    // Prepare
    const { queue, deliveries, deadLetters } = recordingQueue({
      batchSize: 1,
      maxReceiveCount: 3,
      decide: (batch) => {
        if (batch[0]!.body === 'poison') throw new Error('handler crashed');
        return { failedMessageIds: [] };
      },
    });

    // Act
    queue.send({ body: 'poison', groupId: 'g', deduplicationId: 'e1' });
    queue.send({ body: 'healthy', groupId: 'g', deduplicationId: 'e2' });
    await queue.waitForIdle();

    // Assess
    expect(deliveries.map((delivery) => delivery.bodies[0])).toEqual([
      'poison',
      'poison',
      'poison',
      'healthy',
    ]);
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]).toMatchObject({
      queue: 'orders.fifo',
      body: 'poison',
      attempts: 3,
      reason: 'handler crashed',
      groupId: 'g',
    });
    expect(queue.depth()).toBe(0);
  });

  it('deletes the records of a batch that succeeded and redelivers only the reported ones', async () => {
    // Prepare: the first delivery reports m2 only.
    const { queue, deliveries } = recordingQueue({
      decide: (batch, index) =>
        index === 0
          ? {
              failedMessageIds: batch
                .filter((message) => message.body === 'm2')
                .map((message) => message.messageId),
            }
          : { failedMessageIds: [] },
    });

    // Act
    for (const n of [1, 2, 3]) queue.send({ body: `m${n}`, groupId: 'g', deduplicationId: `e${n}` });
    await queue.waitForIdle();

    // Assess
    expect(deliveries.map((delivery) => delivery.bodies)).toEqual([['m1', 'm2', 'm3'], ['m2']]);
    expect(deliveries[1]!.receiveCounts).toEqual([2]);
  });

  it('refuses a batch size that is not a positive integer', () => {
    // Act / Assess
    expect(() => recordingQueue({ batchSize: 0 })).toThrow(/batchSize must be a positive integer/);
  });
});
