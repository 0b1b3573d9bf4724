import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { claimLocationCreate, getLocation } from '#functions/store/locations.ts';
import {
  claimPayRateApplication,
  getPayRateApplication,
  reclaimPayRateApplication,
} from '#functions/store/pay-rate-applications.ts';
import { useFlowHarness } from '#test/flows/support/harness.ts';
import {
  callsDuring,
  deliver,
  installRecords,
  onlyPublished,
  provisionedInstall,
} from './install-support.ts';
import {
  agreementsOf,
  createdAreas,
  createdLocations,
  deliverLosingAnswer,
  locationCreated,
  redeliver,
} from './outcome-support.ts';

// A `timeout` fault costs one client timeout; one second keeps the file fast.
const flow = useFlowHarness({ config: { httpTimeoutMs: 1000 } });

const EMPLOYEE = 3;
const AWARD = { awardCode: 'HospServer2024b', countryCode: 'US', hourlyRate: 23.75 };
const SET_AWARD = `/api/v1/supervise/employee/${EMPLOYEE}/setAwardFromLibrary`;
const AGREEMENTS_QUERY = 'POST /api/v1/resource/EmployeeAgreement/QUERY';
const COMPANY = '/api/v1/supervise/company';
const DEPARTMENT = '/api/v1/supervise/department';

const employeeRoute = (accountId: string) => ({
  functionName: 'sync-employee',
  detailType: 'EmployeeChanged' as const,
  detail: { accountId, employeeId: EMPLOYEE, payRate: AWARD },
});

const locationRoute = (accountId: string, overrides: Record<string, unknown> = {}) => ({
  functionName: 'provision-location',
  detailType: 'LocationCreated' as const,
  detail: locationCreated(accountId, overrides),
});

/** What another integration (or the connector's own call before a crash) does at the service. */
function setAwardDirectly(hostname: string, hourlyRate: number) {
  return flow.sandbox<{ data: { AgreementId: number } }>('POST', `/installs/${hostname}${SET_AWARD}`, {
    strCountryCode: 'us',
    strAwardCode: AWARD.awardCode,
    arrOverridePayRules: [{ Id: `lib_${AWARD.awardCode}_base`, HourlyRate: hourlyRate }],
  });
}

/** The marker a crash right after setAwardFromLibrary leaves: APPLYING, may have been sent, no id. */
async function payRateMarkerLeftByCrash(hostname: string, eventId: string): Promise<void> {
  const at = new Date();
  await claimPayRateApplication(flow.store, hostname, {
    eventId,
    employeeId: EMPLOYEE,
    awardCode: AWARD.awardCode,
    at,
  });
  await reclaimPayRateApplication(flow.store, hostname, { eventId, claimedAt: at.toISOString() }, at);
}

