import { describe, expect, it } from 'vitest';
import { PIPE_INPUT_TEMPLATE } from '#functions/contracts/envelope.ts';
import { localClock } from '#local/aws/clock.ts';
import {
  type DeliveryModel,
  deliveryModel,
  deliverySeedLine,
  orderedDelivery,
  parseSeed,
  SendOrder,
} from '#local/aws/delivery-model.ts';
import { type BusEvent, EventBus } from '#local/aws/event-bus.ts';
import { compileEventPattern } from '#local/aws/event-pattern.ts';
import { compileInputTemplate } from '#local/aws/input-template.ts';
import { startPipe } from '#local/aws/pipe.ts';
import { SqsQueue } from '#local/aws/sqs.ts';
import type { ReceivedMessage } from '#local/aws/sqs-message.ts';

/**
 * The delivery model (local/aws/delivery-model.ts): the local runtime reorders and repeats where AWS
 * documents that it may — SQS standard queues ("Amazon SQS standard queues"), rule deliveries and
 * pipes — seeded, so a run repeats with its seed; FIFO queues keep their exact semantics; an ordered
 * model turns it all off.
 */

const clock = localClock(1 / 1000);

function queue(name: string, delivery: DeliveryModel): SqsQueue {
  return new SqsQueue(
    { name, arn: `arn:aws:sqs:us-east-1:000000000000:${name}`, url: name, fifo: name.endsWith('.fifo') },
    clock,
    delivery,
  );
}

const bodies = (count: number) => Array.from({ length: count }, (_, n) => `m${String(n).padStart(2, '0')}`);

/** Receives and deletes until nothing is visible; returns the bodies in the order received. */
function receiveAll(source: SqsQueue): string[] {
  const received: string[] = [];
  for (;;) {
    const batch = source.receive({ maxMessages: 10 });
    if (batch.length === 0) return received;
    for (const message of batch) {
      received.push(message.body);
      source.delete(message.receiptHandle);
    }
  }
}

