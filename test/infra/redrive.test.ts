import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseRedriveArgs, RedriveUsageError, redrive } from '#scripts/redrive.ts';

const ACCOUNT = '123456789012';
const DLQ_NAME = 'acme-AccountCreatedDeadLetterQueue.fifo';
const DLQ_URL = `https://sqs.us-east-1.amazonaws.com/${ACCOUNT}/${DLQ_NAME}`;
const DLQ_ARN = `arn:aws:sqs:us-east-1:${ACCOUNT}:${DLQ_NAME}`;

interface SqsCall {
  readonly operation: string;
  readonly input: Record<string, unknown>;
}

/** Speaks the SQS JSON protocol (X-Amz-Target: AmazonSQS.<Operation>) for one dead-letter queue. */
function fakeSqs(state: { messages: number; calls: SqsCall[] }): Server {
  return createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const operation = String(request.headers['x-amz-target']).replace('AmazonSQS.', '');
      const input = JSON.parse(body || '{}') as Record<string, unknown>;
      state.calls.push({ operation, input });
      const answer = (status: number, payload: unknown) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        response.end(JSON.stringify(payload));
      };
      if (operation === 'GetQueueUrl') {
        if (input.QueueName !== DLQ_NAME) {
          answer(400, {
            __type: 'com.amazonaws.sqs#QueueDoesNotExist',
            message: 'The specified queue does not exist.',
          });
          return;
        }
        answer(200, { QueueUrl: DLQ_URL });
      } else if (operation === 'GetQueueAttributes') {
        answer(200, {
          Attributes: { QueueArn: DLQ_ARN, ApproximateNumberOfMessages: String(state.messages) },
        });
      } else if (operation === 'StartMessageMoveTask') {
        answer(200, { TaskHandle: 'task-handle-1' });
      } else if (operation === 'ListMessageMoveTasks') {
        answer(200, {
          Results: [
            {
              Status: 'RUNNING',
              SourceArn: DLQ_ARN,
              ApproximateNumberOfMessagesMoved: 2,
              ApproximateNumberOfMessagesToMove: 5,
              StartedTimestamp: Date.parse('2025-01-02T03:04:05Z'),
            },
          ],
        });
      } else {
        answer(400, { __type: 'com.amazonaws.sqs#UnsupportedOperation', message: operation });
      }
    });
  });
}

describe('redrive', () => {
  const state = { messages: 0, calls: [] as SqsCall[] };
  const server = fakeSqs(state);
  let sqs: SQSClient;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    sqs = new SQSClient({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials: { accessKeyId: 'AKIATESTREDRIVE00000', secretAccessKey: 'test-secret' },
    });
  });

  afterAll(async () => {
    sqs.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    state.calls.length = 0;
    state.messages = 0;
  });

  it('starts a move task on the dead-letter queue ARN resolved from its name, at the requested rate', async () => {
    // Prepare
    state.messages = 7;
    const lines: string[] = [];

    // Act
    const outcome = await redrive(sqs, parseRedriveArgs([DLQ_NAME, '--max-rate', '20']), (line) =>
      lines.push(line),
    );

    // Assess
    expect(outcome).toMatchObject({ kind: 'started', taskHandle: 'task-handle-1', messages: 7 });
    const start = state.calls.find((call) => call.operation === 'StartMessageMoveTask');
    expect(start?.input).toEqual({ SourceArn: DLQ_ARN, MaxNumberOfMessagesPerSecond: 20 });
    expect(lines.join('\n')).toContain('task-handle-1');
  });

  it('moves the messages to the queue given with --to, for dead letters EventBridge itself parked', async () => {
    // Prepare
    state.messages = 2;
    const intake = `arn:aws:sqs:us-east-1:${ACCOUNT}:acme-AccountCreatedIntakeQueue`;
    const lines: string[] = [];

    // Act
    const outcome = await redrive(sqs, parseRedriveArgs([DLQ_NAME, '--to', intake]), (line) =>
      lines.push(line),
    );

    // Assess
    expect(outcome.kind).toBe('started');
    const start = state.calls.find((call) => call.operation === 'StartMessageMoveTask');
    expect(start?.input).toEqual({ SourceArn: DLQ_ARN, DestinationArn: intake });
    expect(lines.join('\n')).toContain(`to ${intake}`);
  });

  it('only reports the message count on --dry-run and moves nothing', async () => {
    // Prepare
    state.messages = 3;
    const lines: string[] = [];

    // Act
    const outcome = await redrive(sqs, parseRedriveArgs([DLQ_URL, '--dry-run']), (line) => lines.push(line));

    // Assess
    expect(outcome).toMatchObject({ kind: 'dry-run', messages: 3, queue: { arn: DLQ_ARN, url: DLQ_URL } });
    expect(state.calls.map((call) => call.operation)).not.toContain('StartMessageMoveTask');
    expect(lines[0]).toContain('about 3 message(s)');
  });

  it('does not start a task when the dead-letter queue is empty', async () => {
    // Act
    const outcome = await redrive(sqs, parseRedriveArgs([DLQ_ARN]), () => {});

    // Assess
    expect(outcome.kind).toBe('nothing-to-move');
    expect(state.calls.map((call) => call.operation)).not.toContain('StartMessageMoveTask');
  });

  it('lists the move tasks of the queue with --status', async () => {
    // Prepare
    const lines: string[] = [];

    // Act
    const outcome = await redrive(sqs, parseRedriveArgs([DLQ_ARN, '--status']), (line) => lines.push(line));

    // Assess
    expect(outcome.kind).toBe('status');
    const list = state.calls.find((call) => call.operation === 'ListMessageMoveTasks');
    expect(list?.input).toMatchObject({ SourceArn: DLQ_ARN });
    expect(lines).toEqual(['RUNNING 2/5 moved, started 2025-01-02T03:04:05.000Z']);
  });

  it('fails with the service error when the queue does not exist', async () => {
    // Act
    const attempt = redrive(sqs, parseRedriveArgs(['no-such-queue']), () => {});

    // Assess
    await expect(attempt).rejects.toThrow(/does not exist/);
  });
});

describe('parseRedriveArgs', () => {
  it('reads the queue, the flags and the region', () => {
    // Act
    const options = parseRedriveArgs(['dlq', '--dry-run', '--region', 'eu-west-1']);

    // Assess
    expect(options).toEqual({ queue: 'dlq', dryRun: true, status: false, region: 'eu-west-1' });
  });

  it.each([
    [[]],
    [['dlq', '--max-rate', '0']],
    [['dlq', '--max-rate', '501']],
    [['dlq', '--bogus']],
    [['a', 'b']],
  ])('refuses %j with the usage line', (argv) => {
    // Act + Assess
    expect(() => parseRedriveArgs(argv)).toThrow(RedriveUsageError);
    expect(() => parseRedriveArgs(argv)).toThrow(/usage: npm run redrive/);
  });
});