describe('pay rate whose setAwardFromLibrary answer was lost', () => {
  it('records the agreement the lost call created, in the same delivery and without a second one', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'pay-drop');

    // Act
    let delivery: Awaited<ReturnType<typeof deliverLosingAnswer>> | undefined;
    const calls = await callsDuring(flow, hostname, async () => {
      delivery = await deliverLosingAnswer(
        flow,
        { kind: 'drop-after-commit', pathPrefix: `/installs/${hostname}${SET_AWARD}` },
        employeeRoute(accountId),
      );
    });

    // Assess
    expect(delivery!.failures).toEqual([]);
    expect(calls.filter((call) => call === `POST ${SET_AWARD}`)).toHaveLength(1);
    expect(calls.at(-1)).toBe(AGREEMENTS_QUERY);
    const created = agreementsOf(await installRecords(flow, hostname), EMPLOYEE).filter(
      (agreement) => agreement['BaseRate'] === AWARD.hourlyRate,
    );
    expect(created).toHaveLength(1);
    expect(onlyPublished(delivery!, 'EmployeeSynced')).toMatchObject({ agreementId: created[0]!['Id'] });
    expect(await getPayRateApplication(flow.store, hostname, delivery!.eventId)).toMatchObject({
      status: 'APPLIED',
      agreementId: created[0]!['Id'],
    });
  });

  it('sets the rate once on redelivery when the lost call did not commit', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'pay-timeout');
    const route = employeeRoute(accountId);
    const first = await deliverLosingAnswer(
      flow,
      { kind: 'timeout', pathPrefix: `/installs/${hostname}${SET_AWARD}` },
      route,
    );
    const afterTimeout = agreementsOf(await installRecords(flow, hostname), EMPLOYEE);

    // Act
    let retried: Awaited<ReturnType<typeof redeliver>> | undefined;
    const calls = await callsDuring(flow, hostname, async () => {
      retried = await redeliver(flow, first, route);
    });

    // Assess
    expect(first.failures).toHaveLength(1);
    expect(first.published).toEqual([]);
    expect(afterTimeout).toHaveLength(1);
    expect(calls).toEqual([AGREEMENTS_QUERY, `POST ${SET_AWARD}`]);
    const agreements = agreementsOf(await installRecords(flow, hostname), EMPLOYEE);
    expect(agreements).toHaveLength(2);
    const created = agreements.find((agreement) => agreement['BaseRate'] === AWARD.hourlyRate);
    expect(onlyPublished(retried!, 'EmployeeSynced')).toMatchObject({ agreementId: created?.['Id'] });
  }, 15_000);

  it('recognises on redelivery the agreement a crash left unrecorded, without calling again', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'pay-crash');
    const eventId = randomUUID();
    await payRateMarkerLeftByCrash(hostname, eventId);
    const { data } = await setAwardDirectly(hostname, AWARD.hourlyRate);
    const route = employeeRoute(accountId);

    // Act
    let retried: Awaited<ReturnType<typeof redeliver>> | undefined;
    const calls = await callsDuring(flow, hostname, async () => {
      retried = await redeliver(flow, { eventId, failures: ['crashed'], published: [] }, route);
    });

    // Assess
    expect(calls).toEqual([AGREEMENTS_QUERY]);
    expect(onlyPublished(retried!, 'EmployeeSynced')).toMatchObject({ agreementId: data.AgreementId });
    expect(agreementsOf(await installRecords(flow, hostname), EMPLOYEE)).toHaveLength(2);
  });

  it('fails with PAY_RATE_OUTCOME_UNKNOWN when two new agreements could be the lost one', async () => {
    // Prepare: the crashed call created one agreement, another integration a second.
    const { accountId, hostname } = await provisionedInstall(flow, 'pay-ambiguous');
    const eventId = randomUUID();
    await payRateMarkerLeftByCrash(hostname, eventId);
    await setAwardDirectly(hostname, AWARD.hourlyRate);
    await setAwardDirectly(hostname, 30);
    const route = employeeRoute(accountId);

    // Act
    let retried: Awaited<ReturnType<typeof redeliver>> | undefined;
    const calls = await callsDuring(flow, hostname, async () => {
      retried = await redeliver(flow, { eventId, failures: ['crashed'], published: [] }, route);
    });

    // Assess
    expect(onlyPublished(retried!, 'SyncFailed')).toMatchObject({
      code: 'PAY_RATE_OUTCOME_UNKNOWN',
      message: expect.stringContaining('2 new agreements'),
    });
    expect(calls).toEqual([AGREEMENTS_QUERY]);
    expect(agreementsOf(await installRecords(flow, hostname), EMPLOYEE)).toHaveLength(3);
  });
});

