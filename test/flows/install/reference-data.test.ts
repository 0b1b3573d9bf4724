import { describe, expect, it } from 'vitest';
import { inboundSamples } from '#functions/commons/contracts/samples.ts';
import { getCachedReferenceList, putCachedReferenceList } from '#functions/commons/store/reference-cache.ts';
import { useFlowHarness } from '#test/flows/support/harness.ts';
import {
  callsDuring,
  deliver,
  deliverWithCalls,
  itAnswersInvalidDetails,
  onlyPublished,
  provisionedInstall,
} from './install-support.ts';

const flow = useFlowHarness();

const QUERY = (resource: string) => `POST /api/v1/resource/${resource}/QUERY`;

describe('ReferenceDataRequested', () => {
  it('answers every kind asked for, each as the install holds it', async () => {
    // Prepare: employee 2 given agreed hours first.
    const { accountId, hostname } = await provisionedInstall(flow, 'reference-all');
    const synced = await deliver(flow, 'sync-employee', 'EmployeeChanged', {
      accountId,
      employeeId: 2,
      regularHours: inboundSamples.EmployeeChanged.regularHours,
    });
    expect(onlyPublished(synced, 'EmployeeSynced')).toMatchObject({ employeeId: 2 });

    // Act
    const { delivery, calls } = await deliverWithCalls(
      flow,
      hostname,
      'reference-data',
      'ReferenceDataRequested',
      {
        accountId,
        kinds: ['COUNTRIES', 'STATES', 'LEAVE_RULES', 'AWARDS', 'AGREED_HOURS'],
        countryCode: 'us',
        employeeId: 2,
      },
    );

    // Assess
    const answer = onlyPublished(delivery, 'ReferenceData');
    expect(answer).toMatchObject({ accountId, hostname, countryCode: 'us', part: 1, parts: 1 });
    expect(answer['countries']).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 1, code: 'US', name: 'United States' })]),
    );
    const states = answer['states'] as Array<{ countryId: number; code: string }>;
    expect(states.length).toBeGreaterThan(0);
    expect(states.every((state) => state.countryId === 1)).toBe(true);
    expect(states).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'CA', name: 'California' })]),
    );
    expect(answer['leaveRules']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: 1,
          name: 'Annual Leave',
          fields: expect.objectContaining({ PaidLeave: true }),
        }),
      ]),
    );
    const awards = answer['awards'] as Array<{ awardCode: string; library: string }>;
    expect(awards).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ awardCode: 'MA000004', library: 'OLD' }),
        expect.objectContaining({ awardCode: 'RetailAssoc2024x', library: 'NEW' }),
      ]),
    );
    expect(answer['agreedHours']).toMatchObject({
      employeeId: 2,
      agreedHour: expect.objectContaining({ threshold: 38 }),
    });
    expect(answer['asOf']).toEqual({ countries: expect.any(String), states: expect.any(String) });
    expect([...calls].sort()).toEqual(
      [
        QUERY('Country'),
        QUERY('State'),
        QUERY('LeaveRule'),
        'GET /api/v1/payroll/listAwardsLibrary',
        'GET /api/management/v2/agreed_hour/2',
      ].sort(),
    );
  });

  it('serves countries and states from the table within the refresh age: a second request calls nothing', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'reference-cache');
    const request = { accountId, kinds: ['COUNTRIES', 'STATES'] };
    const first = await deliverWithCalls(flow, hostname, 'reference-data', 'ReferenceDataRequested', request);

    // Act
    const second = await deliverWithCalls(
      flow,
      hostname,
      'reference-data',
      'ReferenceDataRequested',
      request,
    );

    // Assess
    expect([...first.calls].sort()).toEqual([QUERY('Country'), QUERY('State')]);
    expect(second.calls).toEqual([]);
    const [firstAnswer, secondAnswer] = [first.delivery, second.delivery].map((delivery) =>
      onlyPublished(delivery, 'ReferenceData'),
    );
    expect(secondAnswer?.['countries']).toEqual(firstAnswer?.['countries']);
    expect(secondAnswer?.['states']).toEqual(firstAnswer?.['states']);
    expect(secondAnswer?.['asOf']).toEqual(firstAnswer?.['asOf']);
  });

  it('reads the service again once the cached list is older than REFERENCE_CACHE_MAX_AGE_SECONDS', async () => {
    // Prepare: the countries cached 8 days ago (the default refresh age is 7 days).
    const { accountId, hostname } = await provisionedInstall(flow, 'reference-age');
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    await putCachedReferenceList(
      flow.store,
      hostname,
      'COUNTRIES',
      { entries: [{ id: 99, code: 'ZZ', name: 'Stale Land' }], fetchedAt: eightDaysAgo },
      { maxAgeSeconds: 30 * 24 * 3600 },
    );

    // Act
    const { delivery, calls } = await deliverWithCalls(
      flow,
      hostname,
      'reference-data',
      'ReferenceDataRequested',
      {
        accountId,
        kinds: ['COUNTRIES'],
      },
    );

    // Assess: read again, answered from the service, and the cache refreshed.
    expect(calls).toEqual([QUERY('Country')]);
    const answer = onlyPublished(delivery, 'ReferenceData');
    expect(answer['countries']).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'US' })]));
    expect(answer['countries']).not.toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'ZZ' })]),
    );
    const cached = await getCachedReferenceList(flow.store, hostname, 'COUNTRIES', {
      maxAgeSeconds: 7 * 24 * 3600,
      now: new Date(),
    });
    expect(cached?.fetchedAt).toBe((answer['asOf'] as { countries: string }).countries);
  });

  it('answers a country the install does not hold with SyncFailed UNKNOWN_COUNTRY', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'reference-unknown-country');

    // Act
    const calls = await callsDuring(flow, hostname, async () => {
      const delivery = await deliver(flow, 'reference-data', 'ReferenceDataRequested', {
        accountId,
        kinds: ['STATES'],
        countryCode: 'ZZ',
      });
      // Assess
      expect(onlyPublished(delivery, 'SyncFailed')).toMatchObject({
        code: 'UNKNOWN_COUNTRY',
        message: expect.stringContaining('ZZ'),
      });
    });
    // The countries are read, then read once more in case the country was added since.
    expect(calls).toEqual([QUERY('Country'), QUERY('Country')]);
  });

  itAnswersInvalidDetails(
    flow,
    {
      functionName: 'reference-data',
      detailType: 'ReferenceDataRequested',
      accountLabel: 'reference-invalid',
      detail: (accountId, overrides) => ({ accountId, kinds: ['COUNTRIES'], ...overrides }),
    },
    [
      ['no kinds', { kinds: [] }, 'kinds'],
      ['an unknown kind', { kinds: ['HOLIDAYS'] }, 'kinds'],
      ['a kind listed twice', { kinds: ['AWARDS', 'AWARDS'] }, 'kinds'],
      ['AGREED_HOURS without employeeId', { kinds: ['AGREED_HOURS'] }, 'employeeId'],
      ['a countryCode without STATES', { countryCode: 'US' }, 'countryCode'],
      ['an employeeId without AGREED_HOURS', { employeeId: 2 }, 'employeeId'],
    ],
  );
});
