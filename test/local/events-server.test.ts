import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type BusEvent,
  type EventsServer,
  putEventsEntrySize,
  startEventsServer,
} from '#local/events-server.ts';

const credentials = { accessKeyId: 'AKIATEST', secretAccessKey: 'test-secret' };
const region = 'us-east-1';

describe('local events server', () => {
  let server: EventsServer;
  const dispatched: BusEvent[] = [];
  let trialWatchRuns = 0;
  let eventBridge: EventBridgeClient;
  let secrets: SecretsManagerClient;

  beforeAll(async () => {
    server = await startEventsServer({
      port: 0,
      region,
      busName: 'connector-bus',
      secrets: { 'connector/token': 'sandbox-token' },
      dispatch: (event) => dispatched.push(event),
      control: {
        outbound: () => [
          {
            id: 'o-1',
            source: 'workforce.connector',
            'detail-type': 'BusinessProvisioned',
            time: '2025-01-01T00:00:00Z',
            detail: { accountId: 'a' },
          },
        ],
        dlq: () => [{ queue: 'provision-business.fifo', body: '{}', attempts: 5, reason: 'boom' }],
        runTrialWatch: async () => {
          trialWatchRuns += 1;
          return { announced: 2 };
        },
        health: () => ({ queues: { 'provision-business.fifo': 0 } }),
      },
    });
    eventBridge = new EventBridgeClient({ region, endpoint: server.url, credentials });
    secrets = new SecretsManagerClient({ region, endpoint: server.url, credentials });
  });

  afterAll(async () => {
    eventBridge.destroy();
    secrets.destroy();
    await server.close();
  });

  beforeEach(() => {
    dispatched.length = 0;
  });

  const entry = (overrides: Partial<PutEventsRequestEntry> = {}): PutEventsRequestEntry => ({
    Source: 'partner.app',
    DetailType: 'AccountCreated',
    Detail: JSON.stringify({ accountId: 'acct-1' }),
    EventBusName: 'connector-bus',
    ...overrides,
  });

  describe('PutEvents through @aws-sdk/client-eventbridge', () => {
    it('accepts entries for the configured bus, default and no bus, and dispatches them as EventBridge events', async () => {
      // Act
      const answer = await eventBridge.send(
        new PutEventsCommand({
          Entries: [
            entry(),
            entry({ EventBusName: 'default' }),
            entry({ EventBusName: undefined }),
            entry({ EventBusName: 'arn:aws:events:us-east-1:000000000000:event-bus/connector-bus' }),
          ],
        }),
      );

      // Assess
      expect(answer.FailedEntryCount).toBe(0);
      expect(answer.Entries?.every((result) => typeof result.EventId === 'string')).toBe(true);
      expect(dispatched.map((event) => event.id)).toEqual(answer.Entries?.map((result) => result.EventId));
      expect(dispatched[0]).toMatchObject({
        version: '0',
        source: 'partner.app',
        'detail-type': 'AccountCreated',
        region,
        resources: [],
        detail: { accountId: 'acct-1' },
      });
      expect(dispatched[0]!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });

    it('keeps the Time an entry gives, in seconds like EventBridge', async () => {
      // Act
      await eventBridge.send(
        new PutEventsCommand({ Entries: [entry({ Time: new Date('2024-03-04T05:06:07.890Z') })] }),
      );

      // Assess
      expect(dispatched[0]!.time).toBe('2024-03-04T05:06:07Z');
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
      expect(answer.FailedEntryCount).toBe(6);
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
      expect(dispatched).toHaveLength(1);
    });

    it('rejects a call with more than 10 entries with a ValidationException and dispatches nothing', async () => {
      // Act
      const call = eventBridge.send(
        new PutEventsCommand({ Entries: Array.from({ length: 11 }, () => entry()) }),
      );

      // Assess
      await expect(call).rejects.toMatchObject({
        name: 'ValidationException',
        $metadata: { httpStatusCode: 400 },
      });
      expect(dispatched).toHaveLength(0);
    });

    it('rejects a call with no entries with a ValidationException', async () => {
      // Act / Assess
      await expect(eventBridge.send(new PutEventsCommand({ Entries: [] }))).rejects.toMatchObject({
        name: 'ValidationException',
      });
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
      const accepted = await eventBridge.send(new PutEventsCommand({ Entries: [fits] }));
      const refused = eventBridge.send(new PutEventsCommand({ Entries: [tooBig] }));

      // Assess
      expect(putEventsEntrySize(fits)).toBe(256 * 1024);
      expect(accepted.FailedEntryCount).toBe(0);
      await expect(refused).rejects.toMatchObject({ name: 'ValidationException' });
    });

    it('counts 14 bytes for a Time and UTF-8 bytes for text and resources', () => {
      // Act
      const size = putEventsEntrySize({
        Time: new Date(),
        Source: 'é',
        DetailType: 'x',
        Detail: '{}',
        Resources: ['r1'],
      });

      // Assess
      expect(size).toBe(14 + 2 + 1 + 2 + 2);
    });
  });

  describe('GetSecretValue through @aws-sdk/client-secrets-manager', () => {
    it('returns the token stored under the secret name', async () => {
      // Act
      const secret = await secrets.send(new GetSecretValueCommand({ SecretId: 'connector/token' }));

      // Assess
      expect(secret.SecretString).toBe('sandbox-token');
      expect(secret.Name).toBe('connector/token');
      expect(secret.VersionStages).toEqual(['AWSCURRENT']);
      expect(secret.CreatedDate).toBeInstanceOf(Date);
    });

    it('finds the secret by the ARN it reports', async () => {
      // Prepare
      const { ARN } = await secrets.send(new GetSecretValueCommand({ SecretId: 'connector/token' }));

      // Act
      const byArn = await secrets.send(new GetSecretValueCommand({ SecretId: ARN }));

      // Assess
      expect(byArn.SecretString).toBe('sandbox-token');
    });

    it('answers ResourceNotFoundException for an unknown secret', async () => {
      // Act / Assess
      await expect(secrets.send(new GetSecretValueCommand({ SecretId: 'nope' }))).rejects.toMatchObject({
        name: 'ResourceNotFoundException',
      });
    });
  });

  describe('/_local control endpoints', () => {
    it('serves outbound events, dead letters and health as JSON', async () => {
      // Act
      const [outbound, dlq, health] = await Promise.all(
        ['/_local/outbound', '/_local/dlq', '/_local/health'].map(async (path) =>
          (await fetch(server.url + path)).json(),
        ),
      );

      // Assess
      expect(outbound).toEqual([
        {
          id: 'o-1',
          source: 'workforce.connector',
          'detail-type': 'BusinessProvisioned',
          time: '2025-01-01T00:00:00Z',
          detail: { accountId: 'a' },
        },
      ]);
      expect(dlq).toEqual([{ queue: 'provision-business.fifo', body: '{}', attempts: 5, reason: 'boom' }]);
      expect(health).toEqual({ status: 'ok', queues: { 'provision-business.fifo': 0 } });
    });

    it('runs the trial watch on POST /_local/trial-watch and answers once it is done', async () => {
      // Prepare
      const before = trialWatchRuns;

      // Act
      const response = await fetch(`${server.url}/_local/trial-watch`, { method: 'POST' });

      // Assess
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'done', result: { announced: 2 } });
      expect(trialWatchRuns).toBe(before + 1);
    });

    it('answers 404 for an unknown control path', async () => {
      // Act
      const response = await fetch(`${server.url}/_local/nothing`);

      // Assess
      expect(response.status).toBe(404);
    });
  });
});