describe('location whose create answer was lost', () => {
  it('records the location the lost call created and creates its areas, in the same delivery', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-drop');

    // Act
    let delivery: Awaited<ReturnType<typeof deliverLosingAnswer>> | undefined;
    const calls = await callsDuring(flow, hostname, async () => {
      delivery = await deliverLosingAnswer(
        flow,
        { kind: 'drop-after-commit', pathPrefix: `/installs/${hostname}${COMPANY}` },
        locationRoute(accountId),
      );
    });

    // Assess
    expect(delivery!.failures).toEqual([]);
    expect(calls).toEqual([
      `PUT ${COMPANY}`,
      'POST /api/v1/resource/Company/QUERY',
      `PUT ${DEPARTMENT}`,
      `PUT ${DEPARTMENT}`,
    ]);
    const records = await installRecords(flow, hostname);
    expect(createdLocations(records)).toHaveLength(1);
    expect(createdAreas(records)).toHaveLength(2);
    const locationId = createdLocations(records)[0]!['Id'];
    expect(onlyPublished(delivery!, 'LocationProvisioned')).toMatchObject({
      locationId,
      areas: [
        { name: 'Counter', areaId: createdAreas(records)[0]!['Id'] },
        { name: 'Terrace', areaId: createdAreas(records)[1]!['Id'] },
      ],
    });
    expect(await getLocation(flow.store, hostname, 'loc-dock')).toMatchObject({
      status: 'CREATED',
      locationId,
    });
  });

  it('creates the location once on redelivery when the lost call did not commit', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-timeout');
    const route = locationRoute(accountId);
    const first = await deliverLosingAnswer(
      flow,
      { kind: 'timeout', pathPrefix: `/installs/${hostname}${COMPANY}` },
      route,
    );
    const afterTimeout = createdLocations(await installRecords(flow, hostname));

    // Act
    let retried: Awaited<ReturnType<typeof redeliver>> | undefined;
    const calls = await callsDuring(flow, hostname, async () => {
      retried = await redeliver(flow, first, route);
    });

    // Assess
    expect(first.failures).toHaveLength(1);
    expect(afterTimeout).toEqual([]);
    expect(calls.filter((call) => call === `PUT ${COMPANY}`)).toHaveLength(1);
    const records = await installRecords(flow, hostname);
    expect(createdLocations(records)).toHaveLength(1);
    expect(onlyPublished(retried!, 'LocationProvisioned')).toMatchObject({
      locationId: createdLocations(records)[0]!['Id'],
    });
  }, 15_000);

  it('recognises on redelivery the location a crash left unrecorded, without creating it again', async () => {
    // Prepare: the marker is written and the location created, then the process died.
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-crash');
    const route = locationRoute(accountId);
    const eventId = randomUUID();
    await claimLocationCreate(flow.store, hostname, 'loc-dock', { eventId, at: new Date() });
    const created = await flow.sandbox<{ Id: number }>('PUT', `/installs/${hostname}${COMPANY}`, {
      CompanyName: route.detail.name,
      Code: 'DK',
      IsWorkplace: 1,
    });

    // Act
    const retried = await redeliver(flow, { eventId, failures: ['crashed'], published: [] }, route);

    // Assess
    expect(createdLocations(await installRecords(flow, hostname))).toHaveLength(1);
    expect(onlyPublished(retried, 'LocationProvisioned')).toMatchObject({ locationId: created.Id });
  });

  it('skips a same-named location already recorded for another locationRef', async () => {
    // Prepare: loc-first holds a location of the very same name and code.
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-namesake');
    const name = `Namesake ${accountId}`;
    const namesake = locationRoute(accountId, { locationRef: 'loc-first', name });
    await deliver(flow, namesake.functionName, namesake.detailType, namesake.detail);

    // Act
    const delivery = await deliverLosingAnswer(
      flow,
      { kind: 'drop-after-commit', pathPrefix: `/installs/${hostname}${COMPANY}` },
      locationRoute(accountId, { locationRef: 'loc-second', name }),
    );

    // Assess
    const locations = createdLocations(await installRecords(flow, hostname));
    expect(locations).toHaveLength(2);
    expect(await getLocation(flow.store, hostname, 'loc-first')).toMatchObject({
      locationId: locations[0]!['Id'],
    });
    expect(onlyPublished(delivery, 'LocationProvisioned')).toMatchObject({
      locationRef: 'loc-second',
      locationId: locations[1]!['Id'],
    });
  });

  it('fails with LOCATION_OUTCOME_UNKNOWN when two unrecorded locations match', async () => {
    // Prepare: a crash left the marker; the install holds two locations of that name and code.
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-ambiguous');
    const route = locationRoute(accountId);
    const eventId = randomUUID();
    await claimLocationCreate(flow.store, hostname, 'loc-dock', { eventId, at: new Date() });
    for (let copy = 0; copy < 2; copy++) {
      await flow.sandbox('PUT', `/installs/${hostname}${COMPANY}`, {
        CompanyName: route.detail.name,
        Code: 'DK',
        IsWorkplace: 1,
      });
    }

    // Act
    let retried: Awaited<ReturnType<typeof redeliver>> | undefined;
    const calls = await callsDuring(flow, hostname, async () => {
      retried = await redeliver(flow, { eventId, failures: ['crashed'], published: [] }, route);
    });

    // Assess
    expect(onlyPublished(retried!, 'SyncFailed')).toMatchObject({ code: 'LOCATION_OUTCOME_UNKNOWN' });
    expect(calls).toEqual(['POST /api/v1/resource/Company/QUERY']);
    expect(await getLocation(flow.store, hostname, 'loc-dock')).toMatchObject({ status: 'CREATING' });
  });
});

