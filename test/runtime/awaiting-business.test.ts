import { randomUUID } from 'node:crypto';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as accountCreatedContract from '#functions/contracts/inbound/account-created.ts';
import * as planChosenContract from '#functions/contracts/inbound/plan-chosen.ts';
import * as businessProvisioned from '#functions/contracts/outbound/business-provisioned.ts';
import * as planChanged from '#functions/contracts/outbound/plan-changed.ts';
import { outboundContracts } from '#functions/contracts/registry.ts';
import type { InboundEvent } from '#functions/contracts/route-decoder.ts';
import {
  AwaitingBusinessError,
  PermanentError,
  RetryableError,
  ServiceUnavailableError,
  TokenRejectedError,
} from '#functions/domain/errors.ts';
import { provisionedBusinessOf } from '#functions/domain/provisioned-business.ts';
import {
  noteAccountCreatedReceivedFor,
  recordAccountCreatedFailure,
} from '#functions/provision-business/provision-business.ts';
import { createPublisher } from '#functions/publisher/publisher.ts';
import { loadConfig } from '#functions/runtime/config.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import { classify } from '#functions/runtime/failure-kinds.ts';
import { logger, metrics } from '#functions/runtime/observability.ts';
import { waitSeconds } from '#functions/runtime/retry-schedule.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import type { KeptRecord, RecordDelay, RouteQueue } from '#functions/runtime/route-queue.ts';
import type { UseCase } from '#functions/runtime/use-case.ts';
import { createServiceClient } from '#functions/service/client.ts';
import { getBusiness, TRIAL_EDITION } from '#functions/store/business.ts';
import { readRecordAttempts } from '#functions/store/record-attempts.ts';
import {
  claimSignup,
  markSignupUnconfirmed,
  noteAccountCreatedReceived,
  recordProvisioned,
  recordSignupFailed,
} from '#functions/store/signup.ts';
import {
  createTestStore,
  type DynaliteServer,
  startDynalite,
  type TestStore,
} from '#test/support/dynalite.ts';
import { lambdaContext } from '#test/support/lambda-context.ts';
import { type FakeAwsServer, startFakeAws, useFakeAwsEnvironment } from './fake-aws.ts';

/**
 * Events of an account whose business does not exist yet (issue 25, point 3): while its
 * AccountCreated is on its way (RECEIVED, PENDING, UNCONFIRMED) they wait uncounted; once it ended
 * in a SyncFailed (FAILED) they end at once naming it; with no AccountCreated ever received they
 * count attempts. And the AccountCreated route's side: what it notes on arrival and leaves when it
 * ends in a SyncFailed, including when it gives up.
 */

type Published = { detailType: string; detail: Record<string, unknown> };

let dynamo: DynaliteServer;
let bus: FakeAwsServer;
let busClient: EventBridgeClient;
let store: TestStore;
const accepted: Published[] = [];

beforeAll(async () => {
  useFakeAwsEnvironment();
  dynamo = await startDynalite();
  store = await createTestStore(dynamo.endpoint);
  bus = await startFakeAws({
    'AWSEvents.PutEvents': (body) => {
      const entries = body['Entries'] as Array<{ DetailType: string; Detail: string }>;
      for (const entry of entries) {
        accepted.push({
          detailType: entry.DetailType,
          detail: JSON.parse(entry.Detail) as Record<string, unknown>,
        });
      }
      return {
        body: { FailedEntryCount: 0, Entries: entries.map(() => ({ EventId: randomUUID() })) },
      };
    },
  });
  busClient = new EventBridgeClient({ endpoint: bus.endpoint });
});

afterAll(async () => {
  busClient.destroy();
  store.client.destroy();
  await bus.close();
  await dynamo.close();
});

const reportsOf = (eventId: string) =>
  accepted.filter(
    (event) => event.detail['sourceEventId'] === eventId || event.detail['causationId'] === eventId,
  );

const NOW = new Date('2025-03-01T10:00:05Z');

function dependencies(): Dependencies {
  const config = loadConfig({
    TABLE_NAME: store.tableName,
    EVENT_BUS_NAME: 'partner-bus',
    TOKEN_SECRET_ID: 'connector/token',
    PARTNER_NAME: 'acme',
    PROVISIONING_URLS: JSON.stringify({ US: 'http://127.0.0.1:9/' }),
  });
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
    clock: { now: () => NOW },
    logger,
    metrics,
  };
}

