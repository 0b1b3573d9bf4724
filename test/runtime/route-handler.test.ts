import { randomUUID } from 'node:crypto';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import * as planChosenContract from '#functions/contracts/inbound/plan-chosen.ts';
import * as planChanged from '#functions/contracts/outbound/plan-changed.ts';
import { outboundContracts } from '#functions/contracts/registry.ts';
import {
  PermanentError,
  RetryableError,
  ServiceRejectedError,
  ServiceUnavailableError,
  ThrottledError,
  TokenRejectedError,
} from '#functions/domain/errors.ts';
import { createPublisher } from '#functions/publisher/publisher.ts';
import { loadConfig } from '#functions/runtime/config.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import { logger, metrics } from '#functions/runtime/observability.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import type { KeptRecord, RecordDelay, RouteQueue } from '#functions/runtime/route-queue.ts';
import type { UseCase } from '#functions/runtime/use-case.ts';
import { createServiceClient } from '#functions/service/client.ts';
import { businessKey } from '#functions/store/keys.ts';
import { readRecordAttempts } from '#functions/store/record-attempts.ts';
import {
  createTestStore,
  type DynaliteServer,
  startDynalite,
  type TestStore,
} from '#test/support/dynalite.ts';
import { lambdaContext } from '#test/support/lambda-context.ts';
import { captureOutput } from './captured-output.ts';
import { type FakeAwsServer, startFakeAws, useFakeAwsEnvironment } from './fake-aws.ts';

type PutEntry = { Source: string; DetailType: string; Detail: string; EventBusName: string };
type Published = { source: string; detailType: string; detail: Record<string, unknown> };

let dynamo: DynaliteServer;
let bus: FakeAwsServer;
let busClient: EventBridgeClient;
/** Detail-types the fake bus refuses, and how many more PutEvents calls it keeps refusing them. */
let busRefusal: { detailType: string; calls: number } | undefined;
/** Events the fake bus accepted; refused entries are not delivered. */
const accepted: Published[] = [];

function testEnv(tableName: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    TABLE_NAME: tableName,
    EVENT_BUS_NAME: 'partner-bus',
    TOKEN_SECRET_ID: 'connector/token',
    PARTNER_NAME: 'acme',
    PROVISIONING_URLS: JSON.stringify({ US: 'http://127.0.0.1:9/' }),
    ...extra,
  };
}

beforeAll(async () => {
  useFakeAwsEnvironment();
  dynamo = await startDynalite();
  bus = await startFakeAws({
    'AWSEvents.PutEvents': (body) => {
      const entries = body['Entries'] as PutEntry[];
      const refusing = busRefusal !== undefined && busRefusal.calls > 0;
      if (refusing && busRefusal) busRefusal.calls -= 1;
      const results = entries.map((entry, index) => {
        if (refusing && entry.DetailType === busRefusal?.detailType) {
          return { ErrorCode: 'InternalFailure', ErrorMessage: 'try again' };
        }
        accepted.push({
          source: entry.Source,
          detailType: entry.DetailType,
          detail: JSON.parse(entry.Detail) as Record<string, unknown>,
        });
        return { EventId: `out-${index}-${randomUUID()}` };
      });
      return {
        body: {
          FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length,
          Entries: results,
        },
      };
    },
  });
  busClient = new EventBridgeClient({ endpoint: bus.endpoint });
});

afterAll(async () => {
  busClient.destroy();
  await bus.close();
  await dynamo.close();
});

beforeEach(() => {
  busRefusal = undefined;
});

function published(): Published[] {
  return [...accepted];
}

function publishedFor(eventId: string): Published[] {
  return published().filter((event) => event.detail['causationId'] === eventId);
}

/** The FIFO message body the intake pipe writes for an event (contracts/envelope.ts). */
/** The events' time; the pipe sends them to the FIFO queue a second later; the clock reads 5 s. */
const EVENT_TIME = '2025-03-01T10:00:00Z';
const SENT_AT = Date.parse('2025-03-01T10:00:01Z');

function eventBridgeBody(
  detailType: string,
  detail: Record<string, unknown>,
  id: string = randomUUID(),
  time = EVENT_TIME,
): string {
  return JSON.stringify({
    event: {
      version: '0',
      id,
      'detail-type': detailType,
      source: 'partner.app',
      account: '123456789012',
      time,
      region: 'us-east-1',
      resources: [],
      detail,
    },
  });
}

