import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListMessageMoveTasksCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { localClock } from '#local/aws/clock.ts';
import { deliveryModel } from '#local/aws/delivery-model.ts';
import { type BusEvent, EventBus } from '#local/aws/event-bus.ts';
import { eventsApi, putEventsEntrySize } from '#local/aws/events-api.ts';
import { LocalSecrets } from '#local/aws/secrets-api.ts';
import { SqsQueue } from '#local/aws/sqs.ts';
import { sqsApi } from '#local/aws/sqs-api.ts';
import { type AwsEndpoint, startAwsEndpoint } from '#local/aws-endpoint.ts';

const credentials = { accessKeyId: 'AKIATEST', secretAccessKey: 'test-secret' };
const region = 'us-east-1';
const clock = localClock(1 / 1000);
const delivery = deliveryModel({ seed: 25 });
const arn = (name: string) => `arn:aws:sqs:${region}:000000000000:${name}`;

describe('the local AWS endpoint, through the real SDK clients', () => {
  let endpoint: AwsEndpoint;
  const accepted: Array<{ event: BusEvent; bus: string }> = [];
  const buses = new Map<string, EventBus>();
  let secrets: LocalSecrets;
  let queues: SqsQueue[];
  let eventBridge: EventBridgeClient;
  let secretsClient: SecretsManagerClient;
  let sqs: SQSClient;

  beforeAll(async () => {
    for (const name of ['default', 'connector-bus'])
      buses.set(name, new EventBus({ name, arn: `arn:${name}`, clock, delivery }));
    secrets = new LocalSecrets({
      region,
      account: '000000000000',
      knownNames: ['connector/token', 'later/token'],
    });
    secrets.define(
      'connector/token',
      'arn:aws:secretsmanager:us-east-1:000000000000:secret:connector/token-LOCAL1',
      'sandbox-token',
    );
    let url = '';
    const dlq = new SqsQueue(
      { name: 'poison-dlq.fifo', arn: arn('poison-dlq.fifo'), url: 'x', fifo: true },
      clock,
      delivery,
    );
    const poison = new SqsQueue(
      {
        name: 'poison.fifo',
        arn: arn('poison.fifo'),
        url: 'x',
        fifo: true,
        redrive: { deadLetterQueue: dlq, maxReceiveCount: 1 },
      },
      clock,
      delivery,
    );
    const orders = new SqsQueue(
      { name: 'orders.fifo', arn: arn('orders.fifo'), url: 'x', fifo: true },
      clock,
      delivery,
    );
    const intake = new SqsQueue(
      { name: 'intake', arn: arn('intake'), url: 'x', fifo: false, visibilityTimeoutSeconds: 0 },
      clock,
      delivery,
    );
    queues = [dlq, poison, orders, intake];
    const operations = {
      ...eventsApi({ region, buses, onAccepted: (event, bus) => accepted.push({ event, bus: bus.name }) }),
      ...secrets.operations(),
      ...sqsApi({ queues: () => queues }),
    };
    endpoint = await startAwsEndpoint({
      port: 0,
      operations: () => operations,
      control: () => [{ method: 'GET', path: '/_local/health', handle: () => ({ status: 'ok', url }) }],
    });
    url = endpoint.url;
    // Queue URLs are made on the endpoint's address, as the template model makes them.
    for (const queue of queues) Object.assign(queue, { url: `${endpoint.url}/000000000000/${queue.name}` });
    eventBridge = new EventBridgeClient({ region, endpoint: endpoint.url, credentials });
    secretsClient = new SecretsManagerClient({ region, endpoint: endpoint.url, credentials });
    sqs = new SQSClient({ region, endpoint: endpoint.url, credentials });
  });

  afterAll(async () => {
    eventBridge.destroy();
    secretsClient.destroy();
    sqs.destroy();
    await endpoint.close();
  });

  beforeEach(() => {
    accepted.length = 0;
  });

  const entry = (overrides: Partial<PutEventsRequestEntry> = {}): PutEventsRequestEntry => ({
    Source: 'partner.app',
    DetailType: 'AccountCreated',
    Detail: JSON.stringify({ accountId: 'acct-1' }),
    EventBusName: 'connector-bus',
    ...overrides,
  });

  describe('PutEvents', () => {
    it('puts an entry on the bus it names (by name or ARN), and one without a bus on the default bus', async () => {
      // Act
      const answer = await eventBridge.send(
        new PutEventsCommand({
          Entries: [
            entry(),
            entry({ EventBusName: 'arn:aws:events:us-east-1:000000000000:event-bus/connector-bus' }),
            entry({ EventBusName: undefined }),
          ],
        }),
      );

      // Assess
      expect(answer.FailedEntryCount).toBe(0);
      expect(accepted.map(({ bus }) => bus)).toEqual(['connector-bus', 'connector-bus', 'default']);
      expect(accepted.map(({ event }) => event.id)).toEqual(answer.Entries?.map((result) => result.EventId));
      expect(accepted[0]?.event).toMatchObject({
        version: '0',
        source: 'partner.app',
        'detail-type': 'AccountCreated',
        region,
        resources: [],
        detail: { accountId: 'acct-1' },
      });
      expect(accepted[0]?.event.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });

    it('keeps the Time an entry gives, in seconds like EventBridge', async () => {
      // Act
      await eventBridge.send(
        new PutEventsCommand({ Entries: [entry({ Time: new Date('2024-03-04T05:06:07.890Z') })] }),
      );

      // Assess
      expect(accepted[0]?.event.time).toBe('2024-03-04T05:06:07Z');
    });

    it('answers per entry for an unknown bus, a missing field and a detail that is not a JSON object', async () => {
      // Act
      const answer = await eventBridge.send(
        new PutEventsCommand({
          Entries: [
            entry({ EventBusName: 'someone-elses-bus' }),
            entry({ Source: undefined }),
            entry({ DetailType: undefined }),
            entry({ Detail: undefined }),
            entry({ Detail: '{not json' }),
            entry({ Detail: '[1,2]' }),
            entry(),
          ],
        }),
      );

      // Assess
      expect(answer.Entries?.map((result) => result.ErrorCode ?? 'ok')).toEqual([
        'ResourceNotFoundException',
        'InvalidArgument',
        'InvalidArgument',
        'InvalidArgument',
        'MalformedDetail',
        'MalformedDetail',
        'ok',
      ]);
      expect(answer.Entries?.[1]?.ErrorMessage).toContain('Source is a required argument');
      expect(accepted).toHaveLength(1);
    });

    it('refuses an entry whose source starts with aws. on its own, as EventBridge does (NotAuthorizedForSourceException)', async () => {
      // Act
      const answer = await eventBridge.send(
        new PutEventsCommand({
          Entries: [entry({ Source: 'aws.events' }), entry({ Source: 'aws.partner.app' }), entry()],
        }),
      );

      // Assess: the call succeeds; the refused entries are counted and answered, the other one is put.
      expect(answer.FailedEntryCount).toBe(2);
      expect(answer.Entries?.slice(0, 2)).toEqual([
        { ErrorCode: 'NotAuthorizedForSourceException', ErrorMessage: 'Not authorized for the source.' },
        { ErrorCode: 'NotAuthorizedForSourceException', ErrorMessage: 'Not authorized for the source.' },
      ]);
      expect(answer.Entries?.[2]?.EventId).toBe(accepted[0]?.event.id);
      expect(accepted).toHaveLength(1);
    });

    it('rejects a call with more than 10 entries, or none, and puts nothing', async () => {
      // Act / Assess
      await expect(
        eventBridge.send(new PutEventsCommand({ Entries: Array.from({ length: 11 }, () => entry()) })),
      ).rejects.toMatchObject({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
      await expect(eventBridge.send(new PutEventsCommand({ Entries: [] }))).rejects.toMatchObject({
        name: 'ValidationException',
      });
      expect(accepted).toHaveLength(0);
    });

    it('rejects entries over 256 KB counted like EventBridge, and accepts exactly 256 KB', async () => {
      // Prepare: Source + DetailType + Detail bytes (no Time) add up to the limit exactly.
      const fixed =
        Buffer.byteLength('partner.appAccountCreated') + Buffer.byteLength('{"accountId":"a","pad":""}');
      const fits = entry({ Detail: JSON.stringify({ accountId: 'a', pad: 'x'.repeat(256 * 1024 - fixed) }) });
      const tooBig = entry({
        Detail: JSON.stringify({ accountId: 'a', pad: 'x'.repeat(256 * 1024 - fixed + 1) }),
      });

      // Act
      const ok = await eventBridge.send(new PutEventsCommand({ Entries: [fits] }));
      const refused = eventBridge.send(new PutEventsCommand({ Entries: [tooBig] }));

      // Assess
      expect(putEventsEntrySize(fits)).toBe(256 * 1024);
      expect(ok.FailedEntryCount).toBe(0);
      await expect(refused).rejects.toMatchObject({ name: 'ValidationException' });
      expect(
        putEventsEntrySize({
          Time: new Date(),
          Source: 'é',
          DetailType: 'x',
          Detail: '{}',
          Resources: ['r1'],
        }),
      ).toBe(14 + 2 + 1 + 2 + 2);
    });
  });

  describe('Secrets Manager', () => {
    it('returns the current value by name or by the ARN it reports', async () => {
      // Act
      const byName = await secretsClient.send(new GetSecretValueCommand({ SecretId: 'connector/token' }));
      const byArn = await secretsClient.send(new GetSecretValueCommand({ SecretId: byName.ARN }));

      // Assess
      expect(byName).toMatchObject({
        SecretString: 'sandbox-token',
        Name: 'connector/token',
        VersionStages: ['AWSCURRENT'],
      });
      expect(byArn.SecretString).toBe('sandbox-token');
    });

    it('makes a put value current, once per client request token', async () => {
      // Act
      const put = await secretsClient.send(
        new PutSecretValueCommand({
          SecretId: 'connector/token',
          SecretString: 'rotated',
          ClientRequestToken: 'a'.repeat(32),
        }),
      );
      const again = await secretsClient.send(
        new PutSecretValueCommand({
          SecretId: 'connector/token',
          SecretString: 'rotated',
          ClientRequestToken: 'a'.repeat(32),
        }),
      );
      const conflicting = await secretsClient
        .send(
          new PutSecretValueCommand({
            SecretId: 'connector/token',
            SecretString: 'other',
            ClientRequestToken: 'a'.repeat(32),
          }),
        )
        .catch((error: Error) => error);
      const current = await secretsClient.send(new GetSecretValueCommand({ SecretId: 'connector/token' }));

      // Assess
      expect(put.VersionId).toBe('a'.repeat(32));
      expect(again.VersionId).toBe(put.VersionId);
      expect(conflicting).toMatchObject({ name: 'ResourceExistsException' });
      expect(current.SecretString).toBe('rotated');
    });

    it('creates a secret the template names; without a value it has none to read until one is put', async () => {
      // Act
      const created = await secretsClient.send(new CreateSecretCommand({ Name: 'later/token' }));
      await expect(
        secretsClient.send(new GetSecretValueCommand({ SecretId: 'later/token' })),
      ).rejects.toMatchObject({
        name: 'ResourceNotFoundException',
      });
      await secretsClient.send(
        new PutSecretValueCommand({ SecretId: created.ARN, SecretString: 'token-now' }),
      );
      const after = await secretsClient.send(new GetSecretValueCommand({ SecretId: 'later/token' }));

      // Assess
      expect(after.SecretString).toBe('token-now');
      await expect(
        secretsClient.send(new CreateSecretCommand({ Name: 'later/token' })),
      ).rejects.toMatchObject({
        name: 'ResourceExistsException',
      });
      await expect(secretsClient.send(new CreateSecretCommand({ Name: 'unrelated' }))).rejects.toMatchObject({
        name: 'InvalidRequestException',
      });
      await expect(secretsClient.send(new GetSecretValueCommand({ SecretId: 'nope' }))).rejects.toMatchObject(
        {
          name: 'ResourceNotFoundException',
        },
      );
    });
  });

  describe('SQS (AWS JSON 1.0)', () => {
    it('sends, receives, changes visibility and deletes, and answers an unknown queue as SQS does', async () => {
      // Prepare
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'orders.fifo' }));

      // Act
      const sent = await sqs.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: 'hello',
          MessageGroupId: 'g',
          MessageDeduplicationId: 'd1',
        }),
      );
      const first = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl,
          ReceiptHandle: first.Messages?.[0]?.ReceiptHandle,
          VisibilityTimeout: 0,
        }),
      );
      const again = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl, ReceiptHandle: again.Messages?.[0]?.ReceiptHandle }),
      );
      const attributes = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));

      // Assess
      expect(first.Messages?.[0]).toMatchObject({ MessageId: sent.MessageId, Body: 'hello' });
      expect(again.Messages?.[0]?.Attributes?.['ApproximateReceiveCount']).toBe('2');
      expect(attributes.Attributes).toMatchObject({ ApproximateNumberOfMessages: '0', FifoQueue: 'true' });
      await expect(sqs.send(new GetQueueUrlCommand({ QueueName: 'missing' }))).rejects.toMatchObject({
        name: 'QueueDoesNotExist',
      });
      await expect(
        sqs.send(
          new SendMessageCommand({
            QueueUrl,
            MessageBody: 'x',
            MessageGroupId: 'has space',
            MessageDeduplicationId: 'd',
          }),
        ),
      ).rejects.toMatchObject({ $metadata: { httpStatusCode: 400 } });
    });

    it('refuses a per-message DelaySeconds on a FIFO queue (InvalidParameterValue), accepting 0', async () => {
      // Prepare
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'orders.fifo' }));
      const message = (id: string, delaySeconds?: number) => ({
        QueueUrl,
        MessageBody: id,
        MessageGroupId: 'g',
        MessageDeduplicationId: id,
        ...(delaySeconds === undefined ? {} : { DelaySeconds: delaySeconds }),
      });

      // Act
      const delayed = await sqs.send(new SendMessageCommand(message('delayed', 5))).catch((error) => error);
      const zero = await sqs.send(new SendMessageCommand(message('zero', 0)));

      // Assess
      expect(delayed).toMatchObject({
        name: 'InvalidParameterValue',
        message:
          'Value 5 for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.',
        $metadata: { httpStatusCode: 400 },
      });
      expect(zero.MessageId).toBeDefined();
      const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
      expect(received.Messages?.map((item) => item.Body)).toEqual(['zero']);
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl, ReceiptHandle: received.Messages?.[0]?.ReceiptHandle }),
      );
    });

    it('sends a batch entry by entry: a FIFO entry with DelaySeconds fails on its own, the others are sent', async () => {
      // Prepare
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'orders.fifo' }));

      // Act
      const answer = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl,
          Entries: [
            { Id: 'now', MessageBody: 'now', MessageGroupId: 'g', MessageDeduplicationId: 'batch-now' },
            {
              Id: 'later',
              MessageBody: 'later',
              MessageGroupId: 'g',
              MessageDeduplicationId: 'batch-later',
              DelaySeconds: 30,
            },
          ],
        }),
      );

      // Assess
      expect(answer.Successful?.map((entry) => entry.Id)).toEqual(['now']);
      expect(answer.Failed).toEqual([
        {
          Id: 'later',
          SenderFault: true,
          Code: 'InvalidParameterValue',
          Message: expect.stringMatching(/not valid for this queue type/),
        },
      ]);
      const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
      expect(received.Messages?.map((item) => item.Body)).toEqual(['now']);
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl, ReceiptHandle: received.Messages?.[0]?.ReceiptHandle }),
      );
      await expect(
        sqs.send(
          new SendMessageBatchCommand({
            QueueUrl,
            Entries: [
              { Id: 'same', MessageBody: 'a', MessageGroupId: 'g' },
              { Id: 'same', MessageBody: 'b', MessageGroupId: 'g' },
            ],
          }),
        ),
      ).rejects.toMatchObject({ name: 'BatchEntryIdsNotDistinct' });
      await expect(sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries: [] }))).rejects.toMatchObject({
        name: 'EmptyBatchRequest',
      });
    });

    it('delays a standard queue message by its DelaySeconds (scaled by the local clock)', async () => {
      // Prepare
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'intake' }));

      // Act: 900 s, the maximum, is 0.9 s at this clock's scale.
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'later', DelaySeconds: 900 }));
      const atOnce = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
      let later: string | undefined;
      while (later === undefined) {
        const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
        later = received.Messages?.[0]?.Body;
        if (later === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
      }

      // Assess
      expect(atOnce.Messages ?? []).toEqual([]);
      expect(later).toBe('later');
      await expect(
        sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x', DelaySeconds: 901 })),
      ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    });

    it('moves dead letters back to the queue they came from with a message move task', async () => {
      // Prepare: one receive allowed, so the second receive attempt dead-letters the message.
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'poison.fifo' }));
      await sqs.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: 'poison',
          MessageGroupId: 'g',
          MessageDeduplicationId: 'p1',
        }),
      );
      const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 0 }));
      expect(received.Messages).toHaveLength(1);
      await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
      const deadLetters = queues[0]!;
      expect(deadLetters.depth()).toBe(1);

      // Act
      const task = await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: deadLetters.arn }));
      const tasks = await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: deadLetters.arn }));
      const back = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));

      // Assess
      expect(tasks.Results?.[0]).toMatchObject({
        TaskHandle: task.TaskHandle,
        Status: 'COMPLETED',
        ApproximateNumberOfMessagesMoved: 1,
      });
      expect(back.Messages?.[0]?.Body).toBe('poison');
      expect(deadLetters.depth()).toBe(0);
      await expect(
        sqs.send(new StartMessageMoveTaskCommand({ SourceArn: arn('poison.fifo') })),
      ).rejects.toMatchObject({
        name: 'UnsupportedOperation',
      });
    });
  });

  it('answers 404 for an unknown control path', async () => {
    // Act
    const response = await fetch(`${endpoint.url}/_local/nothing`);

    // Assess
    expect(response.status).toBe(404);
  });
});
