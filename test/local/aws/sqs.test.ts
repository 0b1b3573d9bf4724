import { describe, expect, it } from 'vitest';
import { localClock } from '#local/aws/clock.ts';
import { deliveryModel } from '#local/aws/delivery-model.ts';
import { type BatchVerdict, QueuePoller } from '#local/aws/poller.ts';
import { SqsError, SqsQueue } from '#local/aws/sqs.ts';
import { FIFO_DEDUPLICATION_WINDOW_MS } from '#local/aws/sqs-fifo.ts';
import type { ReceivedMessage } from '#local/aws/sqs-message.ts';

const clock = localClock(1 / 1000);

function queue(
  name: string,
  options: Partial<ConstructorParameters<typeof SqsQueue>[0]> = {},
  now?: () => number,
  delivery = deliveryModel({ seed: 25 }),
) {
  return new SqsQueue(
    {
      name,
      arn: `arn:aws:sqs:us-east-1:000000000000:${name}`,
      url: `http://local/000000000000/${name}`,
      fifo: name.endsWith('.fifo'),
      ...options,
    },
    now ? localClock(1 / 1000, now) : clock,
    delivery,
  );
}

function fifoWithDeadLetters(maxReceiveCount = 3) {
  const deadLetters = queue('orders-dlq.fifo');
  const orders = queue('orders.fifo', {
    visibilityTimeoutSeconds: 5,
    redrive: { deadLetterQueue: deadLetters, maxReceiveCount },
  });
  return { orders, deadLetters };
}

interface Delivery {
  readonly bodies: string[];
  readonly receiveCounts: number[];
}

