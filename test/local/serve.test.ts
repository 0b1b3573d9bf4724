import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundContracts } from '#functions/contracts/registry.ts';
import { demoAccount } from '#functions/contracts/samples.ts';
import { getAccountByHostname, getBusiness } from '#functions/store/business.ts';
import { createStore } from '#functions/store/store.ts';
import {
  type DeadLetterView,
  type LocalResources,
  type OutboundEvent,
  SANDBOX_TOKEN,
} from '#local/runtime.ts';
import { redrive } from '#scripts/redrive.ts';
import type { RunningCommand } from './child-process.ts';
import { eventually, getJson, type ServeEndpoints, sampleEntry, startServe } from './samples.ts';

/**
 * `npm start -- --serve` as a partner runs it, in its own process: every inbound detail-type is
 * published to its PutEvents endpoint with the real EventBridge client, then outbound events, the
 * sandbox and the table are read back over their own endpoints. The ports are overridden to free
 * ones (0) because other test runs share this machine; `commands.test.ts` checks the fixed defaults.
 */

/** Scenario order: every later sample acts on the business AccountCreated provisions. */
const STEPS: ReadonlyArray<{ detailType: string; result: string }> = [
  { detailType: 'AccountCreated', result: 'BusinessProvisioned' },
  { detailType: 'PlanChosen', result: 'PlanChanged' },
  { detailType: 'SubscriptionStatusRequested', result: 'SubscriptionStatus' },
  { detailType: 'EmployeeChanged', result: 'EmployeeSynced' },
  { detailType: 'LocationCreated', result: 'LocationProvisioned' },
  { detailType: 'BudgetSet', result: 'BudgetSaved' },
  { detailType: 'PayReturnsRequested', result: 'PayReturnsReady' },
  { detailType: 'PayRatesRequested', result: 'PayRatesReported' },
  { detailType: 'ReferenceDataRequested', result: 'ReferenceData' },
  { detailType: 'RecordsRequested', result: 'RecordsReported' },
  { detailType: 'TimesheetFieldsDefined', result: 'TimesheetFieldsSynced' },
  { detailType: 'PayRateAssigned', result: 'PayRatesAssigned' },
];