function sqsRecord(body: string, groupId: string, receiveCount = 1, sentAt = SENT_AT): SQSRecord {
  const messageId = randomUUID();
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: String(sentAt),
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
      SequenceNumber: String(Date.now()),
      MessageGroupId: groupId,
      MessageDeduplicationId: randomUUID(),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:change-plan.fifo',
    awsRegion: 'us-east-1',
  };
}

function planChosen(accountId: string, eventId = randomUUID(), receiveCount = 1): SQSRecord {
  return sqsRecord(
    eventBridgeBody('PlanChosen', { accountId, plan: 'PREMIUM' }, eventId),
    accountId,
    receiveCount,
  );
}

function batch(...records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

type Step = 'ok' | 'retry' | 'permanent' | 'crash';

/**
 * A use case scripted per account: each call takes the next step of its account's script
 * (default 'ok') and records what it was given.
 */
function scriptedUseCase(scripts: Record<string, Step[]>) {
  const calls: Array<{ eventId: string; accountId: string; receiveCount: number }> = [];
  const partialSteps: string[] = [];
  const useCase: UseCase<'PlanChosen'> = async ({ event, detail, receiveCount }) => {
    calls.push({ eventId: event.id, accountId: detail.accountId, receiveCount });
    const step = scripts[detail.accountId]?.shift() ?? 'ok';
    if (step === 'retry') throw new RetryableError('SERVICE_UNAVAILABLE', 'service answered 503');
    if (step === 'permanent') throw new ServiceRejectedError('change-plan refused: ALREADY_PREMIUM');
    if (step === 'crash') {
      partialSteps.push(event.id);
      throw new TypeError('cannot read properties of undefined');
    }
    return [
      {
        detailType: 'PlanChanged',
        detail: {
          hostname: 'cafe-1.us.sandbox.test',
          edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
          previousEdition: 'SUBSCRIPTION_PRO_TRIAL',
        },
      },
    ];
  };
  return { useCase, calls, partialSteps };
}

async function testDependencies(store: TestStore): Promise<Dependencies> {
  const config = loadConfig(testEnv(store.tableName));
  return {
    config,
    store,
    service: createServiceClient({
      partnerName: config.partnerName,
      provisioningUrls: config.provisioningUrls,
      token: async () => 'never-used',
    }),
    publisher: createPublisher({
      contracts: outboundContracts,
      client: busClient,
      busName: config.eventBusName,
      source: config.outboundSource,
      sleep: async () => undefined,
    }),
    clock: { now: () => new Date('2025-03-01T10:00:05Z') },
    logger,
    metrics,
  };
}

/** The route queue as the handler acts on it: what it delayed and what it kept for redrive. */
class FakeRouteQueue implements RouteQueue {
  readonly settings = {
    queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/change-plan.fifo',
    deadLetterQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/change-plan-dlq.fifo',
    maxReceiveCount: 43,
    maxAttempts: 3,
    retentionSeconds: 14 * 86_400,
  };
  readonly delays: Array<{ messageId: string; seconds: number }> = [];
  readonly kept: KeptRecord[] = [];

  async delay(delays: readonly RecordDelay[]): Promise<void> {
    this.delays.push(...delays.map(({ record, seconds }) => ({ messageId: record.messageId, seconds })));
  }

  async keep(kept: KeptRecord): Promise<void> {
    this.kept.push(kept);
  }

  delayOf(record: SQSRecord): number | undefined {
    return this.delays.findLast((delay) => delay.messageId === record.messageId)?.seconds;
  }
}

async function changePlanHandler(
  scripts: Record<string, Step[]> = {},
  options: { useCase?: UseCase<'PlanChosen'>; config?: Partial<Dependencies['config']> } = {},
) {
  const store = await createTestStore(dynamo.endpoint);
  const base = await testDependencies(store);
  const dependencies = { ...base, config: { ...base.config, ...options.config } };
  const scripted = scriptedUseCase(scripts);
  const queue = new FakeRouteQueue();
  const handler = createRouteHandler({
    ...planChosenRoute,
    useCase: options.useCase ?? scripted.useCase,
    dependencies: () => dependencies,
    queue: () => queue,
  });
  return { handler, store, queue, ...scripted };
}

/** The same SQS message delivered again: same id, one more receive. */
function redelivered(record: SQSRecord, receiveCount: number): SQSRecord {
  return {
    ...record,
    receiptHandle: `handle-${record.messageId}-${receiveCount}`,
    attributes: { ...record.attributes, ApproximateReceiveCount: String(receiveCount) },
  };
}

const context = () => lambdaContext('change-plan');

/** The change-plan route as its handler declares it (functions/change-plan/handler.ts). */
const planChosenRoute = { contract: planChosenContract, publishes: [planChanged] };

describe('createRouteHandler', () => {
  it('runs the use case and publishes its events with accountId and causationId filled in', async () => {
    // Prepare
    const { handler, calls } = await changePlanHandler();
    const eventId = randomUUID();

    // Act
    const response = await handler(batch(planChosen('acct-ok', eventId)), context());

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(calls).toEqual([{ eventId, accountId: 'acct-ok', receiveCount: 1 }]);
    expect(publishedFor(eventId)).toEqual([
      {
        source: 'workforce.connector',
        detailType: 'PlanChanged',
        detail: {
          accountId: 'acct-ok',
          causationId: eventId,
          hostname: 'cafe-1.us.sandbox.test',
          edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
          previousEdition: 'SUBSCRIPTION_PRO_TRIAL',
        },
      },
    ]);
  });

  it.each([
    ['INVALID_JSON', 'PlanChosen', () => sqsRecord('{"version": "0", "id": ', 'acct-json')],
    [
      'INVALID_DETAIL',
      'PlanChosen',
      () => sqsRecord(eventBridgeBody('PlanChosen', { accountId: 'acct-bad', plan: 'GOLD' }), 'acct-bad'),
    ],
    [
      'WRONG_ROUTE',
      'SubscriptionStatusRequested',
      () =>
        sqsRecord(eventBridgeBody('SubscriptionStatusRequested', { accountId: 'acct-route' }), 'acct-route'),
    ],
  ])(
    'acknowledges a %s record and publishes SyncFailed without running the use case',
    async (code, refusedDetailType, makeRecord) => {
      // Prepare
      const { handler, calls } = await changePlanHandler();
      const record = makeRecord();
      const before = published().length;

      // Act
      const response = await handler(batch(record), context());

      // Assess
      expect(response.batchItemFailures).toEqual([]);
      expect(calls).toEqual([]);
      const syncFailed = published().slice(before);
      expect(syncFailed).toHaveLength(1);
      expect(syncFailed[0]).toMatchObject({
        detailType: 'SyncFailed',
        detail: { code, detailType: refusedDetailType },
      });
      expect(syncFailed[0]?.detail['accountId']).toBe(record.attributes.MessageGroupId);
      expect(typeof syncFailed[0]?.detail['sourceEventId']).toBe('string');
      expect(typeof syncFailed[0]?.detail['message']).toBe('string');
    },
  );

  it.each([
    ['UNKNOWN_DETAIL_TYPE', eventBridgeBody('AccountDeleted', { accountId: 'acct-unknown' })],
    ['MISSING_ACCOUNT_ID', eventBridgeBody('PlanChosen', { plan: 'PREMIUM' })],
    ['INVALID_ACCOUNT_ID', eventBridgeBody('PlanChosen', { accountId: 7, plan: 'PREMIUM' })],
  ])(
    'acknowledges a %s record without a SyncFailed of its own: the refusal rule answers it',
    async (_code, body) => {
      // Prepare
      const { handler, calls } = await changePlanHandler();
      const before = published().length;

      // Act
      const response = await handler(batch(sqsRecord(body, '7')), context());

      // Assess
      expect(response.batchItemFailures).toEqual([]);
      expect(calls).toEqual([]);
      expect(published().slice(before)).toEqual([]);
    },
  );

  it('reports a retryable failure and every later record of that account, while other accounts proceed', async () => {
    // Prepare
    const { handler, calls } = await changePlanHandler({ 'acct-a': ['retry'] });
    const first = planChosen('acct-a');
    const other = planChosen('acct-b');
    const later = planChosen('acct-a');
    const otherLater = planChosen('acct-b');

    // Act
    const response = await handler(batch(first, other, later, otherLater), context());

    // Assess
    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: first.messageId },
      { itemIdentifier: later.messageId },
    ]);
    expect(calls.map((call) => call.accountId)).toEqual(['acct-a', 'acct-b', 'acct-b']);
  });

  it('counts the attempt and brings the record back after a minute, with the records of its account behind it', async () => {
    // Prepare
    const { handler, queue, store } = await changePlanHandler({ 'acct-back': ['retry'] });
    const first = planChosen('acct-back');
    const later = planChosen('acct-back');
    const other = planChosen('acct-other');

    // Act
    await handler(batch(first, later, other), context());

    // Assess
    expect(queue.delayOf(first)).toBe(60);
    expect(queue.delayOf(later)).toBe(60);
    expect(queue.delayOf(other)).toBeUndefined();
    expect(await readRecordAttempts(store, 'PlanChosen', first.messageId)).toEqual({
      attempts: 1,
      lastCode: 'SERVICE_UNAVAILABLE',
      gaveUp: false,
    });
  });

  it('gives up after its last attempt: keeps a copy for redrive, tells the partner once with the last code, acknowledges', async () => {
    // Prepare
    const { handler, queue, calls } = await changePlanHandler({
      'acct-exhausted': ['retry', 'retry', 'retry'],
    });
    const eventId = randomUUID();
    const record = planChosen('acct-exhausted', eventId);

    // Act: three counted failures (maxAttempts 3), then a delivery after the give-up (a lost delete).
    const responses = [];
    for (const receive of [1, 2, 3, 4])
      responses.push(await handler(batch(redelivered(record, receive)), context()));

    // Assess
    expect(responses.map((response) => response.batchItemFailures.length)).toEqual([1, 1, 0, 0]);
    expect(queue.delays.map((delay) => delay.seconds)).toEqual([60, 120]);
    expect(calls).toHaveLength(3);
    expect(queue.kept).toEqual([
      expect.objectContaining({ code: 'SERVICE_UNAVAILABLE', attempts: 3, receiveCount: 3 }),
    ]);
    expect(queue.kept[0]?.record.messageId).toBe(record.messageId);
    const reports = publishedFor(eventId);
    expect(reports).toEqual([
      expect.objectContaining({
        detailType: 'SyncFailed',
        detail: expect.objectContaining({
          code: 'RETRIES_EXHAUSTED',
          sourceEventId: eventId,
          detailType: 'PlanChosen',
        }),
      }),
    ]);
    expect(reports[0]?.detail['message']).toMatch(
      /^gave up after 3 attempt\(s\) over 3 receive\(s\); last error SERVICE_UNAVAILABLE: service answered 503\./,
    );
  });

  it("gives up on the queue's last receive, whatever attempts are left", async () => {
    // Prepare
    const { handler, queue } = await changePlanHandler({ 'acct-last': ['retry'] });
    const record = redelivered(planChosen('acct-last'), queue.settings.maxReceiveCount);

    // Act
    const response = await handler(batch(record), context());

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(queue.kept).toEqual([expect.objectContaining({ attempts: 1, code: 'SERVICE_UNAVAILABLE' })]);
  });

  it('makes the record and the rest of the batch wait on a missing or refused token, counting nothing and telling no one', async () => {
    // Prepare
    const tokenRefused: UseCase<'PlanChosen'> = async () => {
      throw new TokenRejectedError('POST /connect answered 401: the service refused the bearer token');
    };
    const { handler, queue, store } = await changePlanHandler({}, { useCase: tokenRefused });
    const first = planChosen('acct-token');
    const other = planChosen('acct-token-other');
    const before = published().length;

    // Act
    const response = await handler(batch(first, other), context());
    const later = await handler(batch(redelivered(first, 5)), context());

    // Assess
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual([
      first.messageId,
      other.messageId,
    ]);
    expect(later.batchItemFailures).toHaveLength(1);
    // 1 minute after the first receive, doubling: 16 minutes after the fifth.
    expect(queue.delays).toEqual([
      { messageId: first.messageId, seconds: 60 },
      { messageId: other.messageId, seconds: 60 },
      { messageId: first.messageId, seconds: 960 },
    ]);
    expect(await readRecordAttempts(store, 'PlanChosen', first.messageId)).toBeUndefined();
    expect(queue.kept).toEqual([]);
    expect(published().slice(before)).toEqual([]);
  });

  it("gives up on a token still refused at the queue's last receive, naming TOKEN_REJECTED", async () => {
    // Prepare
    const tokenRefused: UseCase<'PlanChosen'> = async () => {
      throw new TokenRejectedError('the service refused the bearer token');
    };
    const { handler, queue } = await changePlanHandler({}, { useCase: tokenRefused });
    const eventId = randomUUID();

    // Act
    await handler(
      batch(redelivered(planChosen('acct-token-end', eventId), queue.settings.maxReceiveCount)),
      context(),
    );

    // Assess
    expect(queue.kept).toEqual([expect.objectContaining({ code: 'TOKEN_REJECTED', attempts: 0 })]);
    expect(publishedFor(eventId)[0]?.detail['message']).toMatch(
      /^gave up after waiting over 43 receive\(s\); last error TOKEN_REJECTED/,
    );
  });

  it('waits as long as the service asked, counting nothing, while other accounts proceed', async () => {
    // Prepare
    const throttled: UseCase<'PlanChosen'> = async ({ detail }) => {
      if (detail.accountId === 'acct-slow') {
        throw new ServiceUnavailableError('answered 429', { status: 429, retryAfterMs: 300_000 });
      }
      return [];
    };
    const { handler, queue, store } = await changePlanHandler({}, { useCase: throttled });
    const slow = planChosen('acct-slow');
    const fine = planChosen('acct-fine');

    // Act
    const response = await handler(batch(slow, fine), context());

    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: slow.messageId }]);
    expect(queue.delayOf(slow)).toBe(300);
    expect(await readRecordAttempts(store, 'PlanChosen', slow.messageId)).toBeUndefined();
  });

  it('starts no record with less time left than one service call may take; those go back at once, uncounted', async () => {
    // Prepare
    const { handler, queue, calls } = await changePlanHandler();
    const records = [planChosen('acct-t1'), planChosen('acct-t2'), planChosen('acct-t3')];
    // 10 s left: less than one service call's worst case (retry-schedule.ts, 30 s).
    const shortOnTime = lambdaContext('change-plan', { timeoutMs: 10_000 });

    // Act
    const response = await handler(batch(...records), shortOnTime);

    // Assess: the first record always starts, so a batch always makes progress.
    expect(calls.map((call) => call.accountId)).toEqual(['acct-t1']);
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual([
      records[1]?.messageId,
      records[2]?.messageId,
    ]);
    expect(queue.delays).toEqual([
      { messageId: records[1]?.messageId, seconds: 0 },
      { messageId: records[2]?.messageId, seconds: 0 },
    ]);
  });

  it('gives up on a waiting record before the queue would delete it, with what it waited for', async () => {
    // Prepare: sent almost 14 days ago (the route queues' retention); the next wait would outlive it.
    const tokenRefused: UseCase<'PlanChosen'> = async () => {
      throw new TokenRejectedError('the service refused the bearer token');
    };
    const { handler, queue } = await changePlanHandler({}, { useCase: tokenRefused });
    const eventId = randomUUID();
    const old = sqsRecord(
      eventBridgeBody('PlanChosen', { accountId: 'acct-old', plan: 'PREMIUM' }, eventId),
      'acct-old',
      300,
      Date.parse('2025-03-01T10:00:05Z') - (14 * 86_400 - 1800) * 1000,
    );

    // Act
    const response = await handler(batch(old), context());

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(queue.kept).toEqual([expect.objectContaining({ code: 'TOKEN_REJECTED', receiveCount: 300 })]);
    expect(publishedFor(eventId).map((event) => event.detail['code'])).toEqual(['RETRIES_EXHAUSTED']);
  });

  it('holds back the rest of a batch on a token problem, each record for its own wait, and tries one on its last chance', async () => {
    // Prepare
    const tokenRefused: UseCase<'PlanChosen'> = async () => {
      throw new TokenRejectedError('the service refused the bearer token');
    };
    const { handler, queue } = await changePlanHandler({}, { useCase: tokenRefused });
    const fresh = planChosen('acct-fresh');
    const waitedLong = planChosen('acct-waited', randomUUID(), 8);
    const lastChanceId = randomUUID();
    // The handler gives up 5 receives before the redrive policy's 43 (retry-schedule.ts).
    const lastChance = planChosen('acct-last-chance', lastChanceId, 38);

    // Act
    const response = await handler(batch(fresh, waitedLong, lastChance), context());

    // Assess: held back, not tried: 1 min for a first receive, 30 min (the cap) after the 8th.
    expect(queue.delayOf(fresh)).toBe(60);
    expect(queue.delayOf(waitedLong)).toBe(1800);
    // Tried although the batch waits, so it gives up with a SyncFailed instead of a silent move.
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual([
      fresh.messageId,
      waitedLong.messageId,
    ]);
    expect(queue.kept.map((kept) => kept.record.messageId)).toEqual([lastChance.messageId]);
    expect(publishedFor(lastChanceId).map((event) => event.detail['code'])).toEqual(['RETRIES_EXHAUSTED']);
  });

  it('counts a short Retry-After the client already waited out, and waits a long one uncounted', async () => {
    // Prepare
    const throttled: UseCase<'PlanChosen'> = async ({ detail }) => {
      const retryAfterMs = detail.accountId === 'acct-short' ? 1000 : 600_000;
      throw new ServiceUnavailableError('answered 503', { status: 503, retryAfterMs });
    };
    const { handler, queue, store } = await changePlanHandler({}, { useCase: throttled });
    const short = planChosen('acct-short');
    const long = planChosen('acct-long');

    // Act
    await handler(batch(short, long), context());

    // Assess
    expect(queue.delayOf(short)).toBe(60);
    expect(await readRecordAttempts(store, 'PlanChosen', short.messageId)).toMatchObject({ attempts: 1 });
    expect(queue.delayOf(long)).toBe(600);
    expect(await readRecordAttempts(store, 'PlanChosen', long.messageId)).toBeUndefined();
  });

  it("waits for the connector's own request budget uncounted, however short the wait", async () => {
    // Prepare: the budget had no request within its in-process limit (nothing was sent).
    const throttled: UseCase<'PlanChosen'> = async () => {
      throw new ThrottledError('the request budget of install x has no request for 1500 ms', 1500);
    };
    const { handler, queue, store } = await changePlanHandler({}, { useCase: throttled });
    const record = planChosen('acct-budget');

    // Act
    const response = await handler(batch(record), context());

    // Assess: back on the queue after the wait (rounded up to whole seconds), no attempt counted.
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(queue.delayOf(record)).toBe(2);
    expect(await readRecordAttempts(store, 'PlanChosen', record.messageId)).toBeUndefined();
  });

  it('skips a late record (a redrive after a replay applied it) whose event was applied, and applies the same content at another time', async () => {
    // Prepare
    const { handler, calls } = await changePlanHandler({}, { config: { replayMarkerTtlSeconds: 86_400 } });
    const detail = { accountId: 'acct-late', plan: 'PREMIUM' };
    await handler(batch(sqsRecord(eventBridgeBody('PlanChosen', detail), 'acct-late')), context());
    // The same event under another id (as a replay may give it), redriven an hour later.
    const redriven = sqsRecord(eventBridgeBody('PlanChosen', detail), 'acct-late', 1, SENT_AT + 3_600_000);
    // A new event with the same content, published later (A, B, then A again).
    const again = sqsRecord(
      eventBridgeBody('PlanChosen', detail, randomUUID(), '2025-03-01T11:00:00Z'),
      'acct-late',
      1,
      SENT_AT + 3_600_000,
    );

    // Act
    const responses = [await handler(batch(redriven), context()), await handler(batch(again), context())];

    // Assess
    for (const response of responses) expect(response.batchItemFailures).toEqual([]);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.eventId).toBe(JSON.parse(again.body).event.id);
  });

  it('refuses an event id that comes back with another detail as EVENT_ID_REUSED', async () => {
    // Prepare
    const { handler, calls } = await changePlanHandler();
    const eventId = randomUUID();
    await handler(batch(planChosen('acct-reuse', eventId)), context());
    const changed = sqsRecord(
      eventBridgeBody('PlanChosen', { accountId: 'acct-reuse', plan: 'FREE' }, eventId),
      'acct-reuse',
      2,
    );

    // Act
    const response = await handler(batch(changed), context());

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(calls).toHaveLength(1);
    expect(publishedFor(eventId).map((event) => [event.detailType, event.detail['code']])).toEqual([
      ['PlanChanged', undefined],
      ['SyncFailed', 'EVENT_ID_REUSED'],
    ]);
  });

  it('skips a replayed event whose content was applied, whatever its id, and applies one that never was', async () => {
    // Prepare
    const { handler, calls } = await changePlanHandler({}, { config: { replayMarkerTtlSeconds: 86_400 } });
    const originalId = randomUUID();
    await handler(batch(planChosen('acct-replay', originalId)), context());
    const replayed = (accountId: string, id: string) => {
      const body = JSON.parse(eventBridgeBody('PlanChosen', { accountId, plan: 'PREMIUM' }, id));
      body.event['replay-name'] = 'after-the-fix';
      return sqsRecord(JSON.stringify(body), accountId);
    };

    // Act: a new id (EventBridge does not document whether a replay keeps it), then the same id.
    const newId = await handler(batch(replayed('acct-replay', randomUUID())), context());
    const sameId = await handler(batch(replayed('acct-replay', originalId)), context());
    const neverApplied = await handler(batch(replayed('acct-refused-before', randomUUID())), context());

    // Assess
    for (const response of [newId, sameId, neverApplied]) expect(response.batchItemFailures).toEqual([]);
    expect(calls.map((call) => call.accountId)).toEqual(['acct-replay', 'acct-refused-before']);
    expect(publishedFor(originalId)).toHaveLength(1);
  });

  it('treats an unknown error as retryable and re-runs the use case on redelivery', async () => {
    // Prepare
    const { handler, calls, partialSteps } = await changePlanHandler({ 'acct-crash': ['crash'] });
    const eventId = randomUUID();

    // Act
    const firstDelivery = await handler(batch(planChosen('acct-crash', eventId, 1)), context());
    const redelivery = await handler(batch(planChosen('acct-crash', eventId, 2)), context());

    // Assess
    expect(firstDelivery.batchItemFailures).toHaveLength(1);
    expect(partialSteps).toEqual([eventId]);
    expect(redelivery.batchItemFailures).toEqual([]);
    expect(calls.map((call) => call.receiveCount)).toEqual([1, 2]);
    expect(publishedFor(eventId).map((event) => event.detailType)).toEqual(['PlanChanged']);
  });

  it('acknowledges a permanent failure, publishes SyncFailed and records the error on the business', async () => {
    // Prepare
    const { handler, store } = await changePlanHandler({ 'acct-perm': ['permanent'] });
    await store.doc.send(
      new PutCommand({
        TableName: store.tableName,
        Item: { ...businessKey('acct-perm'), accountId: 'acct-perm' },
      }),
    );
    const eventId = randomUUID();

    // Act
    const response = await handler(batch(planChosen('acct-perm', eventId)), context());

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(publishedFor(eventId)).toEqual([
      {
        source: 'workforce.connector',
        detailType: 'SyncFailed',
        detail: {
          accountId: 'acct-perm',
          causationId: eventId,
          sourceEventId: eventId,
          detailType: 'PlanChosen',
          code: 'SERVICE_REJECTED',
          message: 'change-plan refused: ALREADY_PREMIUM',
        },
      },
    ]);
    const business = await store.doc.send(
      new GetCommand({ TableName: store.tableName, Key: businessKey('acct-perm') }),
    );
    expect(business.Item?.['lastError']).toEqual({
      code: 'SERVICE_REJECTED',
      message: 'change-plan refused: ALREADY_PREMIUM',
      at: '2025-03-01T10:00:05.000Z',
    });
  });

  it('acknowledges a permanent failure of an account that has no business yet', async () => {
    // Prepare
    const { handler } = await changePlanHandler({ 'acct-none': ['permanent'] });
    const eventId = randomUUID();

    // Act
    const response = await handler(batch(planChosen('acct-none', eventId)), context());

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(publishedFor(eventId).map((event) => event.detail['code'])).toEqual(['SERVICE_REJECTED']);
  });

  it('retries a permanent failure whose SyncFailed could not be published', async () => {
    // Prepare
    const { handler } = await changePlanHandler({ 'acct-silent': ['permanent'] });
    busRefusal = { detailType: 'SyncFailed', calls: 10 };
    const record = planChosen('acct-silent');

    // Act
    const response = await handler(batch(record), context());

    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
  });

  it('does not run the use case again for an event id it already completed, and acknowledges it', async () => {
    // Prepare
    const { handler, calls } = await changePlanHandler();
    const eventId = randomUUID();
    await handler(batch(planChosen('acct-dup', eventId)), context());

    // Act
    const response = await handler(batch(planChosen('acct-dup', eventId, 2)), context());

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(calls).toHaveLength(1);
    expect(publishedFor(eventId)).toHaveLength(1);
  });

  it('re-runs the use case when publishing its events failed, so no event is lost', async () => {
    // Prepare
    const { handler, calls } = await changePlanHandler();
    busRefusal = { detailType: 'PlanChanged', calls: 10 };
    const eventId = randomUUID();
    const failed = await handler(batch(planChosen('acct-pub', eventId)), context());
    busRefusal = undefined;

    // Act
    const redelivered = await handler(batch(planChosen('acct-pub', eventId, 2)), context());

    // Assess
    expect(failed.batchItemFailures).toHaveLength(1);
    expect(redelivered.batchItemFailures).toEqual([]);
    expect(calls).toHaveLength(2);
    expect(publishedFor(eventId).map((event) => event.detailType)).toEqual(['PlanChanged']);
  });

  it('builds its dependencies from the environment when none are given', async () => {
    // Prepare
    const store = await createTestStore(dynamo.endpoint);
    Object.assign(process.env, testEnv(store.tableName), {
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_EVENTBRIDGE: bus.endpoint,
      QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/change-plan.fifo',
      DEAD_LETTER_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/change-plan-dlq.fifo',
      MAX_RECEIVE_COUNT: '43',
      MAX_ATTEMPTS: '5',
      QUEUE_RETENTION_SECONDS: '1209600',
    });
    const { useCase, calls } = scriptedUseCase({});
    const handler = createRouteHandler({ ...planChosenRoute, useCase });
    const eventId = randomUUID();

    // Act
    const response = await handler(batch(planChosen('acct-env', eventId)), context());
    const duplicate = await handler(batch(planChosen('acct-env', eventId, 2)), context());

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(duplicate.batchItemFailures).toEqual([]);
    expect(calls).toHaveLength(1);
    expect(publishedFor(eventId).map((event) => event.detailType)).toEqual(['PlanChanged']);
  });

  it('refuses to start when the environment is invalid', () => {
    // Prepare
    const useCase: UseCase<'PlanChosen'> = async () => [];
    delete process.env['TABLE_NAME'];

    // Act
    const create = () => createRouteHandler({ ...planChosenRoute, useCase });

    // Assess
    expect(create).toThrow(PermanentError);
    expect(create).toThrow(/TABLE_NAME is required/);
  });

  it('refuses to start without its queues, naming each missing variable', () => {
    // Prepare
    const useCase: UseCase<'PlanChosen'> = async () => [];
    const store = { tableName: 'connector' };
    Object.assign(process.env, testEnv(store.tableName), { MAX_RECEIVE_COUNT: 'many' });
    for (const name of ['QUEUE_URL', 'DEAD_LETTER_QUEUE_URL', 'MAX_ATTEMPTS']) delete process.env[name];

    // Act
    const create = () => createRouteHandler({ ...planChosenRoute, useCase });

    // Assess
    expect(create).toThrow(PermanentError);
    expect(create).toThrow(
      /QUEUE_URL is required[\s\S]*DEAD_LETTER_QUEUE_URL is required[\s\S]*MAX_RECEIVE_COUNT must be a whole number[\s\S]*MAX_ATTEMPTS is required/,
    );
  });

  it('emits one EMF metric set per invocation counting processed, retried, refused and published records', async () => {
    // Prepare
    const { handler } = await changePlanHandler({
      'acct-metrics-retry': ['retry'],
      'acct-metrics-refused': ['permanent'],
    });
    const output = captureOutput();

    // Act
    try {
      await handler(
        batch(
          planChosen('acct-metrics-ok'),
          planChosen('acct-metrics-retry'),
          planChosen('acct-metrics-refused'),
        ),
        context(),
      );
    } finally {
      vi.restoreAllMocks();
    }

    // Assess
    const emf = output.jsonLines('"_aws"');
    const total = (name: string) =>
      emf
        .flatMap((line) => (line[name] === undefined ? [] : [line[name]].flat()))
        .reduce((sum: number, value) => sum + Number(value), 0);
    // Connector-wide metrics (SyncFailedByClass) leave the service dimension out, for the alarms.
    const byService = emf.filter((line) => line['service'] !== undefined);
    expect(byService.every((line) => line['service'] === 'workforce-connector')).toBe(true);
    const byClass = emf.filter((line) => line['SyncFailedByClass'] !== undefined);
    expect(byClass).toEqual([expect.objectContaining({ class: 'partner', SyncFailedByClass: 1 })]);
    expect(byClass[0]?.['service']).toBeUndefined();
    expect(total('RecordsProcessed')).toBe(1);
    expect(total('RecordsFailed')).toBe(1);
    expect(total('EventsPublished')).toBe(1);
    expect(total('SyncFailed')).toBe(1);
    const syncFailed = emf.find((line) => line['SyncFailed'] !== undefined);
    expect(syncFailed).toMatchObject({ code: expect.any(String) });
    expect(JSON.stringify(syncFailed?.['_aws'])).toContain('"code"');
  });

  it('logs each record under its own event id as correlation id, with its account and detail-type', async () => {
    // Prepare
    const { handler } = await changePlanHandler({ 'acct-log-a': ['retry'], 'acct-log-b': ['permanent'] });
    const firstId = randomUUID();
    const secondId = randomUUID();
    const output = captureOutput();

    // Act
    try {
      await handler(batch(planChosen('acct-log-a', firstId), planChosen('acct-log-b', secondId)), context());
    } finally {
      vi.restoreAllMocks();
    }

    // Assess
    const lines = output.jsonLines('"level"');
    const retried = lines.find((line) => line['message'] === 'record will be retried');
    const refused = lines.find((line) => line['message'] === 'record failed permanently');
    expect(retried).toMatchObject({
      correlation_id: firstId,
      eventId: firstId,
      accountId: 'acct-log-a',
      detailType: 'PlanChosen',
      function_name: 'change-plan',
    });
    expect(refused).toMatchObject({ correlation_id: secondId, eventId: secondId, accountId: 'acct-log-b' });
  });
});
