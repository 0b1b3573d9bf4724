import { describe, expect, it } from 'vitest';
import { inboundSamples } from '#functions/contracts/samples.ts';
import { entrySize, MAX_ENTRY_BYTES } from '#functions/publisher/publisher.ts';
import { getCachedReferenceList, putCachedReferenceList } from '#functions/store/reference-cache.ts';
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

  it('splits a long answer over parts that each fit one EventBridge entry, in order, agreed hours on part 1', async () => {
    // Prepare: a country of the install with more states than one event holds, and employee 2's
    // agreed hours. The sandbox answers at most 500 records per QUERY (and the deployment refuses a
    // list that may be cut), so the states are fewer than that and their names long.
    const { accountId, hostname } = await provisionedInstall(flow, 'reference-parts');
    const staged = { count: 480, nameLength: 700 };
    await flow.sandbox('POST', `/_sandbox/installs/${hostname}/records/Country`, {
      Id: 900,
      Code: 'ZS',
      CodeA3: 'ZSP',
      Region: 'Test',
      Active: true,
      SortOrder: 900,
      Country: 'Splitland',
    });
    const states = Array.from({ length: staged.count }, (_, index) => ({
      Id: 10_000 + index,
      Country: 900,
      Code: `S${String(index).padStart(4, '0')}`,
      Active: true,
      SortOrder: index + 1,
      State: `Staged state ${index} of Splitland `.padEnd(staged.nameLength, '.'),
    }));
    await flow.sandbox('POST', `/_sandbox/installs/${hostname}/records/State`, states);
    const synced = await deliver(flow, 'sync-employee', 'EmployeeChanged', {
      accountId,
      employeeId: 2,
      regularHours: inboundSamples.EmployeeChanged.regularHours,
    });
    expect(onlyPublished(synced, 'EmployeeSynced')).toMatchObject({ employeeId: 2 });

    // Act
    const delivery = await deliver(flow, 'reference-data', 'ReferenceDataRequested', {
      accountId,
      kinds: ['STATES', 'AGREED_HOURS'],
      countryCode: 'ZS',
      employeeId: 2,
    });

    // Assess
    expect(delivery.failures).toEqual([]);
    const parts = delivery.published.filter((event) => event.detailType === 'ReferenceData');
    expect(parts).toHaveLength(delivery.published.length);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.map((event) => [event.detail['part'], event.detail['parts']])).toEqual(
      parts.map((_, index) => [index + 1, parts.length]),
    );
    for (const event of parts) {
      const size = entrySize({
        Source: event.source,
        DetailType: event.detailType,
        Detail: JSON.stringify(event.detail),
        Time: new Date(event.time),
      });
      expect(size).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
      expect(event.detail).toMatchObject({
        accountId,
        hostname,
        kinds: ['STATES', 'AGREED_HOURS'],
        countryCode: 'ZS',
        causationId: delivery.eventId,
      });
    }
    expect(new Set(parts.map((event) => event.detail['answerId'])).size).toBe(1);
    const answered = parts.flatMap((event) => event.detail['states'] as Array<{ id: number }>);
    expect(answered.map((state) => state.id)).toEqual(states.map((state) => state.Id));
    const [first, ...rest] = parts;
    expect(first?.detail['agreedHours']).toMatchObject({
      employeeId: 2,
      agreedHour: expect.objectContaining({ threshold: 38 }),
    });
    for (const event of rest) expect(event.detail).not.toHaveProperty('agreedHours');
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
