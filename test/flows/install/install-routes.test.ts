import { describe, expect, it } from 'vitest';
import type { InboundDetailType } from '#functions/contracts/registry.ts';
import { getBusiness } from '#functions/store/business.ts';
import { claimSignup } from '#functions/store/signup.ts';
import {
  inboundEvent,
  type SandboxRequest,
  sqsFifoBatch,
  uniqueAccountId,
  useFlowHarness,
} from '#test/flows/support/harness.ts';
import { callsDuring, deliver, provisionedInstall } from './install-support.ts';

/**
 * What every install route shares: the install address comes only from the table (no business
 * yet → retried, never failed; a hostname in the event → refused), and a redelivered event
 * repeats no service call and no result event.
 */

const flow = useFlowHarness();

interface InstallRoute {
  functionName: string;
  detailType: InboundDetailType;
  resultType: string;
  /** A valid detail against the seeded install (location 1 / area 1, employee 2, timesheet 1001). */
  detail: (accountId: string) => Record<string, unknown>;
}

const routes: InstallRoute[] = [
  {
    functionName: 'sync-employee',
    detailType: 'EmployeeChanged',
    resultType: 'EmployeeSynced',
    detail: (accountId) => ({ accountId, employeeId: 2, customFields: { badgeNumber: 'B-9' } }),
  },
  {
    functionName: 'provision-location',
    detailType: 'LocationCreated',
    resultType: 'LocationProvisioned',
    detail: (accountId) => ({ accountId, locationRef: 'loc-dock', name: 'Dock Kiosk' }),
  },
  {
    functionName: 'save-budget',
    detailType: 'BudgetSet',
    resultType: 'BudgetSaved',
    detail: (accountId) => ({
      accountId,
      locationId: 1,
      areaId: 1,
      kind: 'WAGE',
      days: [{ date: '2026-04-01', value: 900 }],
    }),
  },
  {
    functionName: 'pay-returns',
    detailType: 'PayReturnsRequested',
    resultType: 'PayReturnsReady',
    detail: (accountId) => ({ accountId, timesheetIds: [1001] }),
  },
];

async function serviceCallCount(): Promise<number> {
  return (await flow.sandbox<SandboxRequest[]>('GET', '/_sandbox/requests')).length;
}

describe.each(routes)('$detailType on the $functionName route', (route) => {
  it('retries an event for an account without a business, calling nothing and publishing nothing', async () => {
    // Prepare
    const accountId = uniqueAccountId(`${route.functionName}-unknown`);
    const batch = sqsFifoBatch([inboundEvent(route.detailType, route.detail(accountId))], {
      receiveCount: 3,
    });
    const callsBefore = await serviceCallCount();

    // Act
    const response = await flow.invokeBatch(route.functionName, batch);

    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: batch.Records[0]?.messageId }]);
    expect(await serviceCallCount()).toBe(callsBefore);
    expect(flow.publishedFor(accountId)).toEqual([]);
    expect(await getBusiness(flow.store, accountId)).toBeUndefined();
  });

  it('retries an event for an account whose signup is still pending', async () => {
    // Prepare: claimed by an AccountCreated that has not finished yet.
    const accountId = uniqueAccountId(`${route.functionName}-pending`);
    await claimSignup(flow.store, { accountId, eventId: 'signup-in-flight', region: 'US' });
    const batch = sqsFifoBatch([inboundEvent(route.detailType, route.detail(accountId))]);
    const callsBefore = await serviceCallCount();

    // Act
    const response = await flow.invokeBatch(route.functionName, batch);

    // Assess
    expect(response.batchItemFailures).toHaveLength(1);
    expect(await serviceCallCount()).toBe(callsBefore);
    expect(flow.publishedFor(accountId)).toEqual([]);
  });

  it('refuses a hostname carried in the event, naming the field, and calls no install', async () => {
    // Prepare
    const { accountId } = await provisionedInstall(flow, `${route.functionName}-address`);
    const callsBefore = await serviceCallCount();

    // Act
    const delivery = await deliver(flow, route.functionName, route.detailType, {
      ...route.detail(accountId),
      hostname: 'attacker.example.com',
    });

    // Assess
    expect(delivery.failures).toEqual([]);
    expect(await serviceCallCount()).toBe(callsBefore);
    expect(delivery.published.map((event) => [event.detailType, event.detail['code']])).toEqual([
      ['SyncFailed', 'INVALID_DETAIL'],
    ]);
    expect(delivery.published[0]?.detail['message']).toContain('hostname');
  });

  it('makes no second service call and publishes nothing again when the same event is redelivered', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, `${route.functionName}-again`);
    const event = inboundEvent(route.detailType, route.detail(accountId));
    const first = await flow.invokeBatch(route.functionName, sqsFifoBatch([event]));
    const publishedAfterFirst = flow.publishedFor(accountId, route.resultType).length;

    // Act
    let second: Awaited<ReturnType<typeof flow.invokeBatch>> | undefined;
    const calls = await callsDuring(flow, hostname, async () => {
      second = await flow.invokeBatch(route.functionName, sqsFifoBatch([event], { receiveCount: 2 }));
    });

    // Assess
    expect(first.batchItemFailures).toEqual([]);
    expect(second?.batchItemFailures).toEqual([]);
    expect(publishedAfterFirst).toBeGreaterThan(0);
    expect(calls).toEqual([]);
    expect(flow.publishedFor(accountId, route.resultType)).toHaveLength(publishedAfterFirst);
    expect(flow.publishedFor(accountId, 'SyncFailed')).toEqual([]);
  });
});
