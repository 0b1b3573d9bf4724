import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAccount } from '#functions/contracts/samples.ts';
import type { OutboundEvent } from '#local/runtime.ts';
import type { RunningCommand } from './child-process.ts';
import { eventually, getJson, type ServeEndpoints, sampleEntry, startServe } from './samples.ts';

/**
 * Last writer wins, black box: `npm start -- --serve` in its own process, events published with
 * the real EventBridge client, outcomes read from `/_local/outbound` and the sandbox's control
 * API. The newer event is published first and its result awaited before the older one is
 * published, so whatever order the runtime delivers each in, the older one arrives after the newer
 * one was applied.
 */

const T1 = '2026-06-01T09:00:00.100+02:00';
const T2 = '2026-06-01T09:00:00.200+02:00';
const EMPLOYEE = demoAccount.employeeId;

describe('npm start -- --serve: the newest event per thing wins', () => {
  let serve: RunningCommand;
  let endpoints: ServeEndpoints;
  let eventBridge: EventBridgeClient;

  const outbound = () => getJson<OutboundEvent[]>(`${endpoints.events}/_local/outbound`);
  const publish = async (entry: PutEventsRequestEntry): Promise<string> => {
    const answer = await eventBridge.send(new PutEventsCommand({ Entries: [entry] }));
    const eventId = answer.Entries?.[0]?.EventId;
    if (!eventId) throw new Error(`PutEvents refused the entry: ${JSON.stringify(answer.Entries)}`);
    return eventId;
  };
  /** The one event of `detailType` caused by `eventId` (its causationId), once it is published. */
  const resultOf = (eventId: string, detailType: string) =>
    eventually(
      async () =>
        (await outbound()).find(
          (event) => event['detail-type'] === detailType && event.detail['causationId'] === eventId,
        ),
      `${detailType} for ${eventId}\n${serve.output().slice(-2000)}`,
    );
  const causedBy = async (eventId: string) =>
    (await outbound()).filter((event) => event.detail['causationId'] === eventId);

  beforeAll(async () => {
    ({ serve, endpoints } = await startServe());
    eventBridge = new EventBridgeClient({
      region: 'us-east-1',
      endpoint: endpoints.events,
      credentials: { accessKeyId: 'AKIATESTLWW', secretAccessKey: 'test' },
    });
    await resultOf(await publish(sampleEntry('AccountCreated')), 'BusinessProvisioned');
  }, 120_000);

  afterAll(async () => {
    eventBridge?.destroy();
    await serve?.killGroup();
  });

  it("EmployeeChanged: t2 published before t1 leaves t2's values, and t1 gets one SyncSkipped SUPERSEDED", async () => {
    // Prepare
    const employee = (occurredAt: string, badge: string, threshold: number) =>
      sampleEntry('EmployeeChanged', {
        occurredAt,
        customFields: { badgeNumber: badge },
        regularHours: {
          threshold,
          applyThreshold: false,
          workPeriod: {
            cycle: 'WEEKLY',
            dayOfWeek: 'MONDAY',
            startDate: '2026-06-01T00:00:00Z',
            startCycleDate: '2026-06-01T00:00:00Z',
            endCycleDate: '2026-06-08T00:00:00Z',
          },
          workingDaysPerCycle: 5,
          details: { weeks: [] },
        },
        payRate: undefined,
        leaveBalances: undefined,
      });
    const newer = await publish(employee(T2, 'B-T2', 32));
    const synced = await resultOf(newer, 'EmployeeSynced');

    // Act
    const older = await publish(employee(T1, 'B-T1', 24));
    const skipped = await resultOf(older, 'SyncSkipped');

    // Assess
    expect(skipped.detail).toMatchObject({
      accountId: demoAccount.accountId,
      sourceEventId: older,
      detailType: 'EmployeeChanged',
      code: 'SUPERSEDED',
      supersededBy: newer,
      things: [
        { thing: 'customFields.badgeNumber', supersededBy: newer },
        { thing: 'regularHours', supersededBy: newer },
      ],
    });
    expect((await causedBy(older)).map((event) => event['detail-type'])).toEqual(['SyncSkipped']);
    const install = await getJson<Record<string, Array<Record<string, unknown>>>>(
      `${endpoints.sandbox}/_sandbox/installs/${demoAccount.hostname}`,
    );
    const slot = (synced.detail['slots'] as Array<{ apiName: string; slot: number }>).find(
      (entry) => entry.apiName === 'badgeNumber',
    )?.slot;
    const record = (install['CustomFieldData'] ?? []).find(
      (candidate) =>
        candidate['Id'] ===
        (install['Employee'] ?? []).find((employeeRecord) => employeeRecord['Id'] === EMPLOYEE)?.[
          'CustomFieldData'
        ],
    );
    expect(record?.[`F${String(slot).padStart(2, '0')}`]).toBe('B-T2');
    expect((install['AgreedHour'] ?? []).find((hours) => hours['Employee'] === EMPLOYEE)).toMatchObject({
      agreedHour: expect.objectContaining({ threshold: 32 }),
    });
  });

  it('PlanChosen: PREMIUM (t2) published before FREE (t1) leaves the business PREMIUM', async () => {
    // Prepare
    const premium = await publish(sampleEntry('PlanChosen', { occurredAt: T2 }));
    await resultOf(premium, 'PlanChanged');

    // Act
    const free = await publish(
      sampleEntry('PlanChosen', { plan: 'FREE', billingAddress: undefined, occurredAt: T1 }),
    );
    const skipped = await resultOf(free, 'SyncSkipped');

    // Assess
    expect(skipped.detail).toMatchObject({
      code: 'SUPERSEDED',
      supersededBy: premium,
      things: [{ thing: 'plan' }],
    });
    const businesses = await getJson<Array<{ externalId: string; edition: string }>>(
      `${endpoints.sandbox}/_sandbox/businesses`,
    );
    expect(businesses.find((business) => business.externalId === demoAccount.accountId)?.edition).toBe(
      'SUBSCRIPTION_PAID_PRO_PREMIUM',
    );
    expect((await causedBy(free)).map((event) => event['detail-type'])).toEqual(['SyncSkipped']);
    expect((await outbound()).filter((event) => event['detail-type'] === 'SyncFailed')).toEqual([]);
  });
});