describe('npm start -- --serve', () => {
  let serve: RunningCommand;
  let endpoints: ServeEndpoints;
  let eventBridge: EventBridgeClient;
  let resources: LocalResources;
  const resultOf = new Map<string, OutboundEvent>();

  const outbound = () => getJson<OutboundEvent[]>(`${endpoints.events}/_local/outbound`);
  const publish = async (entry: PutEventsRequestEntry): Promise<string> => {
    const answer = await eventBridge.send(new PutEventsCommand({ Entries: [entry] }));
    const eventId = answer.Entries?.[0]?.EventId;
    if (!eventId) throw new Error(`PutEvents refused the entry: ${JSON.stringify(answer.Entries)}`);
    return eventId;
  };

  beforeAll(async () => {
    ({ serve, endpoints } = await startServe());
    resources = await getJson<LocalResources>(`${endpoints.events}/_local/resources`);
    eventBridge = new EventBridgeClient({
      region: 'us-east-1',
      endpoint: endpoints.events,
      credentials: { accessKeyId: 'AKIATESTSERVE', secretAccessKey: 'test' },
    });

    for (const { detailType, result } of STEPS) {
      const location = resultOf.get('LocationCreated');
      const eventId = await publish(
        sampleEntry(
          detailType,
          detailType === 'BudgetSet' && location ? { locationId: location.detail['locationId'] } : {},
        ),
      );
      const produced = await eventually(
        async () =>
          (await outbound()).find(
            (event) => event.detail['causationId'] === eventId && event['detail-type'] === result,
          ),
        `${result} for ${detailType} ${eventId}\n${serve.output().slice(-2000)}`,
      );
      resultOf.set(detailType, produced);
    }
  }, 180_000);

  afterAll(async () => {
    eventBridge?.destroy();
    await serve?.killGroup();
  });

  it('publishes the result event of every inbound detail-type, and no SyncFailed', async () => {
    // Act
    const events = await outbound();

    // Assess
    expect(STEPS.map((step) => step.detailType).sort()).toEqual(Object.keys(inboundContracts).sort());
    expect([...resultOf.keys()]).toEqual(STEPS.map((step) => step.detailType));
    expect(resultOf.get('AccountCreated')?.detail).toMatchObject({
      accountId: demoAccount.accountId,
      hostname: demoAccount.hostname,
    });
    expect(events.filter((event) => event['detail-type'] === 'SyncFailed')).toEqual([]);
  });

  it('leaves the business converted and the location with its areas in the sandbox', async () => {
    // Act
    const businesses = await getJson<Array<{ externalId: string; hostname: string; edition: string }>>(
      `${endpoints.sandbox}/_sandbox/businesses`,
    );
    const install = await (
      await fetch(`${endpoints.sandbox}/_sandbox/installs/${demoAccount.hostname}`)
    ).text();

    // Assess
    expect(businesses.find((business) => business.externalId === demoAccount.accountId)).toMatchObject({
      hostname: demoAccount.hostname,
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
    expect(install).toContain('Harbor Cafe Waterfront');
    expect(install).toContain('Front of House');
  });

  it('creates no area for a LocationCreated with `areas: []`', async () => {
    // Act
    const eventId = await publish(
      sampleEntry('LocationCreated', { locationRef: 'loc-enterprise-root', name: 'Harbor Group', areas: [] }),
    );
    const provisioned = await eventually(
      async () => (await outbound()).find((event) => event.detail['causationId'] === eventId),
      'LocationProvisioned',
    );
    const install = await getJson<{
      Location: Array<Record<string, unknown>>;
      Area: Array<Record<string, unknown>>;
    }>(`${endpoints.sandbox}/_sandbox/installs/${demoAccount.hostname}`);

    // Assess
    expect(provisioned['detail-type']).toBe('LocationProvisioned');
    expect(provisioned.detail).toMatchObject({ created: true, areas: [] });
    const locationId = provisioned.detail['locationId'];
    expect(install.Location.filter((location) => location['Id'] === locationId)).toEqual([
      expect.objectContaining({ CompanyName: 'Harbor Group' }),
    ]);
    expect(install.Area.filter((area) => area['Company'] === locationId)).toEqual([]);
  });

  it('upgrades on PlanChosen PREMIUM a business the service says is free while the table says premium', async () => {
    // Prepare: the scenario left the business premium in the table and the service; it is made
    // free at the service behind the connector's back (the sandbox's control API).
    const changed = await fetch(`${endpoints.sandbox}/_sandbox/businesses/${demoAccount.hostname}/edition`, {
      method: 'POST',
      body: JSON.stringify({ edition: 'SUBSCRIPTION_FREE' }),
    });
    expect(await changed.json()).toMatchObject({ previousEdition: 'SUBSCRIPTION_PAID_PRO_PREMIUM' });

    // Act
    const eventId = await publish(sampleEntry('PlanChosen'));
    const changedPlan = await eventually(
      async () => (await outbound()).find((event) => event.detail['causationId'] === eventId),
      'PlanChanged',
    );
    const businesses = await getJson<Array<{ hostname: string; edition: string }>>(
      `${endpoints.sandbox}/_sandbox/businesses`,
    );

    // Assess
    expect(changedPlan['detail-type']).toBe('PlanChanged');
    expect(changedPlan.detail).toMatchObject({
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
      previousEdition: 'SUBSCRIPTION_FREE',
    });
    expect(changedPlan.detail['alreadyOnPlan']).toBeUndefined();
    expect(businesses.find((business) => business.hostname === demoAccount.hostname)).toMatchObject({
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
  });

  it('reports pay rates by origin for agreements staged in the sandbox', async () => {
    // Prepare: a BaseRate (US: it is the rate), a contract's base pay rule, and a contract the
    // install does not hold, staged through the sandbox's control API.
    const staged = await fetch(
      `${endpoints.sandbox}/_sandbox/installs/${demoAccount.hostname}/records/EmployeeAgreement`,
      {
        method: 'POST',
        body: JSON.stringify([
          { Id: 901, EmployeeId: 9, Contract: 1, BaseRate: 31, Active: true },
          { Id: 902, EmployeeId: 10, Contract: 2, BaseRate: null, Active: true },
          { Id: 903, EmployeeId: 11, Contract: 777, BaseRate: null, Active: true },
        ]),
      },
    );
    expect(staged.status).toBe(201);

    // Act
    const eventId = await publish(sampleEntry('PayRatesRequested', { employeeIds: [9, 10, 11] }));
    const reported = await eventually(
      async () => (await outbound()).find((event) => event.detail['causationId'] === eventId),
      'PayRatesReported',
    );

    // Assess
    expect(reported['detail-type']).toBe('PayRatesReported');
    const rates = reported.detail['rates'] as Array<Record<string, unknown>>;
    expect(rates.map((rate) => [rate['agreementId'], rate['origin'], rate['hourlyRate']])).toEqual([
      [901, 'BASE_RATE', 31],
      [902, 'CONTRACT', 17.25],
      [903, 'UNRESOLVED', null],
    ]);
    expect(rates[2]).toMatchObject({ reasonCode: 'CONTRACT_NOT_FOUND', contractId: 777 });
  });

  it('answers a pay period of 3 timesheets (and 1 after it) with 3 PayReturnsReady and one PayReturnsCompleted of count 3', async () => {
    // Prepare: four timesheets staged through the sandbox's control API, the last one after the period.
    const staged = await fetch(
      `${endpoints.sandbox}/_sandbox/installs/${demoAccount.hostname}/records/Timesheet`,
      {
        method: 'POST',
        body: JSON.stringify(
          [
            [7001, '2026-07-06'],
            [7002, '2026-07-08'],
            [7003, '2026-07-12'],
            [7004, '2026-07-13'],
          ].map(([Id, date]) => ({ Id, Employee: 2, OperationalUnit: 1, Date: date, CustomFieldData: null })),
        ),
      },
    );
    expect(staged.status).toBe(201);

    // Act
    const eventId = await publish(
      sampleEntry('PayReturnsRequested', { timesheetIds: undefined, from: '2026-07-06', to: '2026-07-12' }),
    );
    const completed = await eventually(
      async () =>
        (await outbound()).find(
          (event) =>
            event.detail['causationId'] === eventId && event['detail-type'] === 'PayReturnsCompleted',
        ),
      `PayReturnsCompleted for ${eventId}`,
    );
    await settled();

    // Assess
    const answer = (await outbound()).filter((event) => event.detail['causationId'] === eventId);
    expect(
      answer
        .filter((event) => event['detail-type'] === 'PayReturnsReady')
        .map((event) => event.detail['timesheetId'])
        .sort(),
    ).toEqual([7001, 7002, 7003]);
    expect(answer.filter((event) => event['detail-type'] === 'PayReturnsCompleted')).toHaveLength(1);
    expect(answer).toHaveLength(4);
    expect(completed.detail).toMatchObject({
      from: '2026-07-06',
      to: '2026-07-12',
      timesheetIds: [7001, 7002, 7003],
      count: 3,
      sourceEventId: eventId,
    });
  });

  it('answers RecordsRequested for employees by name page after page, following nextCursor', async () => {
    // Prepare: employees whose last names start with "Nov" (and one that only contains it).
    const staged = await fetch(
      `${endpoints.sandbox}/_sandbox/installs/${demoAccount.hostname}/records/Employee`,
      {
        method: 'POST',
        body: JSON.stringify([
          { Id: 801, FirstName: 'Ira', LastName: 'Novak', Active: true },
          { Id: 802, FirstName: 'Jo', LastName: 'Novotny', Active: true },
          { Id: 803, FirstName: 'Kai', LastName: 'Casanova', Active: true },
          { Id: 804, FirstName: 'Lu', LastName: 'Novello', Active: true },
        ]),
      },
    );
    expect(staged.status).toBe(201);
    const where = [{ field: 'LastName', op: 'lk', value: 'nov%' }];

    // Act
    const pages: OutboundEvent[] = [];
    let cursor: string | undefined;
    do {
      const eventId = await publish(
        sampleEntry('RecordsRequested', { where, pageSize: 2, ...(cursor ? { cursor } : {}) }),
      );
      const page = await eventually(
        async () => (await outbound()).find((event) => event.detail['causationId'] === eventId),
        `RecordsReported for ${eventId}`,
      );
      pages.push(page);
      cursor = page.detail['nextCursor'] as string | undefined;
    } while (cursor !== undefined && pages.length < 4);

    // Assess
    expect(pages.map((page) => page['detail-type'])).toEqual(['RecordsReported', 'RecordsReported']);
    expect(
      pages.map((page) =>
        (page.detail['records'] as Array<Record<string, unknown>>).map((record) => record['Id']),
      ),
    ).toEqual([[801, 802], [804]]);
  });

  it('creates one definition per apiName when TimesheetFieldsDefined comes twice', async () => {
    // Act: the scenario's TimesheetFieldsDefined again, as a new event.
    const eventId = await publish(sampleEntry('TimesheetFieldsDefined'));
    const synced = await eventually(
      async () => (await outbound()).find((event) => event.detail['causationId'] === eventId),
      'TimesheetFieldsSynced',
    );
    const install = await getJson<Record<string, Array<Record<string, unknown>>>>(
      `${endpoints.sandbox}/_sandbox/installs/${demoAccount.hostname}`,
    );

    // Assess
    expect(resultOf.get('TimesheetFieldsDefined')?.detail).toMatchObject({
      created: [{ apiName: 'supervisorApproved' }, { apiName: 'overtimeReason' }],
    });
    expect(synced).toMatchObject({
      'detail-type': 'TimesheetFieldsSynced',
      detail: { created: [], total: 2 },
    });
    expect((install['CustomField'] ?? []).map((definition) => definition['ApiName'])).toEqual([
      'supervisorApproved',
      'overtimeReason',
    ]);
  });

  it('assigns a pay rate to 5 employees with 1 library assignment and 1 bulk call', async () => {
    // Prepare
    const requests = () =>
      getJson<Array<{ method: string; path: string }>>(`${endpoints.sandbox}/_sandbox/requests`);
    const before = (await requests()).length;

    // Act
    const eventId = await publish(
      sampleEntry('PayRateAssigned', {
        employeeIds: [1, 2, 3, 4, 5],
        // Newer than the scenario's pay rates (last writer wins per employee).
        occurredAt: new Date().toISOString(),
      }),
    );
    const assigned = await eventually(
      async () => (await outbound()).find((event) => event.detail['causationId'] === eventId),
      'PayRatesAssigned',
    );
    const calls = (await requests()).slice(before).map((request) => `${request.method} ${request.path}`);

    // Assess
    const install = `/installs/${demoAccount.hostname}`;
    expect(calls.filter((call) => call.includes('setAwardFromLibrary'))).toEqual([
      `POST ${install}/api/v1/supervise/employee/1/setAwardFromLibrary`,
    ]);
    expect(calls.filter((call) => call.endsWith('/employees:bulk'))).toEqual([
      `POST ${install}/api/management/v2/employees:bulk`,
    ]);
    expect(assigned).toMatchObject({ 'detail-type': 'PayRatesAssigned', detail: { applied: 5, failed: 0 } });
  });

  it('reads countries from the install once: later ReferenceDataRequested events answer from the table', async () => {
    // Act: two more requests for countries after the one of the scenario above.
    const answers: OutboundEvent[] = [];
    for (let index = 0; index < 2; index += 1) {
      const eventId = await publish(
        sampleEntry('ReferenceDataRequested', {
          kinds: ['COUNTRIES'],
          countryCode: undefined,
          employeeId: undefined,
        }),
      );
      answers.push(
        await eventually(
          async () => (await outbound()).find((event) => event.detail['causationId'] === eventId),
          'ReferenceData',
        ),
      );
    }
    const requests = await getJson<Array<{ method: string; path: string }>>(
      `${endpoints.sandbox}/_sandbox/requests`,
    );

    // Assess
    const countryReads = requests.filter(
      (request) => request.path === `/installs/${demoAccount.hostname}/api/v1/resource/Country/QUERY`,
    );
    expect(countryReads).toHaveLength(1);
    expect(answers.map((answer) => answer['detail-type'])).toEqual(['ReferenceData', 'ReferenceData']);
    expect(answers[1]?.detail['countries']).toEqual(
      resultOf.get('ReferenceDataRequested')?.detail['countries'],
    );
    expect(answers[1]?.detail['countries']).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'US', name: 'United States' })]),
    );
  });

  it('records the business and its hostname mapping in the served DynamoDB table', async () => {
    // Prepare
    const client = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: endpoints.dynamo,
      credentials: { accessKeyId: 'AKIATESTSERVE', secretAccessKey: 'test' },
    });
    const health = await getJson<{ tableName: string }>(`${endpoints.events}/_local/health`);
    const store = createStore({ tableName: health.tableName, client });

    // Act
    const business = await getBusiness(store, demoAccount.accountId);
    const owner = await getAccountByHostname(store, demoAccount.hostname);
    client.destroy();

    // Assess
    expect(business).toMatchObject({ accountId: demoAccount.accountId, hostname: demoAccount.hostname });
    expect(owner).toBe(demoAccount.accountId);
  });

  it('answers an invalid event with SyncFailed naming it', async () => {
    // Act
    const eventId = await publish(sampleEntry('PlanChosen', { plan: 'PLATINUM' }));
    const failed = await eventually(
      async () =>
        (await outbound()).find(
          (event) => event['detail-type'] === 'SyncFailed' && event.detail['sourceEventId'] === eventId,
        ),
      'SyncFailed',
    );

    // Assess
    expect(failed.detail).toMatchObject({ accountId: demoAccount.accountId, detailType: 'PlanChosen' });
  });

  it('ends an event of an account never provisioned with one SyncFailed RETRIES_EXHAUSTED, kept for a redrive that then applies it', async () => {
    // Act: an account the connector never provisioned, so the employee sync cannot run.
    const ghost = 'acct-never-provisioned';
    const eventId = await publish(sampleEntry('EmployeeChanged', { accountId: ghost }));
    // The handler keeps the copy first, then publishes: wait for the SyncFailed, then read the DLQ.
    await eventually(
      async () => (await outbound()).find((event) => event.detail['sourceEventId'] === eventId),
      'the SyncFailed',
      60_000,
    );
    const parked = await eventually(
      async () =>
        (await getJson<DeadLetterView[]>(`${endpoints.events}/_local/dlq`)).find((entry) =>
          entry.body.includes(eventId),
        ),
      'the dead letter',
    );
    const reports = (await outbound()).filter((event) => event.detail['sourceEventId'] === eventId);

    // Assess: kept where the route's redrive takes it from, told once, with the last code.
    const deadLetterQueue = resources.queues.find(
      (queue) => queue.route === 'EmployeeChanged' && queue.deadLettersOf === 'route',
    );
    expect(parked).toMatchObject({
      queue: deadLetterQueue?.name,
      attempts: 5,
      lastErrorCode: 'BUSINESS_NOT_PROVISIONED',
    });
    expect(reports.map((event) => [event['detail-type'], event.detail['code']])).toEqual([
      ['SyncFailed', 'RETRIES_EXHAUSTED'],
    ]);
    expect(reports[0]?.detail['message']).toContain('last error BUSINESS_NOT_PROVISIONED');

    // Act: provision the account, then redrive the route's dead letters with the redrive tool.
    const provisioned = await publish(
      sampleEntry('AccountCreated', {
        accountId: ghost,
        owner: { firstName: 'Gale', lastName: 'Ghost', email: 'ghost@example.com' },
      }),
    );
    await eventually(
      async () =>
        (await outbound()).find(
          (event) =>
            event.detail['causationId'] === provisioned && event['detail-type'] === 'BusinessProvisioned',
        ),
      'the ghost account provisioned',
    );
    const sqs = new SQSClient({
      region: 'us-east-1',
      endpoint: endpoints.events,
      credentials: { accessKeyId: 'AKIATESTSERVE', secretAccessKey: 'test' },
    });
    const lines: string[] = [];
    try {
      await redrive(sqs, { queue: deadLetterQueue?.name ?? '?', dryRun: false, status: false }, (line) =>
        lines.push(line),
      );
    } finally {
      sqs.destroy();
    }
    const synced = await eventually(
      async () =>
        (await outbound()).find(
          (event) => event.detail['causationId'] === eventId && event['detail-type'] === 'EmployeeSynced',
        ),
      'the redriven event applied',
    );

    // Assess
    expect(lines.join('\n')).toContain(
      `to ${resources.queues.find((queue) => queue.route === 'EmployeeChanged' && queue.kind === 'route')?.name}`,
    );
    expect(synced.detail).toMatchObject({ accountId: ghost });
    expect(
      (await getJson<DeadLetterView[]>(`${endpoints.events}/_local/dlq`)).some((entry) =>
        entry.body.includes(eventId),
      ),
    ).toBe(false);
  });

  /** Resolves once the served runtime has nothing queued, in flight or retried (GET /_local/idle). */
  const settled = () => getJson<{ idle: boolean }>(`${endpoints.events}/_local/idle`);
  const deadLettersWith = async (eventId: string) =>
    (await getJson<DeadLetterView[]>(`${endpoints.events}/_local/dlq`)).filter((entry) =>
      entry.body.includes(eventId),
    );

  describe('events no route can take, each answered with exactly one SyncFailed and parked nowhere', () => {
    const refusals: ReadonlyArray<{ what: string; entry: () => PutEventsRequestEntry; code: string }> = [
      {
        what: 'no accountId',
        entry: () => ({ ...sampleEntry('SubscriptionStatusRequested'), Detail: JSON.stringify({}) }),
        code: 'MISSING_ACCOUNT_ID',
      },
      {
        what: 'an accountId with a space',
        entry: () => sampleEntry('SubscriptionStatusRequested', { accountId: 'acct 1001' }),
        code: 'INVALID_ACCOUNT_ID',
      },
      {
        what: 'an accountId of 129 characters',
        entry: () => sampleEntry('SubscriptionStatusRequested', { accountId: 'a'.repeat(129) }),
        code: 'INVALID_ACCOUNT_ID',
      },
      {
        what: 'a number as accountId',
        entry: () => sampleEntry('SubscriptionStatusRequested', { accountId: 1001 }),
        code: 'INVALID_ACCOUNT_ID',
      },
      {
        what: 'a detail-type no route handles',
        entry: () => ({ ...sampleEntry('SubscriptionStatusRequested'), DetailType: 'AccountDeleted' }),
        code: 'UNKNOWN_DETAIL_TYPE',
      },
    ];

    for (const { what, entry, code } of refusals) {
      it(`refuses an event with ${what}: ${code}, keyed by its event id, and parks it nowhere`, async () => {
        // Act
        const eventId = await publish(entry());
        const refused = await eventually(
          async () => (await outbound()).find((event) => event.detail['sourceEventId'] === eventId),
          `the SyncFailed of ${eventId}`,
        );
        // Until everything settled: an accountId that exists also went down its route's rule, the
        // pipe failed it until the intake queue's receives ran out, and the refusal function
        // answered its intake dead letter (a second answer or a parked copy would be there now).
        await settled();

        // Assess
        const all = (await outbound()).filter((event) => event.detail['sourceEventId'] === eventId);
        expect(all).toHaveLength(1);
        expect(refused).toMatchObject({
          'detail-type': 'SyncFailed',
          detail: { code, causationId: eventId },
        });
        expect(String(refused.detail['message'])).not.toContain('acct 1001');
        expect(await deadLettersWith(eventId)).toEqual([]);
      });
    }

    it('creates nothing twice when the same event is published again', async () => {
      // Act: the AccountCreated of the scenario, published a second time (a new event id).
      const eventId = await publish(sampleEntry('AccountCreated'));
      await eventually(
        async () => (await outbound()).find((event) => event.detail['causationId'] === eventId),
        `the answer to ${eventId}`,
      );
      const businesses = await getJson<Array<{ externalId: string }>>(
        `${endpoints.sandbox}/_sandbox/businesses`,
      );

      // Assess
      expect(businesses.filter((business) => business.externalId === demoAccount.accountId)).toHaveLength(1);
    });
  });

  it('answers a routable event found in an intake DLQ with one SyncFailed INTAKE_UNDELIVERABLE, keeps it in the route DLQ, and a redrive applies it', async () => {
    // Prepare: what EventBridge puts in the rule target's DLQ when it cannot deliver to the intake
    // queue (the event as the body, its error attributes), sent with the real SQS client.
    const intakeDeadLetters = resources.queues.find(
      (queue) => queue.route === 'SubscriptionStatusRequested' && queue.deadLettersOf === 'intake',
    );
    const routeDeadLetters = resources.queues.find(
      (queue) => queue.route === 'SubscriptionStatusRequested' && queue.deadLettersOf === 'route',
    );
    const eventId = randomUUID();
    const event = {
      version: '0',
      id: eventId,
      'detail-type': 'SubscriptionStatusRequested',
      source: 'partner.app',
      account: '000000000000',
      time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: 'us-east-1',
      resources: [],
      detail: { accountId: demoAccount.accountId },
    };
    const sqs = new SQSClient({
      region: 'us-east-1',
      endpoint: endpoints.events,
      credentials: { accessKeyId: 'AKIATESTSERVE', secretAccessKey: 'test' },
    });
    const text = (value: string) => ({ DataType: 'String', StringValue: value });

    try {
      // Act
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: intakeDeadLetters?.url,
          MessageBody: JSON.stringify(event),
          MessageAttributes: {
            RULE_ARN: text('arn:aws:events:us-east-1:000000000000:rule/intake'),
            TARGET_ARN: text('arn:aws:sqs:us-east-1:000000000000:intake'),
            ERROR_CODE: text('SQS_PERMISSION_ERROR'),
            ERROR_MESSAGE: text('Access to the resource is denied'),
          },
        }),
      );
      await settled();
      const reports = (await outbound()).filter((outbound) => outbound.detail['sourceEventId'] === eventId);
      const parked = await deadLettersWith(eventId);
      const lines: string[] = [];
      await redrive(sqs, { queue: routeDeadLetters?.name ?? '?', dryRun: false, status: false }, (line) =>
        lines.push(line),
      );
      const answered = await eventually(
        async () =>
          (await outbound()).find(
            (outbound) =>
              outbound.detail['causationId'] === eventId && outbound['detail-type'] === 'SubscriptionStatus',
          ),
        'the redriven event applied',
      );
      await settled();

      // Assess: told once (an operator problem), kept in the route DLQ only, applied after the redrive.
      expect(reports.map((report) => [report['detail-type'], report.detail['code']])).toEqual([
        ['SyncFailed', 'INTAKE_UNDELIVERABLE'],
      ]);
      expect(reports[0]?.detail).toMatchObject({ accountId: demoAccount.accountId });
      expect(parked).toMatchObject([
        { queue: routeDeadLetters?.name, lastErrorCode: 'INTAKE_UNDELIVERABLE' },
      ]);
      expect(JSON.parse(parked[0]?.body ?? '{}')).toEqual({ event });
      expect(lines.join('\n')).toContain('started moving about 1 message(s)');
      expect(answered.detail).toMatchObject({ accountId: demoAccount.accountId });
      expect(await deadLettersWith(eventId)).toEqual([]);
    } finally {
      sqs.destroy();
    }
  });

  it('accepts entries for the bus the template names, and routes nothing put on the default bus', async () => {
    // Act
    const named = await eventBridge.send(
      new PutEventsCommand({ Entries: [sampleEntry('SubscriptionStatusRequested')] }),
    );
    const unknown = await eventBridge.send(
      new PutEventsCommand({
        Entries: [{ ...sampleEntry('SubscriptionStatusRequested'), EventBusName: 'no-such-bus' }],
      }),
    );
    const onDefault = await eventBridge.send(
      new PutEventsCommand({
        Entries: [{ ...sampleEntry('SubscriptionStatusRequested'), EventBusName: undefined }],
      }),
    );
    await eventually(
      async () =>
        (await outbound()).find((event) => event.detail['causationId'] === named.Entries?.[0]?.EventId),
      'the SubscriptionStatus',
    );

    // Assess
    expect(sampleEntry('SubscriptionStatusRequested').EventBusName).toBe(resources.busName);
    expect(unknown.Entries?.[0]).toMatchObject({ ErrorCode: 'ResourceNotFoundException' });
    const defaultId = onDefault.Entries?.[0]?.EventId;
    expect(defaultId).toBeDefined();
    expect((await outbound()).filter((event) => event.detail['causationId'] === defaultId)).toEqual([]);
  });

  it('runs the trial watch on POST /_local/trial-watch and answers when it is done', async () => {
    // Act
    const answer = await getJson<{ status: string; result: unknown }>(
      `${endpoints.events}/_local/trial-watch`,
      {
        method: 'POST',
      },
    );

    // Assess
    expect(answer).toMatchObject({ status: 'done', result: { failed: 0 } });
  });

  it('denied no AWS call of the whole run: every grant the code needed was in the template (GET /_local/denied)', async () => {
    // Act
    const denied = await getJson<unknown[]>(`${endpoints.events}/_local/denied`);
    const health = await getJson<{ deniedCalls: number }>(`${endpoints.events}/_local/health`);

    // Assess
    expect(denied).toEqual([]);
    expect(health.deniedCalls).toBe(0);
    expect(serve.output()).toMatch(
      /IAM enforced: \d+ principals \(\d+ roles, events\.amazonaws\.com, cloudwatch\.amazonaws\.com\)/,
    );
  });

  it('stops cleanly with exit code 0 on SIGTERM', async () => {
    // Act
    serve.child.kill('SIGTERM');
    const code = await serve.exited;

    // Assess
    expect(code).toBe(0);
    expect(serve.output()).toContain('SIGTERM: stopping');
  });
});

