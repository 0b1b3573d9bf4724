import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { idempotencyPartition } from '#functions/store/table.ts';
import {
  deliver,
  installRecords,
  onlyPublished,
  provisionedInstall,
  simpleHours,
} from '#test/flows/install/install-support.ts';
import { sandboxBusinessOf, US_BILLING_ADDRESS, useFlowHarness } from '#test/flows/support/harness.ts';

/**
 * Last writer wins per thing, case by case through the real handlers (the property test
 * last-writer-wins.property.test.ts draws random orders): what an older event changes, what it is
 * told, and what is not "older".
 */

const flow = useFlowHarness();

const EMPLOYEE = 2;
const T1 = '2026-05-01T10:00:00Z';
const T2 = '2026-05-01T10:00:01.5+00:00';

function customFieldsOf(records: Record<string, Array<Record<string, unknown>>>, employeeId: number) {
  const employee = (records['Employee'] ?? []).find((candidate) => candidate['Id'] === employeeId);
  return (records['CustomFieldData'] ?? []).find((record) => record['Id'] === employee?.['CustomFieldData']);
}

/** Removes a route's idempotency records, as their expiry (or a crash before they completed) would. */
async function forgetIdempotency(detailType: string): Promise<void> {
  const { Items } = await flow.store.doc.send(
    new QueryCommand({
      TableName: flow.store.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': idempotencyPartition(detailType) },
    }),
  );
  for (const item of Items ?? []) {
    await flow.store.doc.send(
      new DeleteCommand({ TableName: flow.store.tableName, Key: { pk: item['pk'], sk: item['sk'] } }),
    );
  }
}

describe('EmployeeChanged, field by field', () => {
  it('applies the fields of an older event that no newer one set, and lists the others in one SyncSkipped', async () => {
    // Prepare: t2 sets badge and hours; t1, arriving later, sets badge, locker and hours.
    const { accountId, hostname } = await provisionedInstall(flow, 'lww-fields');
    const newer = await deliver(flow, 'sync-employee', 'EmployeeChanged', {
      accountId,
      employeeId: EMPLOYEE,
      occurredAt: T2,
      customFields: { lwwBadge: 'new' },
      regularHours: simpleHours(30),
    });

    // Act
    const older = await deliver(flow, 'sync-employee', 'EmployeeChanged', {
      accountId,
      employeeId: EMPLOYEE,
      occurredAt: T1,
      customFields: { lwwBadge: 'old', lwwLocker: 'L-7' },
      regularHours: simpleHours(20),
    });

    // Assess
    const records = await installRecords(flow, hostname);
    const synced = onlyPublished(newer, 'EmployeeSynced');
    const slots = new Map(
      [...(synced['slots'] as Array<{ apiName: string; slot: number }>)].map(({ apiName, slot }) => [
        apiName,
        slot,
      ]),
    );
    expect(customFieldsOf(records, EMPLOYEE)?.[`F${String(slots.get('lwwBadge')).padStart(2, '0')}`]).toBe(
      'new',
    );
    expect((records['AgreedHour'] ?? []).find((record) => record['Employee'] === EMPLOYEE)).toMatchObject({
      agreedHour: expect.objectContaining({ threshold: 30 }),
    });
    expect(older.published.map((event) => event.detailType).sort()).toEqual([
      'EmployeeSynced',
      'SyncSkipped',
    ]);
    const partial = older.published.find((event) => event.detailType === 'EmployeeSynced')?.detail;
    expect(partial).toMatchObject({
      parts: [
        { part: 'customFields', status: 'applied' },
        { part: 'regularHours', status: 'superseded' },
        { part: 'payRate', status: 'skipped' },
        { part: 'leaveBalances', status: 'skipped' },
      ],
      slots: [{ apiName: 'lwwLocker', slot: expect.any(Number) }],
    });
    const skipped = older.published.find((event) => event.detailType === 'SyncSkipped')?.detail;
    expect(skipped).toMatchObject({
      accountId,
      hostname,
      causationId: older.eventId,
      sourceEventId: older.eventId,
      detailType: 'EmployeeChanged',
      code: 'SUPERSEDED',
      supersededBy: newer.eventId,
      things: [
        {
          thing: 'customFields.lwwBadge',
          supersededBy: newer.eventId,
          supersededByOccurredAt: '2026-05-01T10:00:01.500000000Z',
        },
        { thing: 'regularHours', supersededBy: newer.eventId },
      ],
    });
    expect(skipped?.['message']).toContain('customFields.lwwBadge, regularHours');
  });

  it('applies a redelivery of the applied event again (same position), without calling it superseded', async () => {
    // Prepare: applied, positions written; then its idempotency record is gone, as after a crash
    // before the record completed, so the redelivery runs the use case again.
    const { accountId } = await provisionedInstall(flow, 'lww-again');
    const detail = {
      accountId,
      employeeId: EMPLOYEE,
      occurredAt: T1,
      customFields: { lwwBadge: 'same' },
      leaveBalances: [{ leaveRuleId: 1, hours: 12 }],
    };
    const first = await deliver(flow, 'sync-employee', 'EmployeeChanged', detail);
    await forgetIdempotency('EmployeeChanged');

    // Act
    const again = await deliver(flow, 'sync-employee', 'EmployeeChanged', detail, {
      id: first.eventId,
      receiveCount: 2,
    });

    // Assess
    expect(again.failures).toEqual([]);
    // `published` holds both runs' events (same causation): EmployeeSynced from each, no SyncSkipped.
    expect(again.published.map((event) => event.detailType)).toEqual(['EmployeeSynced', 'EmployeeSynced']);
    expect(again.published[1]?.detail['parts']).toEqual(again.published[0]?.detail['parts']);
  });

  it('orders two events of one instant by event id, whatever the offset they are written with', async () => {
    // Prepare: one instant, written in two offsets; the larger event id is the newer.
    const { accountId, hostname } = await provisionedInstall(flow, 'lww-tie');
    const [lowId, highId] = ['lww-tie-0000000a', 'lww-tie-0000000b'];
    await deliver(
      flow,
      'sync-employee',
      'EmployeeChanged',
      {
        accountId,
        employeeId: EMPLOYEE,
        occurredAt: '2026-05-01T12:00:00+02:00',
        customFields: { lwwBadge: 'b' },
      },
      { id: highId },
    );

    // Act
    const low = await deliver(
      flow,
      'sync-employee',
      'EmployeeChanged',
      {
        accountId,
        employeeId: EMPLOYEE,
        occurredAt: '2026-05-01T10:00:00Z',
        customFields: { lwwBadge: 'a' },
      },
      { id: lowId },
    );

    // Assess
    expect(onlyPublished(low, 'SyncSkipped')).toMatchObject({ supersededBy: highId });
    expect(Object.values(customFieldsOf(await installRecords(flow, hostname), EMPLOYEE) ?? {})).toContain(
      'b',
    );
  });
});