class FakeRouteQueue implements RouteQueue {
  readonly settings = {
    queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/route.fifo',
    deadLetterQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/route-dlq.fifo',
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

function sqsRecord(
  detailType: string,
  detail: Record<string, unknown>,
  options: { eventId?: string; receiveCount?: number; messageId?: string } = {},
): SQSRecord {
  const messageId = options.messageId ?? randomUUID();
  const receiveCount = options.receiveCount ?? 1;
  return {
    messageId,
    receiptHandle: `handle-${messageId}-${receiveCount}`,
    body: JSON.stringify({
      event: {
        version: '0',
        id: options.eventId ?? randomUUID(),
        'detail-type': detailType,
        source: 'partner.app',
        account: '123456789012',
        time: '2025-03-01T10:00:00Z',
        region: 'us-east-1',
        resources: [],
        detail,
      },
    }),
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: String(Date.parse('2025-03-01T10:00:01Z')),
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
      SequenceNumber: String(Date.now()),
      MessageGroupId: String(detail['accountId']),
      MessageDeduplicationId: randomUUID(),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:route.fifo',
    awsRegion: 'us-east-1',
  };
}

const batch = (...records: SQSRecord[]): SQSEvent => ({ Records: records });
const context = () => lambdaContext('route');
let sequence = 0;
const newAccountId = (label: string) => `acct-${label}-${++sequence}`;

/** A PlanChosen route whose use case does what every install flow does first: find the business. */
function planChosenHandler() {
  const queue = new FakeRouteQueue();
  const deps = dependencies();
  const useCase: UseCase<'PlanChosen'> = async ({ detail }) => {
    const business = await provisionedBusinessOf(deps.store, detail.accountId);
    return [
      {
        detailType: 'PlanChanged',
        detail: { hostname: business.hostname, edition: business.edition, previousEdition: business.edition },
      },
    ];
  };
  const handler = createRouteHandler({
    contract: planChosenContract,
    publishes: [planChanged],
    useCase,
    dependencies: () => deps,
    queue: () => queue,
  });
  return { handler, queue };
}

const planChosen = (accountId: string, options: { receiveCount?: number; eventId?: string } = {}) =>
  sqsRecord('PlanChosen', { accountId, plan: 'FREE' }, options);

/** The AccountCreated route with provision-business's own hooks, around a scripted use case. */
function accountCreatedHandler(useCase: UseCase<'AccountCreated'>) {
  const queue = new FakeRouteQueue();
  const deps = dependencies();
  const handler = createRouteHandler({
    contract: accountCreatedContract,
    publishes: [businessProvisioned],
    useCase,
    onReceived: noteAccountCreatedReceivedFor,
    onFinalFailure: recordAccountCreatedFailure,
    dependencies: () => deps,
    queue: () => queue,
  });
  return { handler, queue };
}

const accountCreated = (
  accountId: string,
  options: { receiveCount?: number; eventId?: string; messageId?: string } = {},
) =>
  sqsRecord(
    'AccountCreated',
    {
      accountId,
      businessName: 'Harbor Cafe',
      owner: { firstName: 'Avery', lastName: 'Stone', email: 'avery@example.com' },
    },
    options,
  );

async function activate(accountId: string): Promise<void> {
  await recordProvisioned(store, {
    accountId,
    hostname: `${accountId}.us.sandbox.test`,
    edition: TRIAL_EDITION,
    trialEndDate: '2025-03-31T00:00:00+00:00',
    region: 'US',
    eventId: 'evt-created',
  });
}

/** The states an AccountCreated can leave its account in before the business exists. */
const onItsWay: ReadonlyArray<[string, (accountId: string) => Promise<void>]> = [
  [
    'RECEIVED (the AccountCreated arrived, e.g. it waits for the token)',
    async (accountId) => {
      await noteAccountCreatedReceived(store, { accountId, eventId: 'evt-created', region: 'US' });
    },
  ],
  [
    'PENDING (signup claimed: retrying, throttled)',
    async (accountId) => {
      await claimSignup(store, { accountId, eventId: 'evt-created', region: 'US' });
    },
  ],
  [
    'UNCONFIRMED (awaiting resolve-signup)',
    async (accountId) => {
      await claimSignup(store, { accountId, eventId: 'evt-created', region: 'US' });
      await markSignupUnconfirmed(store, accountId, { eventId: 'evt-created', message: 'answer lost' });
    },
  ],
];

describe("classifying an event by its account's business", () => {
  it.each(onItsWay)('%s: waits uncounted, for this account only', async (_state, stage) => {
    // Prepare
    const accountId = newAccountId('waiting');
    await stage(accountId);

    // Act
    const error = await provisionedBusinessOf(store, accountId).catch((caught: unknown) => caught);

    // Assess
    expect(error).toBeInstanceOf(AwaitingBusinessError);
    expect(error).toMatchObject({ code: 'BUSINESS_NOT_PROVISIONED' });
    const event = { id: 'evt-x', detail: { accountId } } as unknown as InboundEvent;
    expect(classify(error, event, 3)).toEqual({
      kind: 'wait',
      code: 'BUSINESS_NOT_PROVISIONED',
      seconds: waitSeconds(3),
      stopsBatch: false,
    });
  });

  it('FAILED: ends at once, naming the AccountCreated and its code', async () => {
    // Prepare
    const accountId = newAccountId('failed');
    await recordSignupFailed(store, {
      accountId,
      eventId: 'evt-created',
      region: 'US',
      code: 'EMAIL_ALREADY_EXISTS',
      message: 'signup refused: EMAIL_ALREADY_EXISTS',
    });

    // Act
    const error = await provisionedBusinessOf(store, accountId).catch((caught: unknown) => caught);

    // Assess
    expect(error).toBeInstanceOf(PermanentError);
    expect(error).toMatchObject({ code: 'BUSINESS_NOT_PROVISIONED' });
    expect((error as Error).message).toContain(
      'AccountCreated evt-created ended in SyncFailed EMAIL_ALREADY_EXISTS',
    );
    const event = { id: 'evt-x', detail: { accountId } } as unknown as InboundEvent;
    expect(classify(error, event, 1)).toMatchObject({ kind: 'permanent', code: 'BUSINESS_NOT_PROVISIONED' });
  });

  it('no record (no AccountCreated ever received): a counted attempt', async () => {
    // Act
    const error = await provisionedBusinessOf(store, newAccountId('none')).catch((caught: unknown) => caught);

    // Assess
    expect(error).toBeInstanceOf(RetryableError);
    expect(error).not.toBeInstanceOf(AwaitingBusinessError);
    const event = { id: 'evt-x', detail: { accountId: 'x' } } as unknown as InboundEvent;
    expect(classify(error, event, 1)).toEqual({ kind: 'attempt', code: 'BUSINESS_NOT_PROVISIONED' });
  });
});

describe('an install route while the business is on its way', () => {
  it('holds the record and the later records of its account, uncounted and untold, while other accounts proceed', async () => {
    // Prepare
    const { handler, queue } = planChosenHandler();
    const accountId = newAccountId('held');
    const other = newAccountId('other');
    await claimSignup(store, { accountId, eventId: 'evt-created', region: 'US' });
    await activate(other);
    const first = planChosen(accountId, { receiveCount: 7 });
    const later = planChosen(accountId);
    const proceeds = planChosen(other);

    // Act
    const response = await handler(batch(first, later, proceeds), context());

    // Assess: 30 min after a 7th receive (the cap of the waits), the later record as long.
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual([
      first.messageId,
      later.messageId,
    ]);
    expect(queue.delayOf(first)).toBe(1800);
    expect(queue.delayOf(later)).toBe(1800);
    expect(await readRecordAttempts(store, 'PlanChosen', first.messageId)).toBeUndefined();
    expect(reportsOf(JSON.parse(first.body).event.id)).toEqual([]);
    expect(reportsOf(JSON.parse(proceeds.body).event.id).map((event) => event.detailType)).toEqual([
      'PlanChanged',
    ]);
  });

  it('applies the waiting record on the receive after the business is recorded', async () => {
    // Prepare
    const { handler } = planChosenHandler();
    const accountId = newAccountId('applies');
    const eventId = randomUUID();
    await claimSignup(store, { accountId, eventId: 'evt-created', region: 'US' });
    const record = planChosen(accountId, { eventId });
    await handler(batch(record), context());

    // Act
    await activate(accountId);
    const response = await handler(
      batch({ ...record, attributes: { ...record.attributes, ApproximateReceiveCount: '2' } }),
      context(),
    );

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(reportsOf(eventId).map((event) => event.detailType)).toEqual(['PlanChanged']);
  });

  it('ends the record at once when the AccountCreated failed, naming it', async () => {
    // Prepare
    const { handler, queue } = planChosenHandler();
    const accountId = newAccountId('ended');
    const eventId = randomUUID();
    await recordSignupFailed(store, {
      accountId,
      eventId: 'evt-created',
      region: 'US',
      code: 'RETRIES_EXHAUSTED',
      message: 'gave up after 5 attempt(s) over 5 receive(s); last error SERVICE_UNAVAILABLE: 503',
    });

    // Act
    const response = await handler(batch(planChosen(accountId, { eventId })), context());

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(queue.kept).toEqual([]);
    const reports = reportsOf(eventId);
    expect(reports).toEqual([
      expect.objectContaining({
        detailType: 'SyncFailed',
        detail: expect.objectContaining({ code: 'BUSINESS_NOT_PROVISIONED', sourceEventId: eventId }),
      }),
    ]);
    expect(reports[0]?.detail['message']).toMatch(
      /its AccountCreated evt-created ended in SyncFailed RETRIES_EXHAUSTED: gave up after 5 attempt/,
    );
  });

  it('counts an attempt for an account no AccountCreated was ever received for', async () => {
    // Prepare
    const { handler, queue } = planChosenHandler();
    const record = planChosen(newAccountId('never'));

    // Act
    await handler(batch(record), context());

    // Assess
    expect(queue.delayOf(record)).toBe(60);
    expect(await readRecordAttempts(store, 'PlanChosen', record.messageId)).toMatchObject({
      attempts: 1,
      lastCode: 'BUSINESS_NOT_PROVISIONED',
    });
  });
});

describe('the AccountCreated route', () => {
  it('notes the account RECEIVED even when the record is held back behind a token problem', async () => {
    // Prepare
    const refused: UseCase<'AccountCreated'> = async () => {
      throw new TokenRejectedError('the service refused the bearer token');
    };
    const { handler, queue } = accountCreatedHandler(refused);
    const [tried, heldBack] = [newAccountId('tried'), newAccountId('held-back')];
    const heldBackRecord = accountCreated(heldBack);

    // Act
    await handler(batch(accountCreated(tried), heldBackRecord), context());

    // Assess: the second record was never tried, yet its account's events now wait.
    expect(queue.delayOf(heldBackRecord)).toBe(60);
    expect(await getBusiness(store, tried)).toMatchObject({ status: 'RECEIVED' });
    expect(await getBusiness(store, heldBack)).toMatchObject({
      status: 'RECEIVED',
      eventId: JSON.parse(heldBackRecord.body).event.id,
    });
  });

  it('leaves the account FAILED, naming the event and code, before telling the partner', async () => {
    // Prepare
    const refused: UseCase<'AccountCreated'> = async () => {
      throw new PermanentError('REGION_NOT_AVAILABLE', 'region UK is not available');
    };
    const { handler } = accountCreatedHandler(refused);
    const accountId = newAccountId('refused');
    const eventId = randomUUID();

    // Act
    const response = await handler(batch(accountCreated(accountId, { eventId })), context());

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(await getBusiness(store, accountId)).toMatchObject({
      status: 'FAILED',
      failure: { eventId, code: 'REGION_NOT_AVAILABLE', message: 'region UK is not available' },
    });
    expect(reportsOf(eventId).map((event) => event.detail['code'])).toEqual(['REGION_NOT_AVAILABLE']);
  });

  it('records the give-up: FAILED with RETRIES_EXHAUSTED, and that its claimed signup may have committed', async () => {
    // Prepare: each attempt claims the signup, then the service answers 503.
    const failing: UseCase<'AccountCreated'> = async ({ event, detail }) => {
      await claimSignup(store, { accountId: detail.accountId, eventId: event.id, region: detail.region });
      throw new ServiceUnavailableError('signup answered 503');
    };
    const { handler, queue } = accountCreatedHandler(failing);
    const accountId = newAccountId('gave-up');
    const eventId = randomUUID();
    const messageId = randomUUID();

    // Act: three counted failures (maxAttempts 3).
    for (const receiveCount of [1, 2, 3]) {
      await handler(batch(accountCreated(accountId, { eventId, messageId, receiveCount })), context());
    }
    // A delivery after the give-up (a lost delete) must not turn the account back to RECEIVED.
    await handler(batch(accountCreated(accountId, { eventId, messageId, receiveCount: 4 })), context());

    // Assess
    expect(queue.kept).toHaveLength(1);
    const business = await getBusiness(store, accountId);
    expect(business).toMatchObject({
      status: 'FAILED',
      signupMayHaveCommitted: true,
      failure: { eventId, code: 'RETRIES_EXHAUSTED' },
    });
    expect(business?.failure?.message).toMatch(/last error SERVICE_UNAVAILABLE/);
    expect(reportsOf(eventId).map((event) => event.detail['code'])).toEqual(['RETRIES_EXHAUSTED']);
  });

  it('leaves an active business as it is when a second AccountCreated is refused', async () => {
    // Prepare
    const refused: UseCase<'AccountCreated'> = async () => {
      throw new PermanentError('ACCOUNT_ALREADY_PROVISIONED', 'already has a business');
    };
    const { handler } = accountCreatedHandler(refused);
    const accountId = newAccountId('active');
    await activate(accountId);

    // Act
    await handler(batch(accountCreated(accountId)), context());

    // Assess
    expect(await getBusiness(store, accountId)).toMatchObject({ status: 'ACTIVE' });
  });
});
