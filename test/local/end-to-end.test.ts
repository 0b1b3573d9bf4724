import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundContracts } from '#functions/contracts/registry.ts';
import { demoAccount } from '#functions/contracts/samples.ts';
import { getAccountByHostname, getBusiness } from '#functions/store/business.ts';
import { createStore } from '#functions/store/store.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { runScenario, type ScenarioReport, TRIAL_ACCOUNT } from '#local/scenario.ts';

/**
 * The connector end to end on one machine, run from its synthesized template: every inbound
 * detail-type is published with the real EventBridge client (through the demo scenario) and goes
 * rule → intake queue → pipe → FIFO queue → function; then the outbound events, the sandbox's
 * state and the connector's table are checked, and two poison events show the failure paths.
 */

/** The demo business's hostname: its number is its place in the order the sandbox saw the signups. */
const HARBOR_CAFE_HOSTNAME = /^harborcafe-\d+\.us\.sandbox\.test$/;

describe('local runtime end to end with the real handlers', () => {
  let runtime: LocalRuntime;
  let eventBridge: EventBridgeClient;
  let report: ScenarioReport;

  beforeAll(async () => {
    // Visibility timeouts scaled to a few ms: a record that exhausts its 5 receives reaches the DLQ quickly.
    runtime = await startLocalRuntime({ timeScale: 1 / 10_000, logLevel: 'SILENT' });
    eventBridge = new EventBridgeClient({
      region: runtime.region,
      endpoint: runtime.eventsEndpoint,
      credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' },
    });
    report = await runScenario(runtime);
  }, 120_000);

  afterAll(async () => {
    eventBridge?.destroy();
    await runtime?.close();
  });

  it('replays every inbound detail-type without a failure', () => {
    // Assess
    expect(report.failures).toEqual([]);
    expect(Object.keys(report.inboundCounts).sort()).toEqual(Object.keys(inboundContracts).sort());
  });

  it('publishes the result event of every step, including the trial watch announcements', () => {
    // Assess
    expect(report.outboundCounts).toMatchObject({
      BusinessProvisioned: 2,
      PlanChanged: 1,
      SubscriptionStatus: 1,
      EmployeeSynced: 1,
      LocationProvisioned: 1,
      BudgetSaved: 1,
      PayReturnsReady: demoAccount.timesheetIds.length,
    });
    const announcements = runtime
      .outbound()
      .filter((event) => event.detail['accountId'] === TRIAL_ACCOUNT.accountId);
    expect(announcements.map((event) => event['detail-type'])).toEqual(
      expect.arrayContaining(['TrialExpiring', 'TrialEnded', 'BusinessGone']),
    );
    expect(runtime.outbound().some((event) => event['detail-type'] === 'SyncFailed')).toBe(false);
  });

  it('leaves the sandbox with the converted business, the lapsed trial deleted by the service', async () => {
    // Act
    const businesses = (await (await fetch(`${runtime.sandboxUrl}/_sandbox/businesses`)).json()) as Array<{
      externalId: string;
      hostname: string;
      edition: string;
    }>;
    const byAccount = new Map(businesses.map((business) => [business.externalId, business]));
    const hostname = byAccount.get(demoAccount.accountId)?.hostname;
    const install = await (await fetch(`${runtime.sandboxUrl}/_sandbox/installs/${hostname}`)).text();

    // Assess: the sandbox numbers hostnames in signup order, and the scenario's two AccountCreated
    // reach it in either order (rule deliveries and standard queues keep none, local/aws/delivery-model.ts).
    expect(byAccount.get(demoAccount.accountId)).toMatchObject({
      hostname: expect.stringMatching(HARBOR_CAFE_HOSTNAME),
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
    // The scenario's last step: the service deleted the lapsed free business, the drift watch noticed.
    expect(byAccount.has(TRIAL_ACCOUNT.accountId)).toBe(false);
    expect(install).toContain('Harbor Cafe Waterfront');
    expect(install).toContain('Front of House');
  });

  it('records the business and its hostname mapping in the table', async () => {
    // Prepare
    const client = new DynamoDBClient({
      region: runtime.region,
      endpoint: runtime.dynamoEndpoint,
      credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' },
    });
    const store = createStore({ tableName: runtime.tableName, client });

    // Act
    const business = await getBusiness(store, demoAccount.accountId);
    const owner = await getAccountByHostname(store, business?.hostname ?? '');
    client.destroy();

    // Assess
    expect(business).toMatchObject({
      accountId: demoAccount.accountId,
      status: 'ACTIVE',
      hostname: expect.stringMatching(HARBOR_CAFE_HOSTNAME),
    });
    expect(owner).toBe(demoAccount.accountId);
  });

  it('answers an invalid event with SyncFailed and does not retry it', async () => {
    // Act
    const answer = await eventBridge.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: runtime.busName,
            Source: runtime.inboundSource,
            DetailType: 'PlanChosen',
            Detail: JSON.stringify({ accountId: demoAccount.accountId, plan: 'PLATINUM' }),
          },
        ],
      }),
    );
    await runtime.waitForIdle();

    // Assess
    const eventId = answer.Entries?.[0]?.EventId ?? '?';
    const failed = runtime
      .outbound()
      .find((event) => event['detail-type'] === 'SyncFailed' && event.detail['sourceEventId'] === eventId);
    expect(failed?.detail).toMatchObject({
      accountId: demoAccount.accountId,
      detailType: 'PlanChosen',
      causationId: eventId,
    });
    expect(runtime.dlq().some((entry) => entry.body.includes(eventId))).toBe(false);
  });

  it('gives up on an event that keeps failing after its attempts: one SyncFailed RETRIES_EXHAUSTED, kept in the DLQ with the last code', async () => {
    // Prepare: an account the connector never provisioned, so the employee sync cannot run yet.
    const ghost = 'acct-never-provisioned';

    // Act
    const answer = await eventBridge.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: runtime.busName,
            Source: runtime.inboundSource,
            DetailType: 'EmployeeChanged',
            Detail: JSON.stringify({
              accountId: ghost,
              employeeId: demoAccount.employeeId,
              customFields: { badgeNumber: 'B-1' },
            }),
          },
        ],
      }),
    );
    await runtime.waitForIdle();

    // Assess
    const eventId = answer.Entries?.[0]?.EventId ?? '?';
    const parked = runtime.dlq().find((entry) => entry.body.includes(eventId));
    const deadLetterQueue = runtime
      .resources()
      .queues.find((queue) => queue.route === 'EmployeeChanged' && queue.deadLettersOf === 'route');
    expect(parked).toMatchObject({
      queue: deadLetterQueue?.name,
      attempts: 5,
      lastErrorCode: 'BUSINESS_NOT_PROVISIONED',
    });
    const told = runtime.outbound().filter((event) => event.detail['sourceEventId'] === eventId);
    expect(told.map((event) => [event['detail-type'], event.detail['code']])).toEqual([
      ['SyncFailed', 'RETRIES_EXHAUSTED'],
    ]);
    expect(JSON.parse(parked?.body ?? '{}')).toMatchObject({
      event: { id: eventId, 'detail-type': 'EmployeeChanged', detail: { accountId: ghost } },
    });
    const dlqOverHttp = (await (await fetch(`${runtime.eventsEndpoint}/_local/dlq`)).json()) as unknown[];
    expect(dlqOverHttp).toContainEqual(parked);
  });
});