/** Polls `condition` until it holds (5 s at most): waits on a condition, never for a fixed time. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const event = (id: string, accountId = 'acct-1'): BusEvent => ({
  version: '0',
  id,
  'detail-type': 'EmployeeChanged',
  source: 'partner.app',
  account: '000000000000',
  time: '2025-03-03T09:00:00Z',
  region: 'us-east-1',
  resources: [],
  detail: { accountId },
});

describe('an SQS standard queue under the delivery model', () => {
  it('receives its visible messages in a seeded random order, the same again for the same seed', () => {
    // Prepare
    const sent = bodies(20);
    const run = (seed: number) => {
      const model = deliveryModel({ seed, redeliveryRate: 0 });
      const intake = queue('intake', model);
      for (const body of sent) intake.send({ body });
      return { received: receiveAll(intake), counts: model.counts() };
    };

    // Act
    const first = run(7);
    const again = run(7);
    const other = run(8);

    // Assess
    expect(first.received).not.toEqual(sent);
    expect([...first.received].sort()).toEqual(sent);
    expect(again.received).toEqual(first.received);
    expect(other.received).not.toEqual(first.received);
    expect(first.counts.reordered).toBeGreaterThan(0);
    expect(first.counts.redelivered).toBe(0);
  });

  it('now and then delivers a message again: a copy with its id and body, received after the original was deleted', async () => {
    // Prepare
    const model = deliveryModel({ seed: 3, redeliveryRate: 0.3 });
    const intake = queue('intake', model);
    const sent = bodies(40);
    for (const body of sent) intake.send({ body });
    const deliveries: ReceivedMessage[] = [];

    // Act: every delivery succeeds and is deleted at once; copies become visible within the visibility timeout.
    await until(() => {
      for (const message of intake.receive({ maxMessages: 10 })) {
        deliveries.push(message);
        intake.delete(message.receiptHandle);
      }
      return intake.depth() === 0;
    });

    // Assess
    const perId = new Map<string, ReceivedMessage[]>();
    for (const message of deliveries)
      perId.set(message.messageId, [...(perId.get(message.messageId) ?? []), message]);
    const repeated = [...perId.values()].filter((copies) => copies.length > 1);
    expect(perId.size).toBe(40);
    expect(repeated.length).toBeGreaterThan(0);
    expect(repeated.every((copies) => copies.length === 2 && copies[0]!.body === copies[1]!.body)).toBe(true);
    expect(model.counts().redelivered).toBe(repeated.length);
  });

  it('leaves copies at its redelivery rate: about 2 % of first receives by default', () => {
    // Prepare: a clock the test moves, so no copy becomes visible while the first pass runs.
    let now = Date.parse('2025-03-03T09:00:00Z');
    const model = deliveryModel({ seed: 1 });
    const intake = new SqsQueue(
      { name: 'intake', arn: 'arn:aws:sqs:us-east-1:000000000000:intake', url: 'intake', fifo: false },
      localClock(1 / 1000, () => now),
      model,
    );
    for (const body of bodies(1000)) intake.send({ body });

    // Act
    const first = receiveAll(intake);
    now += 60_000;
    const again = receiveAll(intake);

    // Assess
    expect(first.length + again.length).toBe(1000 + model.counts().redelivered);
    expect(model.counts().redelivered).toBeGreaterThan(5);
    expect(model.counts().redelivered).toBeLessThan(50);
    expect(intake.depth()).toBe(0);
  });

  it('keeps send order and delivers nothing twice when the model is ordered (--ordered-delivery)', () => {
    // Prepare
    const model = orderedDelivery();
    const intake = queue('intake', model);
    const sent = bodies(40);
    for (const body of sent) intake.send({ body });

    // Act
    const received = receiveAll(intake);

    // Assess
    expect(received).toEqual(sent);
    expect(intake.depth()).toBe(0);
    expect(model.counts()).toEqual({ reordered: 0, redelivered: 0 });
  });
});

describe('an SQS FIFO queue under the delivery model', () => {
  it('keeps its exact semantics: a group in send order, each message once, a repeated deduplication id dropped', () => {
    // Prepare: a model that would copy every standard-queue message.
    const model = deliveryModel({ seed: 3, redeliveryRate: 1 });
    const orders = queue('orders.fifo', model);
    const sent = bodies(20);

    // Act
    for (const body of sent) orders.send({ body, groupId: 'acct-1', deduplicationId: body });
    const repeat = orders.send({ body: 'm00', groupId: 'acct-1', deduplicationId: 'm00' });
    const received = receiveAll(orders);

    // Assess
    expect(received).toEqual(sent);
    expect(repeat.duplicate).toBe(true);
    expect(orders.depth()).toBe(0);
    expect(model.counts()).toEqual({ reordered: 0, redelivered: 0 });
  });
});

describe('EventBridge rule deliveries under the delivery model', () => {
  const busWith = (model: DeliveryModel, scale = 1 / 100) => {
    const target = queue('intake', orderedDelivery());
    const bus = new EventBus({ name: 'bus', arn: 'arn:bus', clock: localClock(scale), delivery: model });
    bus.addRule({
      name: 'rule',
      arn: 'arn:aws:events:us-east-1:000000000000:rule/bus/rule',
      busName: 'bus',
      enabled: true,
      matches: compileEventPattern({ source: ['partner.app'] }),
      targets: [
        {
          id: 'Target0',
          kind: 'sqs',
          queue: target,
          retryPolicy: { maximumRetryAttempts: 3, maximumEventAgeSeconds: 3600 },
        },
      ],
    });
    return { bus, target };
  };
  const arrivals = (target: SqsQueue) => target.messages().map((message) => JSON.parse(message.body).id);
  const published = Array.from({ length: 20 }, (_, n) => `e-${String(n).padStart(2, '0')}`);

  it('can deliver a later event to its target first: each delivery waits a seeded random delay', async () => {
    // Prepare
    const model = deliveryModel({ seed: 11 });
    const { bus, target } = busWith(model);

    // Act
    for (const id of published) bus.put(event(id));
    const beforeDelays = target.depth();
    await bus.settle();

    // Assess
    expect(beforeDelays).toBe(0);
    expect(arrivals(target)).not.toEqual(published);
    expect([...arrivals(target)].sort()).toEqual(published);
    expect(model.counts().reordered).toBeGreaterThan(0);
  });

  it('delivers in publish order, before PutEvents returns, when the model is ordered', async () => {
    // Prepare
    const model = orderedDelivery();
    const { bus, target } = busWith(model);

    // Act
    for (const id of published) bus.put(event(id));
    const atOnce = target.depth();
    await bus.settle();

    // Assess
    expect(atOnce).toBe(20);
    expect(arrivals(target)).toEqual(published);
    expect(model.counts().reordered).toBe(0);
  });
});

describe('an EventBridge pipe from a standard queue under the delivery model', () => {
  const pipeWith = (model: DeliveryModel) => {
    // The source keeps send order, so what changes the order below is the pipe's own doing.
    const intake = queue('intake', orderedDelivery());
    const route = queue('route.fifo', orderedDelivery());
    const pipe = startPipe(
      {
        name: 'pipe',
        arn: 'arn:pipe',
        source: intake,
        target: route,
        batchSize: 10,
        inputTemplate: compileInputTemplate(PIPE_INPUT_TEMPLATE),
        messageGroupIdPath: '$.body.detail.accountId',
        messageDeduplicationIdPath: '$.body.id',
        region: 'us-east-1',
      },
      clock,
      model,
    );
    return { intake, route, pipe };
  };
  const sent = Array.from({ length: 10 }, (_, n) => `e-${n}`);
  const forwarded = (route: SqsQueue) => route.messages().map((message) => JSON.parse(message.body).event.id);

  it('forwards a batch in a seeded shuffled order: one account group reaches its FIFO queue out of order', async () => {
    // Prepare
    const model = deliveryModel({ seed: 5 });
    const { intake, route, pipe } = pipeWith(model);

    // Act: sent in one go, so one poller takes them as one batch.
    for (const id of sent) intake.send({ body: JSON.stringify(event(id)) });
    await until(() => intake.depth() === 0);
    await pipe.stop();

    // Assess
    expect(forwarded(route)).not.toEqual(sent);
    expect([...forwarded(route)].sort()).toEqual(sent);
    expect(model.counts().reordered).toBeGreaterThan(0);
  });

  it('forwards in the order it received when the model is ordered', async () => {
    // Prepare
    const model = orderedDelivery();
    const { intake, route, pipe } = pipeWith(model);

    // Act
    for (const id of sent) intake.send({ body: JSON.stringify(event(id)) });
    await until(() => intake.depth() === 0);
    await pipe.stop();

    // Assess
    expect(forwarded(route)).toEqual(sent);
    expect(model.counts().reordered).toBe(0);
  });
});

describe('the delivery model itself', () => {
  it('gives each component its own generator, the same for the same seed and name', () => {
    // Act
    const draws = (seed: number, stream: string) => {
      const random = deliveryModel({ seed }).random(stream);
      return [random(), random(), random()];
    };

    // Assess
    expect(draws(9, 'sqs:intake')).toEqual(draws(9, 'sqs:intake'));
    expect(draws(9, 'sqs:intake')).not.toEqual(draws(9, 'sqs:other'));
    expect(draws(9, 'sqs:intake')).not.toEqual(draws(10, 'sqs:intake'));
  });

  it('draws a seed when none is given, and says how to repeat the run', () => {
    // Act
    const drawn = deliveryModel();

    // Assess
    expect(Number.isInteger(drawn.seed)).toBe(true);
    expect(deliverySeedLine(deliveryModel({ seed: 12345 }))).toBe(
      'delivery seed 12345 (repeat with --seed 12345)',
    );
    expect(deliverySeedLine(orderedDelivery())).toMatch(/^delivery in send order.*for debugging only/);
  });

  it('takes --seed as an unsigned 32-bit integer', () => {
    // Act + Assess
    expect(parseSeed('42')).toBe(42);
    expect(parseSeed('4294967295')).toBe(4294967295);
    for (const bad of ['', '-1', '1.5', 'x', '4294967296']) expect(() => parseSeed(bad)).toThrow(/--seed/);
  });

  it('counts a delivery as reordered when something that entered before it still waits', () => {
    // Prepare
    const order = new SendOrder();
    const [a, b, c, d] = [order.enter(), order.enter(), order.enter(), order.enter()];

    // Act
    const outcomes = [order.deliver(b), order.deliver(a), order.deliver(c)];
    order.drop(d);

    // Assess
    expect(outcomes).toEqual([true, false, false]);
  });
});