/** A poller like an event source mapping, recording what each batch held. */
function consume(
  source: SqsQueue,
  options: { batchSize?: number; maxConcurrency?: number } = {},
  decide: (
    batch: readonly ReceivedMessage[],
    index: number,
  ) => Promise<BatchVerdict> | BatchVerdict = () => ({
    failed: new Set(),
  }),
) {
  const deliveries: Delivery[] = [];
  const poller = new QueuePoller({
    queue: source,
    batchSize: options.batchSize ?? 10,
    maxConcurrency: options.maxConcurrency ?? 2,
    process: async (batch) => {
      const index = deliveries.length;
      deliveries.push({
        bodies: batch.map((message) => message.body),
        receiveCounts: batch.map((message) => Number(message.attributes['ApproximateReceiveCount'])),
      });
      return decide(batch, index);
    },
  });
  poller.start();
  const drained = async () => {
    while (source.depth() > 0 || poller.busy > 0) await sleep(2);
  };
  return { deliveries, poller, drained };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const failing = (batch: readonly ReceivedMessage[], body: string, reason = 'not yet'): BatchVerdict => ({
  failed: new Set(batch.filter((message) => message.body === body).map((message) => message.receiptHandle)),
  reason,
});

describe('SqsQueue (FIFO) with a poller, as SQS and the Lambda event source run it', () => {
  it('delivers the messages of one group in the order they were sent, in batches of the batch size', async () => {
    // Prepare
    const orders = queue('orders.fifo');
    const { deliveries, poller, drained } = consume(orders, { batchSize: 3 });

    // Act
    for (let n = 1; n <= 7; n++)
      orders.send({ body: `m${n}`, groupId: 'account-1', deduplicationId: `e${n}` });
    await drained();
    await poller.stop();

    // Assess
    expect(deliveries.map((delivery) => delivery.bodies)).toEqual([
      ['m1', 'm2', 'm3'],
      ['m4', 'm5', 'm6'],
      ['m7'],
    ]);
  });

  it('never hands out a group while one of its messages is in flight, while other groups run in parallel', async () => {
    // Prepare
    const orders = queue('orders.fifo');
    let running = 0;
    let peak = 0;
    const busyGroups = new Set<string>();
    let overlap = false;
    const { poller, drained } = consume(orders, { batchSize: 1, maxConcurrency: 3 }, async (batch) => {
      const group = JSON.parse(batch[0]!.body).group as string;
      if (busyGroups.has(group)) overlap = true;
      busyGroups.add(group);
      peak = Math.max(peak, ++running);
      await sleep(10);
      running--;
      busyGroups.delete(group);
      return { failed: new Set() };
    });

    // Act
    for (let n = 0; n < 12; n++) {
      orders.send({
        body: JSON.stringify({ group: `g${n % 4}`, n }),
        groupId: `g${n % 4}`,
        deduplicationId: `e${n}`,
      });
    }
    await drained();
    await poller.stop();

    // Assess
    expect(overlap).toBe(false);
    expect(peak).toBe(3);
  });

  it('fills a batch with the first group in order, then other groups', async () => {
    // Prepare
    const orders = queue('orders.fifo');
    const { deliveries, poller, drained } = consume(orders, { batchSize: 10, maxConcurrency: 1 });

    // Act: sent in one tick, as one PutEvents call's entries reach a queue.
    orders.send({ body: 'a1', groupId: 'a', deduplicationId: 'e1' });
    orders.send({ body: 'b1', groupId: 'b', deduplicationId: 'e2' });
    orders.send({ body: 'a2', groupId: 'a', deduplicationId: 'e3' });
    await drained();
    await poller.stop();

    // Assess
    expect(deliveries.map((delivery) => delivery.bodies)).toEqual([['a1', 'a2', 'b1']]);
  });

  it('accepts a repeated deduplication id within five minutes without delivering it, and delivers it after', () => {
    // Prepare
    let now = Date.parse('2025-01-01T00:00:00Z');
    const orders = queue('orders.fifo', {}, () => now);

    // Act
    const first = orders.send({ body: 'first', groupId: 'g', deduplicationId: 'event-1' });
    const repeat = orders.send({ body: 'again', groupId: 'g', deduplicationId: 'event-1' });
    now += FIFO_DEDUPLICATION_WINDOW_MS;
    const late = orders.send({ body: 'late', groupId: 'g', deduplicationId: 'event-1' });

    // Assess
    expect(repeat).toEqual({
      messageId: first.messageId,
      sequenceNumber: first.sequenceNumber,
      duplicate: true,
    });
    expect(late.duplicate).toBe(false);
    expect(orders.messages().map((message) => message.body)).toEqual(['first', 'late']);
  });

  it('deduplicates per message group when DeduplicationScope is messageGroup', () => {
    // Prepare
    const orders = queue('orders.fifo', { deduplicationScope: 'messageGroup' });

    // Act
    orders.send({ body: 'a', groupId: 'account-a', deduplicationId: 'same' });
    const otherGroup = orders.send({ body: 'b', groupId: 'account-b', deduplicationId: 'same' });

    // Assess
    expect(otherGroup.duplicate).toBe(false);
    expect(orders.depth()).toBe(2);
  });

  it('refuses a message group id SQS does not accept, and a FIFO message without a deduplication id', () => {
    // Prepare
    const orders = queue('orders.fifo');

    // Act / Assess
    for (const groupId of ['', 'has space', 'x'.repeat(129), 'zürich']) {
      expect(() => orders.send({ body: 'x', groupId, deduplicationId: 'd' })).toThrow(SqsError);
    }
    expect(() => orders.send({ body: 'x', groupId: 'g' })).toThrow(/ContentBasedDeduplication/);
    expect(
      orders.send({ body: 'x', groupId: `a!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~9`, deduplicationId: 'd' })
        .duplicate,
    ).toBe(false);
  });

  it('redelivers a failed message before the messages behind it in its group, with its receive count raised', async () => {
    // Prepare
    const orders = queue('orders.fifo');
    const { deliveries, poller, drained } = consume(orders, { batchSize: 1 }, (batch, index) =>
      index === 0 ? failing(batch, 'm1') : { failed: new Set() },
    );

    // Act
    orders.send({ body: 'm1', groupId: 'g', deduplicationId: 'e1' });
    orders.send({ body: 'm2', groupId: 'g', deduplicationId: 'e2' });
    await drained();
    await poller.stop();

    // Assess
    expect(deliveries.map((delivery) => [delivery.bodies[0], delivery.receiveCounts[0]])).toEqual([
      ['m1', 1],
      ['m1', 2],
      ['m2', 1],
    ]);
  });

  it('moves a message to the dead-letter queue once its receives exceed maxReceiveCount, keeping id, group and reason', async () => {
    // Prepare
    const { orders, deadLetters } = fifoWithDeadLetters(3);
    const { deliveries, poller, drained } = consume(orders, { batchSize: 1 }, (batch) => {
      if (batch[0]!.body === 'poison') throw new Error('handler crashed');
      return { failed: new Set() };
    });

    // Act
    const sent = orders.send({ body: 'poison', groupId: 'g', deduplicationId: 'e1' });
    orders.send({ body: 'healthy', groupId: 'g', deduplicationId: 'e2' });
    await drained();
    await poller.stop();

    // Assess
    expect(deliveries.map((delivery) => delivery.bodies[0])).toEqual([
      'poison',
      'poison',
      'poison',
      'healthy',
    ]);
    const [dead] = deadLetters.messages();
    expect(dead).toMatchObject({
      messageId: sent.messageId,
      body: 'poison',
      groupId: 'g',
      receiveCount: 3,
      lastFailure: 'handler crashed',
      deadLetterSourceArn: orders.arn,
      // "the original message's deduplication ID will be replaced with the original message's ID"
      deduplicationId: sent.messageId,
    });
  });

  it('deletes the messages of a batch that succeeded and gives back only the failed ones', async () => {
    // Prepare
    const orders = queue('orders.fifo');
    const { deliveries, poller, drained } = consume(orders, {}, (batch, index) =>
      index === 0 ? failing(batch, 'm2') : { failed: new Set() },
    );

    // Act
    for (const n of [1, 2, 3]) orders.send({ body: `m${n}`, groupId: 'g', deduplicationId: `e${n}` });
    await drained();
    await poller.stop();

    // Assess
    expect(deliveries.map((delivery) => delivery.bodies)).toEqual([['m1', 'm2', 'm3'], ['m2']]);
    expect(deliveries[1]!.receiveCounts).toEqual([2]);
  });

  it('keeps a held message invisible while its poller works on it, and counts the visibility timeout from its release', async () => {
    // Prepare: 30 s visibility scaled to 30 ms, a handler that takes longer than that.
    const orders = queue('slow.fifo', { visibilityTimeoutSeconds: 30 });
    orders.send({ body: 'm', groupId: 'g', deduplicationId: 'e' });

    // Act
    const [held] = orders.receive({ maxMessages: 1, hold: true });
    await sleep(60);
    const whileHeld = orders.receive({ maxMessages: 1 });
    orders.release(held!.receiptHandle, 'boom');
    const rightAfter = orders.receive({ maxMessages: 1 });
    await sleep(45);
    const later = orders.receive({ maxMessages: 1 });

    // Assess
    expect(whileHeld).toEqual([]);
    expect(rightAfter).toEqual([]);
    expect(later.map((message) => message.attributes['ApproximateReceiveCount'])).toEqual(['2']);
  });

  it('sets a new visibility timeout from the ChangeMessageVisibility call, 12 hours at most', async () => {
    // Prepare
    const orders = queue('orders.fifo', { visibilityTimeoutSeconds: 30 });
    orders.send({ body: 'm', groupId: 'g', deduplicationId: 'e' });
    const [message] = orders.receive({ maxMessages: 1 });

    // Act
    orders.changeVisibility(message!.receiptHandle, 0);
    const again = orders.receive({ maxMessages: 1 });

    // Assess
    expect(again).toHaveLength(1);
    expect(() => orders.changeVisibility(again[0]!.receiptHandle, 43_201)).toThrow(/between 0 and 43200/);
    expect(() => orders.changeVisibility('not-a-handle', 10)).toThrow(SqsError);
  });

  it('refuses a dead-letter queue of the other type', () => {
    // Act / Assess
    expect(() =>
      queue('orders.fifo', { redrive: { deadLetterQueue: queue('standard-dlq'), maxReceiveCount: 5 } }),
    ).toThrow(/must be FIFO/);
  });
});

describe('SqsQueue: a record held for one invocation (npm run invoke)', () => {
  it('holds an adopted message out of receives, applies ChangeMessageVisibility to it and says when it would be visible again', () => {
    // Prepare
    const orders = queue('orders.fifo', { visibilityTimeoutSeconds: 30 });
    const adopted = orders.adoptHeld({ body: 'm', groupId: 'g', deduplicationId: 'e' });
    const untouched = orders.adoptHeld({ body: 'n', groupId: 'h', deduplicationId: 'f' });

    // Act
    const whileHeld = orders.receive({ maxMessages: 10 });
    orders.changeVisibility(adopted.receiptHandle, 120);
    const waited = orders.dropHeld(adopted.receiptHandle);
    const timedOut = orders.dropHeld(untouched.receiptHandle);

    // Assess
    expect(whileHeld).toEqual([]);
    expect(adopted.attributes['ApproximateReceiveCount']).toBe('1');
    expect(waited).toEqual({ visibleAgainInSeconds: 120 });
    expect(timedOut).toEqual({ visibleAgainInSeconds: 30 });
    expect(orders.depth()).toBe(0);
  });

  it('says a message its function deleted is gone, and leaves the deduplication window alone', () => {
    // Prepare
    const orders = queue('orders.fifo');
    const adopted = orders.adoptHeld({ body: 'm', groupId: 'g', deduplicationId: 'e' });

    // Act
    orders.delete(adopted.receiptHandle);
    const outcome = orders.dropHeld(adopted.receiptHandle);
    const sent = orders.send({ body: 'm', groupId: 'g', deduplicationId: 'e' });

    // Assess
    expect(outcome).toEqual({ deleted: true });
    expect(sent.duplicate).toBe(false);
  });
});

describe('SqsQueue (standard)', () => {
  it('hands out every visible message, whatever its order, with no message groups', async () => {
    // Prepare
    const intake = queue('intake');

    // Act
    intake.send({ body: 'a' });
    intake.send({ body: 'b' });
    const received = intake.receive({ maxMessages: 10 });

    // Assess
    expect(received.map((message) => message.body).sort()).toEqual(['a', 'b']);
    expect(received[0]!.attributes['MessageGroupId']).toBeUndefined();
    expect(intake.inFlight()).toBe(2);
  });
});
