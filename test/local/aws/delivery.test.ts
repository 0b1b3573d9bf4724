import { describe, expect, it } from 'vitest';
import { PIPE_INPUT_TEMPLATE } from '#functions/contracts/envelope.ts';
import { localClock } from '#local/aws/clock.ts';
import { deliveryModel } from '#local/aws/delivery-model.ts';
import { type BusEvent, EventBus } from '#local/aws/event-bus.ts';
import { compileEventPattern } from '#local/aws/event-pattern.ts';
import { compileInputTemplate } from '#local/aws/input-template.ts';
import { type LocalFunction, startEventSourceMapping } from '#local/aws/lambda.ts';
import { startPipe } from '#local/aws/pipe.ts';
import { SqsQueue } from '#local/aws/sqs.ts';

const clock = localClock(1 / 10_000);
/** Rule deliveries, pipes and standard queues as the runtime runs them: reordered, seeded. */
const delivery = deliveryModel({ seed: 25 });
const queue = (name: string, options: Partial<ConstructorParameters<typeof SqsQueue>[0]> = {}) =>
  new SqsQueue(
    {
      name,
      arn: `arn:aws:sqs:us-east-1:000000000000:${name}`,
      url: name,
      fifo: name.endsWith('.fifo'),
      ...options,
    },
    clock,
    delivery,
  );
const event = (detail: Record<string, unknown>, id: string): BusEvent => ({
  version: '0',
  id,
  'detail-type': 'AccountCreated',
  source: 'partner.app',
  account: '000000000000',
  time: '2025-03-03T09:00:00Z',
  region: 'us-east-1',
  resources: [],
  detail,
});
const until = async (condition: () => boolean) => {
  const deadline = Date.now() + 5_000;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
};
const fn = (
  handler: LocalFunction['handler'] extends () => Promise<infer H> ? H : never,
  timeoutSeconds = 1,
): LocalFunction => ({
  logicalId: 'Fn',
  name: 'fn',
  arn: 'arn:aws:lambda:us-east-1:000000000000:function:fn',
  entry: 'none.ts',
  handlerExport: 'handler',
  timeoutSeconds,
  memoryMb: 128,
  environment: {},
  settings: { functionName: 'fn', region: 'us-east-1', timeoutMs: timeoutSeconds * 1000 },
  handler: async () => handler,
});

describe('an EventBridge rule target', () => {
  it('retries a delivery the target refuses, then sends the event to the rule DLQ with the reason attributes', async () => {
    // Prepare: a FIFO queue refuses a send without a group id, as SQS does.
    const deadLetters = queue('rule-dlq');
    const bus = new EventBus({ name: 'bus', arn: 'arn:bus', clock, delivery });
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
          queue: queue('needs-a-group.fifo'),
          retryPolicy: { maximumRetryAttempts: 3, maximumEventAgeSeconds: 3600 },
          deadLetterQueue: deadLetters,
        },
      ],
    });

    // Act
    bus.put(event({ accountId: 'a' }, 'e-1'));
    await bus.settle();

    // Assess
    const [dead] = deadLetters.messages();
    expect(JSON.parse(dead!.body).id).toBe('e-1');
    expect(dead!.messageAttributes).toMatchObject({
      RULE_ARN: 'arn:aws:events:us-east-1:000000000000:rule/bus/rule',
      ERROR_CODE: 'MissingParameter',
    });
  });

  it('ignores an event no rule of its bus matches, and disabled rules', () => {
    // Prepare
    const target = queue('target');
    const bus = new EventBus({ name: 'bus', arn: 'arn:bus', clock, delivery });
    const rule = {
      name: 'r',
      arn: 'arn:r',
      busName: 'bus',
      matches: compileEventPattern({ 'detail-type': ['PlanChosen'] }),
      targets: [
        {
          id: 't',
          kind: 'sqs' as const,
          queue: target,
          retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeSeconds: 60 },
        },
      ],
    };
    bus.addRule({ ...rule, enabled: true });
    bus.addRule({
      ...rule,
      name: 'off',
      enabled: false,
      matches: compileEventPattern({ source: ['partner.app'] }),
    });

    // Act
    const matched = bus.put(event({ accountId: 'a' }, 'e-2'));

    // Assess
    expect(matched).toEqual([]);
    expect(target.depth()).toBe(0);
  });
});