describe('area whose create answer was lost', () => {
  it('records the area the lost call created and creates only the missing one, in the same delivery', async () => {
    // Prepare: the first department call (Counter) commits and loses its answer.
    const { accountId, hostname } = await provisionedInstall(flow, 'area-drop');

    // Act
    let delivery: Awaited<ReturnType<typeof deliverLosingAnswer>> | undefined;
    const calls = await callsDuring(flow, hostname, async () => {
      delivery = await deliverLosingAnswer(
        flow,
        { kind: 'drop-after-commit', pathPrefix: `/installs/${hostname}${DEPARTMENT}` },
        locationRoute(accountId),
      );
    });

    // Assess
    expect(calls).toEqual([
      `PUT ${COMPANY}`,
      `PUT ${DEPARTMENT}`,
      'POST /api/v1/resource/OperationalUnit/QUERY',
      `PUT ${DEPARTMENT}`,
    ]);
    const records = await installRecords(flow, hostname);
    expect(createdLocations(records)).toHaveLength(1);
    expect(createdAreas(records).map((area) => area['OperationalUnitName'])).toEqual(['Counter', 'Terrace']);
    expect(onlyPublished(delivery!, 'LocationProvisioned')).toMatchObject({
      locationId: createdLocations(records)[0]!['Id'],
      areas: [
        { name: 'Counter', areaId: createdAreas(records)[0]!['Id'] },
        { name: 'Terrace', areaId: createdAreas(records)[1]!['Id'] },
      ],
    });
  });

  it('creates the area once on redelivery when the lost call did not commit', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'area-timeout');
    const route = locationRoute(accountId);
    const first = await deliverLosingAnswer(
      flow,
      { kind: 'timeout', pathPrefix: `/installs/${hostname}${DEPARTMENT}` },
      route,
    );

    // Act
    let retried: Awaited<ReturnType<typeof redeliver>> | undefined;
    const calls = await callsDuring(flow, hostname, async () => {
      retried = await redeliver(flow, first, route);
    });

    // Assess
    expect(first.failures).toHaveLength(1);
    expect(calls).toEqual([
      'POST /api/v1/resource/OperationalUnit/QUERY',
      `PUT ${DEPARTMENT}`,
      `PUT ${DEPARTMENT}`,
    ]);
    const records = await installRecords(flow, hostname);
    expect(createdAreas(records).map((area) => area['OperationalUnitName'])).toEqual(['Counter', 'Terrace']);
    expect(onlyPublished(retried!, 'LocationProvisioned')).toMatchObject({
      areas: [
        { name: 'Counter', areaId: createdAreas(records)[0]!['Id'] },
        { name: 'Terrace', areaId: createdAreas(records)[1]!['Id'] },
      ],
    });
  }, 15_000);
});
