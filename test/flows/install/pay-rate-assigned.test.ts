import { describe, expect, it } from 'vitest';
import { assignPayRate } from '#functions/assign-pay-rate/assign-pay-rate.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import { flowDependencies, useFlowHarness } from '#test/flows/support/harness.ts';
import {
  callsDuring,
  deliver,
  deliverWithCalls,
  type InvalidDetailCase,
  installRecords,
  itAnswersInvalidDetails,
  onlyPublished,
  provisionedInstall,
  useCaseInput,
} from './install-support.ts';

const BULK = 'POST /api/management/v2/employees:bulk';
const library = (employeeId: number) => `POST /api/v1/supervise/employee/${employeeId}/setAwardFromLibrary`;

const flow = useFlowHarness();

const RATE = { awardCode: 'RetailAssoc2024x', countryCode: 'US', overrides: [{ hourlyRate: 23.5 }] };

async function activeAgreements(hostname: string) {
  const records = await installRecords(flow, hostname);
  return (records['EmployeeAgreement'] ?? []).filter((agreement) => agreement['Active'] === true);
}

function crashingAt(dependencies: Dependencies, crashPoint: string): Dependencies {
  return {
    ...dependencies,
    interruptions: {
      at(point) {
        if (point === crashPoint) throw new Error('the function died here');
      },
    },
  };
}

