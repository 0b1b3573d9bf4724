import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { awsSetupProblem } from '#scripts/aws-setup.ts';
import { HELP, parseRedriveArgs, RedriveUsageError, redrive } from '#scripts/redrive.ts';

const ACCOUNT = '123456789012';
const DLQ_NAME = 'acme-AccountCreatedDeadLetterQueue.fifo';
const DLQ_URL = `https://sqs.us-east-1.amazonaws.com/${ACCOUNT}/${DLQ_NAME}`;
const DLQ_ARN = `arn:aws:sqs:us-east-1:${ACCOUNT}:${DLQ_NAME}`;
const SOURCE_NAME = 'acme-AccountCreatedQueue.fifo';
const SOURCE_URL = `https://sqs.us-east-1.amazonaws.com/${ACCOUNT}/${SOURCE_NAME}`;
const SOURCE_ARN = `arn:aws:sqs:us-east-1:${ACCOUNT}:${SOURCE_NAME}`;

interface SqsCall {
  readonly operation: string;
  readonly input: Record<string, unknown>;
}

/** Speaks the SQS JSON protocol (X-Amz-Target: AmazonSQS.<Operation>) for one dead-letter queue. */
function fakeSqs(state: { messages: number; sources: string[]; calls: SqsCall[] }): Server {
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
      const urls: Record<string, string> = { [DLQ_NAME]: DLQ_URL, [SOURCE_NAME]: SOURCE_URL };
      if (operation === 'GetQueueUrl') {
        const url = urls[String(input.QueueName)];
        if (url === undefined) {
          answer(400, {
            __type: 'com.amazonaws.sqs#QueueDoesNotExist',
            message: 'The specified queue does not exist.',
          });
          return;
        }
        answer(200, { QueueUrl: url });
      } else if (operation === 'GetQueueAttributes') {
        const arn = input.QueueUrl === SOURCE_URL ? SOURCE_ARN : DLQ_ARN;
        answer(200, {
          Attributes: { QueueArn: arn, ApproximateNumberOfMessages: String(state.messages) },
        });
      } else if (operation === 'ListDeadLetterSourceQueues') {
        answer(200, { queueUrls: input.QueueUrl === DLQ_URL ? state.sources : [] });
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
  const state = { messages: 0, sources: [SOURCE_URL], calls: [] as SqsCall[] };
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
    state.sources = [SOURCE_URL];
  });

  it('moves the messages back to the one queue that dead-letters into it, named explicitly, at the requested rate', async () => {
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
    // Explicit: a record the handler kept was sent to the DLQ, so SQS knows no source for it.
    expect(start?.input).toEqual({
      SourceArn: DLQ_ARN,
      DestinationArn: SOURCE_ARN,
      MaxNumberOfMessagesPerSecond: 20,
    });
    expect(lines.join('\n')).toContain('task-handle-1');
    expect(lines.join('\n')).toContain(`to ${SOURCE_NAME} (${SOURCE_ARN})`);
  });

  it('refuses to guess when no queue dead-letters into it (a schedule DLQ), or more than one does', async () => {
    // Prepare
    state.messages = 1;

    // Act + Assess: none (a schedule's DLQ has no source queue).
    state.sources = [];
    await expect(redrive(sqs, parseRedriveArgs([DLQ_NAME]), () => {})).rejects.toThrow(
      /no queue sends its dead letters to .*schedule's dead-letter queue/,
    );

    // Act + Assess: two.
    state.sources = [SOURCE_URL, DLQ_URL];
    const two = await redrive(sqs, parseRedriveArgs([DLQ_NAME]), () => {}).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(two).toBeInstanceOf(RedriveUsageError);
    expect((two as Error).message).toMatch(
      /2 queues send their dead letters .*name the destination with --to/,
    );
    expect(state.calls.map((call) => call.operation)).not.toContain('StartMessageMoveTask');
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
    expect(lines.join('\n')).toContain(`(${intake})`);
    expect(state.calls.map((call) => call.operation)).not.toContain('ListDeadLetterSourceQueues');
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
  it('answers --help with what each option does', () => {
    // Act
    const options = parseRedriveArgs(['--help']);

    // Assess
    expect(options.help).toBe(true);
    expect(HELP).toMatch(/^usage: npm run redrive/);
    for (const flag of ['--dry-run', '--status', '--to', '--max-rate', '--region'])
      expect(HELP).toContain(flag);
  });

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

describe('a missing AWS region or credentials', () => {
  it('says what to do instead of the SDK message', async () => {
    // Prepare: a machine with no region and no credentials anywhere the SDK looks.
    const saved = { ...process.env };
    for (const name of Object.keys(process.env)) {
      if (name.startsWith('AWS_')) delete process.env[name];
    }
    process.env['AWS_CONFIG_FILE'] = '/nonexistent/aws-config';
    process.env['AWS_SHARED_CREDENTIALS_FILE'] = '/nonexistent/aws-credentials';
    process.env['AWS_EC2_METADATA_DISABLED'] = 'true';
    const noRegion = new SQSClient({});
    const noCredentials = new SQSClient({ region: 'us-east-1' });

    // Act
    const errors = await Promise.all(
      [noRegion, noCredentials].map((client) =>
        redrive(client, parseRedriveArgs(['acme-dlq']), () => {}).then(
          () => undefined,
          (error: unknown) => error,
        ),
      ),
    );
    noRegion.destroy();
    noCredentials.destroy();
    process.env = saved;

    // Assess
    expect(awsSetupProblem(errors[0], 'redrive')).toMatch(/^no AWS region: pass --region/);
    expect(awsSetupProblem(errors[1], 'redrive')).toMatch(/^no AWS credentials: sign in first/);
    expect(
      awsSetupProblem(
        new Error('Region not accepted: region="" is not a valid hostname component.'),
        'redrive',
      ),
    ).toMatch(/^the AWS region is not one/);
    expect(awsSetupProblem(new Error('The specified queue does not exist.'), 'redrive')).toBeUndefined();
  });
});
