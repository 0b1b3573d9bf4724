import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { outboundContracts } from '#functions/contracts/registry.ts';
import { RetryableError } from '#functions/domain/errors.ts';
import {
  createPublisher,
  entrySize,
  MAX_ENTRY_BYTES,
  type OutboundEvent,
  OutboundEventError,
} from '#functions/publisher/publisher.ts';
import { type FakeAwsServer, startFakeAws, useFakeAwsEnvironment } from './fake-aws.ts';

type PutEntry = { Source: string; DetailType: string; Detail: string; EventBusName: string; Time: number };

/** Which entries (by detail.code) the fake bus refuses, and on how many calls it keeps refusing them. */
let refuse: { codes: Set<string>; times: number } = { codes: new Set(), times: 0 };
let server: FakeAwsServer;
let client: EventBridgeClient;

beforeAll(async () => {
  useFakeAwsEnvironment();
  server = await startFakeAws({
    'AWSEvents.PutEvents': (body, call) => {
      const entries = body['Entries'] as PutEntry[];
      const results = entries.map((entry, index) => {
        const code = (JSON.parse(entry.Detail) as { code?: string }).code ?? '';
        return refuse.codes.has(code) && call <= refuse.times
          ? { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' }
          : { EventId: `evt-${call}-${index}` };
      });
      return {
        body: {
          FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length,
          Entries: results,
        },
      };
    },
  });
  client = new EventBridgeClient({ endpoint: server.endpoint });
});

afterAll(async () => {
  client.destroy();
  await server.close();
});

beforeEach(() => {
  server.calls.length = 0;
  refuse = { codes: new Set(), times: 0 };
});

function syncFailed(code: string): OutboundEvent {
  return {
    detailType: 'SyncFailed',
    detail: {
      accountId: 'acct-1',
      causationId: 'evt-in-1',
      sourceEventId: 'evt-in-1',
      detailType: 'AccountCreated',
      code,
      message: 'refused',
    },
  };
}

function putEntries(): PutEntry[][] {
  return server.calls.map((call) => call.body['Entries'] as PutEntry[]);
}

function codesOf(entries: PutEntry[]): string[] {
  return entries.map((entry) => (JSON.parse(entry.Detail) as { code: string }).code);
}

const noSleep = async () => undefined;

describe('createPublisher', () => {
  it('sends entries with source, detail-type, JSON detail, bus and time, ten per PutEvents call', async () => {
    // Prepare
    const now = new Date('2025-03-01T10:00:00Z');
    const publisher = createPublisher({
      contracts: outboundContracts,
      client,
      busName: 'partner-bus',
      source: 'workforce.connector',
      now: () => now,
    });
    const events = Array.from({ length: 23 }, (_, index) => syncFailed(`CODE_${index}`));

    // Act
    await publisher.publish(events);

    // Assess
    const batches = putEntries();
    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 3]);
    expect(batches.flatMap(codesOf)).toEqual(events.map((_, index) => `CODE_${index}`));
    expect(batches[0]?.[0]).toMatchObject({
      Source: 'workforce.connector',
      DetailType: 'SyncFailed',
      EventBusName: 'partner-bus',
      Time: now.getTime() / 1000,
    });
    expect(JSON.parse(batches[0]?.[0]?.Detail ?? '{}')).toEqual(syncFailed('CODE_0').detail);
  });

  it('re-sends only the entries EventBridge reported as failed, after a jittered backoff', async () => {
    // Prepare
    refuse = { codes: new Set(['B', 'D']), times: 1 };
    const sleeps: number[] = [];
    const publisher = createPublisher({
      contracts: outboundContracts,
      client,
      busName: 'partner-bus',
      source: 'workforce.connector',
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0.5,
      baseDelayMs: 100,
    });

    // Act
    await publisher.publish(['A', 'B', 'C', 'D', 'E'].map(syncFailed));

    // Assess
    expect(putEntries().map(codesOf)).toEqual([
      ['A', 'B', 'C', 'D', 'E'],
      ['B', 'D'],
    ]);
    expect(sleeps).toEqual([50]);
  });

  it('throws a RetryableError when entries still fail after the last attempt', async () => {
    // Prepare
    refuse = { codes: new Set(['B']), times: 99 };
    const publisher = createPublisher({
      contracts: outboundContracts,
      client,
      busName: 'partner-bus',
      source: 'workforce.connector',
      maxAttempts: 3,
      sleep: noSleep,
    });

    // Act
    const outcome = publisher.publish(['A', 'B'].map(syncFailed));

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(RetryableError);
    await expect(outcome).rejects.toThrow(/1 of 2 entries after 3 attempts \(ThrottlingException\)/);
    expect(putEntries().map(codesOf)).toEqual([['A', 'B'], ['B'], ['B']]);
  });

  it('refuses a detail that breaks its outbound contract before sending anything', async () => {
    // Prepare
    const publisher = createPublisher({
      contracts: outboundContracts,
      client,
      busName: 'partner-bus',
      source: 'workforce.connector',
    });
    const broken = { detailType: 'SyncFailed', detail: { accountId: 'acct-1', code: 'lower case' } };

    // Act
    const outcome = publisher.publish([syncFailed('FINE'), broken]);

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(OutboundEventError);
    await expect(outcome).rejects.toThrow(/detail\.code/);
    expect(server.calls).toHaveLength(0);
  });

  it('refuses a detail-type that has no outbound contract', async () => {
    // Prepare
    const publisher = createPublisher({
      contracts: outboundContracts,
      client,
      busName: 'partner-bus',
      source: 'workforce.connector',
    });

    // Act
    const outcome = publisher.publish([{ detailType: 'AccountCreated', detail: { accountId: 'acct-1' } }]);

    // Assess
    await expect(outcome).rejects.toThrow(/no outbound contract for detail-type AccountCreated/);
    expect(server.calls).toHaveLength(0);
  });

  it('refuses an entry over 256 KB with the measured size', async () => {
    // Prepare
    const publisher = createPublisher({
      contracts: outboundContracts,
      client,
      busName: 'partner-bus',
      source: 'workforce.connector',
    });
    const huge = {
      detailType: 'BudgetSaved',
      detail: {
        accountId: 'acct-1',
        hostname: 'cafe-1.us.sandbox.test',
        causationId: 'evt-in-1',
        locationId: 1,
        count: 300,
        ids: Array.from({ length: 300 }, (_, index) => `${index}`.padStart(1000, 'm')),
      },
    };

    // Act
    const outcome = publisher.publish([huge]);

    // Assess
    await expect(outcome).rejects.toThrow(
      /BudgetSaved entry is \d+ bytes, over EventBridge's 262144-byte limit/,
    );
    expect(server.calls).toHaveLength(0);
  });

  it('keeps every PutEvents request within 256 KB in total', async () => {
    // Prepare
    const publisher = createPublisher({
      contracts: outboundContracts,
      client,
      busName: 'partner-bus',
      source: 'workforce.connector',
    });
    const large = (reference: number) => ({
      detailType: 'BudgetSaved',
      detail: {
        accountId: 'acct-1',
        hostname: 'cafe-1.us.sandbox.test',
        causationId: `evt-${reference}`,
        locationId: 1,
        count: 100,
        ids: Array.from({ length: 100 }, (_, index) => `${index}`.padStart(1000, 'm')),
      },
    });

    // Act
    await publisher.publish([1, 2, 3, 4, 5].map(large));

    // Assess
    const batches = putEntries();
    expect(batches.map((batch) => batch.length)).toEqual([2, 2, 1]);
    for (const batch of batches) {
      const bytes = batch.reduce(
        (sum, entry) => sum + entrySize({ ...entry, Time: new Date(entry.Time * 1000) }),
        0,
      );
      expect(bytes).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
    }
  });

  it('publishes nothing for an empty list', async () => {
    // Prepare
    const publisher = createPublisher({
      contracts: outboundContracts,
      client,
      busName: 'partner-bus',
      source: 'workforce.connector',
    });

    // Act
    await publisher.publish([]);

    // Assess
    expect(server.calls).toHaveLength(0);
  });
});

describe('entrySize', () => {
  it('counts 14 bytes for Time and the UTF-8 bytes of source, detail-type, detail and resources, not the bus', () => {
    // Prepare
    const entry = {
      Time: new Date(),
      Source: 'src',
      DetailType: 'Type',
      Detail: '{"name":"Zoë"}',
      Resources: ['arn:x'],
      EventBusName: 'a-very-long-bus-name-that-does-not-count',
    };

    // Act
    const size = entrySize(entry);

    // Assess
    expect(size).toBe(14 + 3 + 4 + 15 + 5);
  });
});