describe('PayRateAssigned', () => {
  it('makes one library assignment and one bulk call for 5 employees, each reported applied', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'bulk-five');

    // Act
    const { delivery, calls } = await deliverWithCalls(flow, hostname, 'assign-pay-rate', 'PayRateAssigned', {
      accountId,
      employeeIds: [1, 2, 3, 4, 5],
      ...RATE,
    });

    // Assess
    expect(calls.filter((call) => call.includes('setAwardFromLibrary'))).toEqual([library(1)]);
    expect(calls.filter((call) => call === BULK)).toHaveLength(1);
    const assigned = onlyPublished(delivery, 'PayRatesAssigned');
    expect(assigned).toMatchObject({ hostname, awardCode: 'RetailAssoc2024x', applied: 5, failed: 0 });
    const employees = assigned['employees'] as Array<Record<string, unknown>>;
    expect(
      employees.map((employee) => [employee['employeeId'], employee['status'], employee['via']]),
    ).toEqual([
      [1, 'applied', 'library'],
      [2, 'applied', 'bulk'],
      [3, 'applied', 'bulk'],
      [4, 'applied', 'bulk'],
      [5, 'applied', 'bulk'],
    ]);
    const active = await activeAgreements(hostname);
    for (const employee of employees) {
      expect(active).toContainEqual(
        expect.objectContaining({
          Id: employee['agreementId'],
          EmployeeId: employee['employeeId'],
          BaseRate: 23.5,
        }),
      );
    }
  });

  it('reports an employee the bulk call could not assign as failed, with the reason, and the others applied', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'bulk-partial');

    // Act
    const delivery = await deliver(flow, 'assign-pay-rate', 'PayRateAssigned', {
      accountId,
      employeeIds: [2, 9999, 4],
      ...RATE,
    });

    // Assess
    const assigned = onlyPublished(delivery, 'PayRatesAssigned');
    expect(assigned).toMatchObject({ applied: 2, failed: 1 });
    expect(assigned['employees']).toEqual([
      expect.objectContaining({ employeeId: 2, status: 'applied', via: 'library' }),
      { employeeId: 9999, status: 'failed', code: 'NOT_FOUND', reason: expect.stringContaining('9999') },
      expect.objectContaining({ employeeId: 4, status: 'applied', via: 'bulk' }),
    ]);
    expect(await activeAgreements(hostname)).toContainEqual(
      expect.objectContaining({ EmployeeId: 4, BaseRate: 23.5 }),
    );
  });

  it('answers a run of the same event again from its records: no call, the same outcomes', async () => {
    // Prepare: the first run succeeded but its idempotency record is gone.
    const { accountId, hostname } = await provisionedInstall(flow, 'bulk-again');
    const dependencies = await flowDependencies();
    const input = useCaseInput('PayRateAssigned', { accountId, employeeIds: [3, 4, 5], ...RATE });
    const [first] = await assignPayRate(input, dependencies);
    const agreementsBefore = (await installRecords(flow, hostname))['EmployeeAgreement']?.length;

    // Act
    let again: Awaited<ReturnType<typeof assignPayRate>> = [];
    const calls = await callsDuring(flow, hostname, async () => {
      again = await assignPayRate(input, dependencies);
    });

    // Assess
    expect(calls).toEqual([]);
    expect(again[0]?.detail).toEqual(first?.detail);
    expect((await installRecords(flow, hostname))['EmployeeAgreement']).toHaveLength(agreementsBefore ?? -1);
  });

  it('reconciles a bulk call answered but not recorded from the agreements, without a second bulk call', async () => {
    // Prepare: the first run dies after the bulk call's answer, before recording it.
    const { accountId, hostname } = await provisionedInstall(flow, 'bulk-crash');
    const dependencies = await flowDependencies();
    const input = useCaseInput('PayRateAssigned', { accountId, employeeIds: [1, 2, 3], ...RATE });
    await expect(
      assignPayRate(input, crashingAt(dependencies, 'assign-pay-rate.after-bulk')),
    ).rejects.toThrow('the function died here');

    // Act
    let redelivered: Awaited<ReturnType<typeof assignPayRate>> = [];
    const calls = await callsDuring(flow, hostname, async () => {
      redelivered = await assignPayRate(input, dependencies);
    });

    // Assess: one read of the agreements, no library call, no bulk call.
    expect(calls).toEqual(['POST /api/v1/resource/EmployeeAgreement/QUERY']);
    expect(redelivered[0]?.detail).toMatchObject({ applied: 3, failed: 0 });
    const active = await activeAgreements(hostname);
    for (const employeeId of [1, 2, 3]) {
      expect(active.filter((agreement) => agreement['EmployeeId'] === employeeId)).toEqual([
        expect.objectContaining({ BaseRate: 23.5 }),
      ]);
    }
  });

  it('leaves out an employee whose pay rate a newer event set, naming it in SyncSkipped', async () => {
    // Prepare: employee 2's pay rate set by an event that happened later.
    const { accountId } = await provisionedInstall(flow, 'bulk-order');
    await deliver(flow, 'sync-employee', 'EmployeeChanged', {
      accountId,
      employeeId: 2,
      occurredAt: '2026-03-02T10:00:00Z',
      payRate: { awardCode: 'RetailAssoc2024x', countryCode: 'US', hourlyRate: 30 },
    });

    // Act
    const delivery = await deliver(flow, 'assign-pay-rate', 'PayRateAssigned', {
      accountId,
      occurredAt: '2026-03-02T09:00:00Z',
      employeeIds: [2, 3],
      ...RATE,
    });

    // Assess
    const assigned = delivery.published.find((event) => event.detailType === 'PayRatesAssigned');
    expect(assigned?.detail['employees']).toEqual([
      expect.objectContaining({ employeeId: 3, status: 'applied', via: 'library' }),
    ]);
    const skipped = delivery.published.find((event) => event.detailType === 'SyncSkipped');
    expect(skipped?.detail['things']).toEqual([expect.objectContaining({ thing: 'employeeIds[id=2]' })]);
  });

  it('fails the event with the service refusal when the first employee cannot get the library assignment', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'bulk-first');

    // Act
    const { delivery, calls } = await deliverWithCalls(flow, hostname, 'assign-pay-rate', 'PayRateAssigned', {
      accountId,
      employeeIds: [9999, 2],
      ...RATE,
    });

    // Assess
    expect(onlyPublished(delivery, 'SyncFailed')).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('employee 9999'),
    });
    expect(calls).not.toContain(BULK);
  });
});