describe('PlanChosen', () => {
  it('leaves the plan of the newest choice: PREMIUM (t2) first, FREE (t1) after it is superseded', async () => {
    // Prepare
    const { accountId } = await provisionedInstall(flow, 'lww-plan');
    await deliver(flow, 'change-plan', 'PlanChosen', {
      accountId,
      plan: 'PREMIUM',
      billingAddress: US_BILLING_ADDRESS,
      occurredAt: T2,
    });

    // Act
    const free = await deliver(flow, 'change-plan', 'PlanChosen', {
      accountId,
      plan: 'FREE',
      occurredAt: T1,
    });

    // Assess
    expect(onlyPublished(free, 'SyncSkipped')).toMatchObject({ things: [{ thing: 'plan' }] });
    expect((await sandboxBusinessOf(flow, accountId)).map((business) => business.edition)).toEqual([
      'SUBSCRIPTION_PAID_PRO_PREMIUM',
    ]);
  });

  it('moves nothing for a refused choice: an older choice arriving after it still applies', async () => {
    // Prepare: FREE (t2) on a trial is refused (CANNOT_CANCEL_TRIAL) and applies nothing.
    const { accountId } = await provisionedInstall(flow, 'lww-refused');
    const refused = await deliver(flow, 'change-plan', 'PlanChosen', {
      accountId,
      plan: 'FREE',
      occurredAt: T2,
    });

    // Act
    const premium = await deliver(flow, 'change-plan', 'PlanChosen', {
      accountId,
      plan: 'PREMIUM',
      billingAddress: US_BILLING_ADDRESS,
      occurredAt: T1,
    });

    // Assess
    expect(onlyPublished(refused, 'SyncFailed')).toMatchObject({ code: 'CANNOT_CANCEL_TRIAL' });
    expect(onlyPublished(premium, 'PlanChanged')).toMatchObject({
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
  });
});

describe('BudgetSet and LocationCreated', () => {
  it('saves the days of an older budget that no newer one set, and lists the others', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'lww-budget');
    const budget = (occurredAt: string, days: Array<{ date: string; value: number }>) => ({
      accountId,
      locationId: 1,
      kind: 'WAGE',
      timeZone: 'UTC',
      days,
      occurredAt,
    });
    await deliver(flow, 'save-budget', 'BudgetSet', budget(T2, [{ date: '2026-03-02', value: 900 }]));

    // Act
    const older = await deliver(
      flow,
      'save-budget',
      'BudgetSet',
      budget(T1, [
        { date: '2026-03-01', value: 100 },
        { date: '2026-03-02', value: 200 },
      ]),
    );

    // Assess
    expect(older.published.find((event) => event.detailType === 'BudgetSaved')?.detail).toMatchObject({
      count: 1,
    });
    expect(older.published.find((event) => event.detailType === 'SyncSkipped')?.detail).toMatchObject({
      things: [{ thing: 'days[date=2026-03-02]' }],
    });
    const values = (await installRecords(flow, hostname))['Metric']
      ?.filter(
        (metric) => metric['location'] === 1 && metric['area'] === 0 && metric['type'] === 'budget_wage',
      )
      .map((metric) => [metric['timestamp'], metric['value']]);
    expect(values).toEqual(
      expect.arrayContaining([
        [String(Date.UTC(2026, 2, 1) / 1000), 100],
        [String(Date.UTC(2026, 2, 2) / 1000), 900],
      ]),
    );
  });

  it('creates nothing for a LocationCreated older than the one applied to its locationRef', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'lww-location');
    const location = (occurredAt: string, areas: string[]) => ({
      accountId,
      locationRef: 'loc-lww-1',
      name: 'LWW One',
      areas: areas.map((name) => ({ name })),
      occurredAt,
    });
    await deliver(flow, 'provision-location', 'LocationCreated', location(T2, ['Bar']));

    // Act
    const older = await deliver(
      flow,
      'provision-location',
      'LocationCreated',
      location(T1, ['Bar', 'Cellar']),
    );

    // Assess
    expect(onlyPublished(older, 'SyncSkipped')).toMatchObject({ things: [{ thing: 'location' }] });
    const areas = (await installRecords(flow, hostname))['Area']?.map((area) => area['OperationalUnitName']);
    expect(areas).toContain('Bar');
    expect(areas).not.toContain('Cellar');
  });
});