describe('npm start -- --serve --no-token: deploy first, set the token later', () => {
  let serve: RunningCommand;
  let endpoints: ServeEndpoints;
  let resources: LocalResources;
  const credentials = { accessKeyId: 'AKIATESTSERVE', secretAccessKey: 'test' };

  beforeAll(async () => {
    ({ serve, endpoints } = await startServe(['--no-token']));
    resources = await getJson<LocalResources>(`${endpoints.events}/_local/resources`);
  }, 90_000);

  afterAll(async () => {
    // SIGTERM: tsx passes it on to the runtime it started (a SIGKILL would leave that one running).
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });

  it('holds an AccountCreated while the token is wrong, telling no one, and applies it once after PutSecretValue', async () => {
    // Prepare: a wrong token set through the local Secrets Manager, as a partner's script would.
    const secrets = new SecretsManagerClient({
      region: 'us-east-1',
      endpoint: endpoints.events,
      credentials,
    });
    const eventBridge = new EventBridgeClient({
      region: 'us-east-1',
      endpoint: endpoints.events,
      credentials,
    });
    const dynamoClient = new DynamoDBClient({ region: 'us-east-1', endpoint: endpoints.dynamo, credentials });
    const table = createStore({
      tableName: (await getJson<{ tableName: string }>(`${endpoints.events}/_local/health`)).tableName,
      client: dynamoClient,
    });
    const outbound = () => getJson<OutboundEvent[]>(`${endpoints.events}/_local/outbound`);
    const accountId = 'acct-token-later';
    try {
      await secrets.send(
        new PutSecretValueCommand({ SecretId: resources.tokenSecretName, SecretString: 'not-the-token' }),
      );

      // Act: the event waits (1, 2, 4 ... minutes on AWS, compressed here) while the token is wrong.
      const answer = await eventBridge.send(
        new PutEventsCommand({
          Entries: [
            sampleEntry('AccountCreated', {
              accountId,
              owner: { firstName: 'Tess', lastName: 'Later', email: 'token-later@example.com' },
            }),
          ],
        }),
      );
      const eventId = answer.Entries?.[0]?.EventId ?? '?';
      // Until the service has refused the token at least twice, so the event was tried and waited.
      await eventually(async () => {
        const requests = await getJson<Array<{ path: string; status: number }>>(
          `${endpoints.sandbox}/_sandbox/requests`,
        );
        const refused = requests.filter(
          (request) => request.status === 401 && request.path.endsWith('/signup'),
        );
        return refused.length >= 2 ? refused : undefined;
      }, 'two refused signups');
      const whileWrong = (await outbound()).filter((event) => event.detail['causationId'] === eventId);
      const businessWhileWrong = await getBusiness(table, accountId);
      const atServiceWhileWrong = await getJson<Array<{ externalId?: string }>>(
        `${endpoints.sandbox}/_sandbox/businesses`,
      );
      const deadLettersWhileWrong = await getJson<DeadLetterView[]>(`${endpoints.events}/_local/dlq`);
      await secrets.send(
        new PutSecretValueCommand({ SecretId: resources.tokenSecretName, SecretString: SANDBOX_TOKEN }),
      );
      const provisioned = await eventually(
        async () =>
          (await outbound()).find(
            (event) =>
              event.detail['causationId'] === eventId && event['detail-type'] === 'BusinessProvisioned',
          ),
        'BusinessProvisioned once the token is right',
      );

      // Assess: nothing refused, dead-lettered or created while wrong; exactly one of each after.
      expect(whileWrong).toEqual([]);
      // At most the signup claim the first try took (it names no hostname), and nothing at the service.
      expect(businessWhileWrong?.status ?? 'none').not.toBe('ACTIVE');
      expect(businessWhileWrong?.hostname).toBeUndefined();
      expect(atServiceWhileWrong.filter((entry) => entry.externalId === accountId)).toEqual([]);
      expect(deadLettersWhileWrong).toEqual([]);
      const results = (await outbound()).filter((event) => event.detail['causationId'] === eventId);
      expect(results.map((event) => event['detail-type'])).toEqual(['BusinessProvisioned']);
      expect(await getBusiness(table, accountId)).toMatchObject({
        status: 'ACTIVE',
        hostname: provisioned.detail['hostname'],
      });
      const businesses = await getJson<Array<{ externalId?: string }>>(
        `${endpoints.sandbox}/_sandbox/businesses`,
      );
      expect(businesses.filter((entry) => entry.externalId === accountId)).toHaveLength(1);
    } finally {
      secrets.destroy();
      eventBridge.destroy();
      dynamoClient.destroy();
    }
  });
});