describe('EmployeeChanged with several overrides', () => {
  const severalOverrides = {
    awardCode: 'RetailAssoc2024x',
    countryCode: 'US',
    overrides: [{ hourlyRate: 24 }, { payRuleId: 'pr_us_retail_base', hourlyRate: 31 }],
  };

  it('sends every override in one call; the spec reading (base pay rule only) refuses the other rule', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'overrides-spec');

    // Act
    const { delivery, calls } = await deliverWithCalls(flow, hostname, 'sync-employee', 'EmployeeChanged', {
      accountId,
      employeeId: 2,
      payRate: severalOverrides,
    });

    // Assess: the second entry reached the service, which refuses it as the spec describes the Id.
    expect(calls.filter((call) => call.includes('setAwardFromLibrary'))).toEqual([library(2)]);
    expect(onlyPublished(delivery, 'SyncFailed')).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('arrOverridePayRules[1].Id'),
    });
  });

  it("sets the base pay rule's rate and another pay rule's rate where the service takes other rules", async () => {
    // Prepare: the sandbox's lenient reading of arrOverridePayRules (any pay rule of the install).
    const { accountId, hostname } = await provisionedInstall(flow, 'overrides');
    await flow.sandbox('POST', '/_sandbox/mode', { lenient: ['other-pay-rule-overrides'] });

    // Act
    let delivery: Awaited<ReturnType<typeof deliver>>;
    try {
      delivery = await deliver(flow, 'sync-employee', 'EmployeeChanged', {
        accountId,
        employeeId: 2,
        payRate: severalOverrides,
      });
    } finally {
      await flow.sandbox('POST', '/_sandbox/mode', { lenient: [] });
    }

    // Assess
    const agreementId = onlyPublished(delivery, 'EmployeeSynced')['agreementId'];
    expect(await activeAgreements(hostname)).toContainEqual(
      expect.objectContaining({
        Id: agreementId,
        BaseRate: 24,
        OverridePayRules: [{ Id: 'pr_us_retail_base', HourlyRate: 31 }],
      }),
    );
  });

  it('refuses the base pay rule named twice before calling setAwardFromLibrary', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'overrides-twice');

    // Act
    const { delivery, calls } = await deliverWithCalls(flow, hostname, 'sync-employee', 'EmployeeChanged', {
      accountId,
      employeeId: 2,
      payRate: {
        awardCode: 'RetailAssoc2024x',
        countryCode: 'US',
        overrides: [{ hourlyRate: 24 }, { payRuleId: 'lib_RetailAssoc2024x_base', hourlyRate: 31 }],
      },
    });

    // Assess
    expect(onlyPublished(delivery, 'SyncFailed')).toMatchObject({ code: 'PAY_RULE_OVERRIDDEN_TWICE' });
    expect(calls).not.toContain(library(2));
  });
});

describe('invalid PayRateAssigned', () => {
  const cases: InvalidDetailCase[] = [
    ['no employee', { employeeIds: [] }, 'employeeIds'],
    ['201 employees', { employeeIds: Array.from({ length: 201 }, (_, index) => index + 1) }, 'employeeIds'],
    ['an employee twice', { employeeIds: [2, 3, 2] }, 'employeeIds[2]'],
    ['two overrides without payRuleId', { overrides: [{ hourlyRate: 20 }, { hourlyRate: 21 }] }, 'overrides'],
    ['no override', { overrides: [] }, 'overrides'],
  ];
  itAnswersInvalidDetails(
    flow,
    {
      functionName: 'assign-pay-rate',
      detailType: 'PayRateAssigned',
      accountLabel: 'bulk-invalid',
      detail: (accountId, overrides) => ({ accountId, employeeIds: [2, 3], ...RATE, ...overrides }),
    },
    cases,
  );
});
