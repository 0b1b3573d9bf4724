import { describe, expect, it } from 'vitest';
import { useFlowHarness } from '#test/flows/support/harness.ts';
import {
  deliver,
  deliverWithCalls,
  itAnswersInvalidDetails,
  onlyPublished,
  provisionedInstall,
} from './install-support.ts';

const flow = useFlowHarness();

function stage<T = Record<string, unknown>>(
  hostname: string,
  resource: string,
  records: unknown,
): Promise<T> {
  return flow.sandbox<T>('POST', `/_sandbox/installs/${hostname}/records/${resource}`, records);
}

function agreement(Id: number, EmployeeId: number, Contract: number | null, BaseRate: number | null) {
  return { Id, EmployeeId, Contract, BaseRate, Active: true, StartDate: '2026-02-02', EndDate: null };
}

// Seeded agreements (one per employee, id = employee id): 1, 3, 5 hold a BaseRate (22.5, 21,
// 19.75) on US installs; 2 and 4 none, so they resolve through contract 1 (pr_us_retail_base,
// 18.5) and contract 2 (pr_us_hosp_base, 17.25).
describe('PayRatesRequested', () => {
  it("reports every agreement of a US install by the spec's rule, reading each contract and pay rule once", async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'rates-all');

    // Act
    const { delivery, calls } = await deliverWithCalls(flow, hostname, 'pay-rates', 'PayRatesRequested', {
      accountId,
    });

    // Assess
    const reported = onlyPublished(delivery, 'PayRatesReported');
    expect(reported).toMatchObject({
      accountId,
      hostname,
      region: 'US',
      baseRateApplies: true,
      employeesWithoutAgreements: [],
      part: 1,
      parts: 1,
    });
    expect(reported['rates']).toEqual([
      expect.objectContaining({ agreementId: 1, employeeId: 1, origin: 'BASE_RATE', hourlyRate: 22.5 }),
      expect.objectContaining({
        agreementId: 2,
        employeeId: 2,
        origin: 'CONTRACT',
        hourlyRate: 18.5,
        contractId: 1,
        payRuleId: 'pr_us_retail_base',
      }),
      expect.objectContaining({ agreementId: 3, origin: 'BASE_RATE', hourlyRate: 21 }),
      expect.objectContaining({
        agreementId: 4,
        origin: 'CONTRACT',
        hourlyRate: 17.25,
        contractId: 2,
        payRuleId: 'pr_us_hosp_base',
      }),
      expect.objectContaining({ agreementId: 5, origin: 'BASE_RATE', hourlyRate: 19.75 }),
    ]);
    // One QUERY of the agreements, then contracts 1 and 2 and their base pay rules, once each.
    expect([...calls].sort()).toEqual([
      'POST /api/v1/resource/EmployeeAgreement/QUERY',
      'POST /api/v1/resource/EmploymentContract/QUERY',
      'POST /api/v1/resource/EmploymentContract/QUERY',
      'POST /api/v1/resource/PayRule/QUERY',
      'POST /api/v1/resource/PayRule/QUERY',
    ]);
  });

  it('says per agreement where the data ends, and which employees have none', async () => {
    // Prepare: agreements whose resolution stops at each step the spec does not cover.
    const { accountId, hostname } = await provisionedInstall(flow, 'rates-unresolved');
    await stage(hostname, 'EmploymentContract', [
      { Id: 50, Name: 'No base rule' },
      { Id: 51, Name: 'Missing rule', BasePayRule: 'pr_gone' },
      { Id: 52, Name: 'Salaried', BasePayRule: 'pr_salaried' },
    ]);
    await stage(hostname, 'PayRule', { Id: 'pr_salaried', PayTitle: 'Salaried', HourlyRate: null });
    await stage(hostname, 'EmployeeAgreement', [
      agreement(60, 6, null, null),
      agreement(61, 6, 99, null),
      agreement(62, 6, 50, null),
      agreement(63, 6, 51, null),
      agreement(64, 6, 52, null),
    ]);

    // Act
    const delivery = await deliver(flow, 'pay-rates', 'PayRatesRequested', {
      accountId,
      employeeIds: [6, 7, 2],
    });

    // Assess
    const reported = onlyPublished(delivery, 'PayRatesReported');
    expect(reported['employeesWithoutAgreements']).toEqual([7]);
    const rates = reported['rates'] as Array<Record<string, unknown>>;
    expect(rates.map((rate) => [rate['agreementId'], rate['origin'], rate['reasonCode'] ?? null])).toEqual([
      [60, 'UNRESOLVED', 'NO_CONTRACT'],
      [61, 'UNRESOLVED', 'CONTRACT_NOT_FOUND'],
      [62, 'UNRESOLVED', 'NO_BASE_PAY_RULE'],
      [63, 'UNRESOLVED', 'PAY_RULE_NOT_FOUND'],
      [64, 'UNRESOLVED', 'NO_HOURLY_RATE'],
      [2, 'CONTRACT', null],
    ]);
    expect(rates.slice(0, 5).every((rate) => rate['hourlyRate'] === null)).toBe(true);
    expect(rates[1]).toMatchObject({
      contractId: 99,
      reason: expect.stringContaining('employment contract 99'),
    });
    expect(rates[3]).toMatchObject({ contractId: 51, payRuleId: 'pr_gone' });
  });

  it('does not apply a BaseRate outside the US: every rate comes through the contract', async () => {
    // Prepare: a UK install holding an agreement with a BaseRate (the rule is for US installs).
    const { accountId, hostname } = await provisionedInstall(flow, 'rates-uk', { region: 'UK' });
    await stage(hostname, 'EmployeeAgreement', agreement(70, 8, 1, 30));

    // Act
    const delivery = await deliver(flow, 'pay-rates', 'PayRatesRequested', { accountId, employeeIds: [8] });

    // Assess
    expect(onlyPublished(delivery, 'PayRatesReported')).toMatchObject({
      region: 'UK',
      baseRateApplies: false,
      rates: [{ agreementId: 70, origin: 'CONTRACT', hourlyRate: 18.5, contractId: 1 }],
    });
  });

  it('splits a long answer over parts that each fit one EventBridge entry, in order', async () => {
    // Prepare: 100 employees with 25 agreements each holding a BaseRate (no lookups): 2500
    // entries, more than one event holds, and each employee's QUERY well under any answer limit.
    const { accountId, hostname } = await provisionedInstall(flow, 'rates-parts');
    const employeeIds = Array.from({ length: 100 }, (_, index) => 100 + index);
    const staged = employeeIds.flatMap((employeeId, employee) =>
      Array.from({ length: 25 }, (_, index) =>
        agreement(1000 + employee * 25 + index, employeeId, 1, 20 + index / 100),
      ),
    );
    await stage(hostname, 'EmployeeAgreement', staged);

    // Act
    const delivery = await deliver(flow, 'pay-rates', 'PayRatesRequested', { accountId, employeeIds });

    // Assess
    expect(delivery.failures).toEqual([]);
    const parts = delivery.published.filter((event) => event.detailType === 'PayRatesReported');
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.map((event) => [event.detail['part'], event.detail['parts']])).toEqual(
      parts.map((_, index) => [index + 1, parts.length]),
    );
    for (const event of parts) {
      // EventBridge counts Source, DetailType, Detail and 14 bytes for Time against 256 KB.
      const entryBytes = Buffer.byteLength(
        `${event.source}${event.detailType}${JSON.stringify(event.detail)}`,
      );
      expect(entryBytes + 14).toBeLessThanOrEqual(256 * 1024);
      expect(event.detail).toMatchObject({ hostname, region: 'US', baseRateApplies: true });
    }
    // One answer: every part carries the same answerId and the request's event id as causation.
    expect(new Set(parts.map((event) => event.detail['answerId'])).size).toBe(1);
    expect(new Set(parts.map((event) => event.detail['causationId']))).toEqual(new Set([delivery.eventId]));
    const ids = parts.flatMap((event) =>
      (event.detail['rates'] as Array<{ agreementId: number }>).map((rate) => rate.agreementId),
    );
    expect(ids).toEqual(staged.map((entry) => entry.Id));
  });

  itAnswersInvalidDetails(
    flow,
    {
      functionName: 'pay-rates',
      detailType: 'PayRatesRequested',
      accountLabel: 'rates-invalid',
      detail: (accountId, overrides) => ({ accountId, ...overrides }),
    },
    [
      ['an empty employeeIds', { employeeIds: [] }, 'employeeIds'],
      ['an employee listed twice', { employeeIds: [2, 2] }, 'employeeIds'],
      [
        'more than 100 employees',
        { employeeIds: Array.from({ length: 101 }, (_, i) => i + 1) },
        'employeeIds',
      ],
    ],
  );
});