describe('an EventBridge pipe from SQS to SQS FIFO', () => {
  it('forwards each message through its input template with group and deduplication ids from the original event', async () => {
    // Prepare
    const intake = queue('intake');
    const route = queue('route.fifo');
    const pipe = startPipe(
      {
        name: 'pipe',
        arn: 'arn:pipe',
        source: intake,
        target: route,
        batchSize: 1,
        inputTemplate: compileInputTemplate(PIPE_INPUT_TEMPLATE),
        messageGroupIdPath: '$.body.detail.accountId',
        messageDeduplicationIdPath: '$.body.id',
        region: 'us-east-1',
      },
      clock,
      delivery,
    );

    // Act
    intake.send({ body: JSON.stringify(event({ accountId: 'acct-1' }, 'e-3')) });
    intake.send({ body: JSON.stringify(event({ accountId: 'acct-1' }, 'e-3')) });
    await until(() => intake.depth() === 0);
    await pipe.stop();

    // Assess: the second copy is the same event id, dropped by FIFO deduplication.
    const [message] = route.messages();
    expect(route.depth()).toBe(1);
    expect(JSON.parse(message!.body)).toEqual({ event: event({ accountId: 'acct-1' }, 'e-3') });
    expect(message).toMatchObject({ groupId: 'acct-1', deduplicationId: 'e-3' });
  });

  it('leaves a message the target refuses on the source, where its redrive policy dead-letters it, without its neighbours', async () => {
    // Prepare
    const intakeDlq = queue('intake-dlq');
    const intake = queue('intake', { redrive: { deadLetterQueue: intakeDlq, maxReceiveCount: 3 } });
    const route = queue('route.fifo');
    const pipe = startPipe(
      {
        name: 'pipe',
        arn: 'arn:pipe',
        source: intake,
        target: route,
        batchSize: 1,
        inputTemplate: compileInputTemplate(PIPE_INPUT_TEMPLATE),
        messageGroupIdPath: '$.body.detail.accountId',
        messageDeduplicationIdPath: '$.body.id',
        region: 'us-east-1',
      },
      clock,
      delivery,
    );

    // Act
    intake.send({ body: JSON.stringify(event({ accountId: 'has space' }, 'bad')) });
    intake.send({ body: JSON.stringify(event({ accountId: 'acct-2' }, 'good')) });
    await until(() => intake.depth() === 0);
    await pipe.stop();

    // Assess
    expect(route.messages().map((message) => JSON.parse(message.body).event.id)).toEqual(['good']);
    const [dead] = intakeDlq.messages();
    expect(JSON.parse(dead!.body).id).toBe('bad');
    expect(dead!.receiveCount).toBe(3);
    expect(dead!.lastFailure).toMatch(/MessageGroupId is invalid/);
  });
});

describe('a Lambda event source mapping on SQS', () => {
  it('gives the whole batch back when the function times out, and deletes what a later run acknowledges', async () => {
    // Prepare
    const orders = queue('orders.fifo', { visibilityTimeoutSeconds: 1 });
    let calls = 0;
    const mapping = startEventSourceMapping({
      queue: orders,
      function: fn(async () => {
        calls++;
        if (calls === 1) await new Promise((resolve) => setTimeout(resolve, 100));
        return { batchItemFailures: [] };
      }, 0.05),
      batchSize: 10,
      maxConcurrency: 2,
      reportBatchItemFailures: true,
      region: 'us-east-1',
    });

    // Act
    orders.send({ body: 'a', groupId: 'g', deduplicationId: '1' });
    orders.send({ body: 'b', groupId: 'g', deduplicationId: '2' });
    await until(() => orders.depth() === 0);
    await mapping.stop();

    // Assess
    expect(calls).toBe(2);
    expect(orders.depth()).toBe(0);
  });

  it('keeps only the records the function reports in batchItemFailures', async () => {
    // Prepare
    const orders = queue('orders.fifo', { visibilityTimeoutSeconds: 1 });
    const seen: string[][] = [];
    const mapping = startEventSourceMapping({
      queue: orders,
      function: fn(async (input) => {
        const records = (input as { Records: Array<{ body: string; messageId: string }> }).Records;
        seen.push(records.map((record) => record.body));
        const failed = records.filter((record) => record.body === 'b' && seen.length === 1);
        return { batchItemFailures: failed.map((record) => ({ itemIdentifier: record.messageId })) };
      }),
      batchSize: 10,
      maxConcurrency: 2,
      reportBatchItemFailures: true,
      region: 'us-east-1',
    });

    // Act
    for (const body of ['a', 'b']) orders.send({ body, groupId: body, deduplicationId: body });
    await until(() => orders.depth() === 0);
    await mapping.stop();

    // Assess
    expect(seen).toEqual([['a', 'b'], ['b']]);
  });
});
