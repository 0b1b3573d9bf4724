import { describe, expect, it } from 'vitest';
import { NetworkError } from '#functions/domain/errors.ts';
import { provisionLocation } from '#functions/provision-location/provision-location.ts';
import type { ServiceClient } from '#functions/service/client.ts';
import { flowDependencies, occurredNow, useFlowHarness } from '#test/flows/support/harness.ts';
import {
  callsDuring,
  deliver,
  deliverWithCalls,
  type InstallRecords,
  type InvalidDetailCase,
  installRecords,
  itAnswersInvalidDetails,
  onlyPublished,
  provisionedInstall,
  useCaseInput,
} from './install-support.ts';

const flow = useFlowHarness();

const SEEDED_LOCATIONS = 2;
const SEEDED_AREAS = 2;

function createdLocations(records: InstallRecords) {
  return (records['Location'] ?? []).slice(SEEDED_LOCATIONS);
}

function createdAreas(records: InstallRecords) {
  return (records['Area'] ?? []).slice(SEEDED_AREAS);
}

function locationCreated(accountId: string, overrides: Record<string, unknown> = {}) {
  return {
    accountId,
    locationRef: 'loc-harbor-pier',
    name: 'Harbor Pier Kiosk',
    code: 'HPK',
    tradingName: 'Harbor Cafe Pier',
    address: '1 Pier Rd, San Francisco, CA',
    isWorkplace: true,
    isPayrollEntity: true,
    payrollExportCode: 'PAY-HPK',
    areas: [
      { name: 'Counter', exportName: 'CTR' },
      { name: 'Terrace', address: 'Pier 1 terrace', geographic: true },
    ],
    ...overrides,
  };
}

describe('LocationCreated', () => {
  it('creates the location with every field, then each area under it, and reports their ids', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-happy');

    // Act
    const { delivery, calls } = await deliverWithCalls(
      flow,
      hostname,
      'provision-location',
      'LocationCreated',
      locationCreated(accountId),
    );

    // Assess
    expect(calls).toEqual([
      'PUT /api/v1/supervise/company',
      'PUT /api/v1/supervise/department',
      'PUT /api/v1/supervise/department',
    ]);
    const records = await installRecords(flow, hostname);
    const [location] = createdLocations(records);
    expect(location).toMatchObject({
      CompanyName: 'Harbor Pier Kiosk',
      Code: 'HPK',
      TradingName: 'Harbor Cafe Pier',
      IsWorkplace: 1,
      IsPayrollEntity: 1,
      PayrollExportCode: 'PAY-HPK',
      Active: true,
    });
    expect(createdAreas(records)).toEqual([
      expect.objectContaining({
        Company: location!['Id'],
        OperationalUnitName: 'Counter',
        ExportName: 'CTR',
        OperationalUnitType: 0,
      }),
      expect.objectContaining({
        Company: location!['Id'],
        OperationalUnitName: 'Terrace',
        Address: 'Pier 1 terrace',
        OperationalUnitType: 1,
      }),
    ]);
    const areaIds = createdAreas(records).map((area) => area['Id']);
    expect(onlyPublished(delivery, 'LocationProvisioned')).toEqual(
      expect.objectContaining({
        accountId,
        hostname,
        locationRef: 'loc-harbor-pier',
        locationId: location!['Id'],
        created: true,
        areas: [
          { name: 'Counter', areaId: areaIds[0], created: true },
          { name: 'Terrace', areaId: areaIds[1], created: true },
        ],
      }),
    );
  });

  it('creates a default area named like the location when the event lists none', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-default');
    const { areas: _areas, ...withoutAreas } = locationCreated(accountId);

    // Act
    const delivery = await deliver(flow, 'provision-location', 'LocationCreated', withoutAreas);

    // Assess
    const records = await installRecords(flow, hostname);
    expect(createdAreas(records)).toEqual([
      expect.objectContaining({ OperationalUnitName: 'Harbor Pier Kiosk', OperationalUnitType: 0 }),
    ]);
    expect(onlyPublished(delivery, 'LocationProvisioned')['areas']).toEqual([
      { name: 'Harbor Pier Kiosk', areaId: createdAreas(records)[0]!['Id'], created: true },
    ]);
  });

  it('creates no area for `areas: []` (an Enterprise top-level node)', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-no-area');

    // Act
    const { delivery, calls } = await deliverWithCalls(
      flow,
      hostname,
      'provision-location',
      'LocationCreated',
      locationCreated(accountId, { areas: [] }),
    );

    // Assess
    expect(calls).toEqual(['PUT /api/v1/supervise/company']);
    const records = await installRecords(flow, hostname);
    expect(createdLocations(records)).toHaveLength(1);
    expect(createdAreas(records)).toEqual([]);
    expect(onlyPublished(delivery, 'LocationProvisioned')).toMatchObject({
      locationId: createdLocations(records)[0]!['Id'],
      created: true,
      areas: [],
    });
  });

  it('creates an inactive location for `active: false`', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-inactive');

    // Act
    await deliver(
      flow,
      'provision-location',
      'LocationCreated',
      locationCreated(accountId, { active: false }),
    );

    // Assess
    expect(createdLocations(await installRecords(flow, hostname))).toEqual([
      expect.objectContaining({ CompanyName: 'Harbor Pier Kiosk', Active: false }),
    ]);
  });

  it('sends IsWorkplace 1 and IsPayrollEntity 0 by default', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-defaults');

    // Act
    await deliver(flow, 'provision-location', 'LocationCreated', {
      accountId,
      locationRef: 'loc-min',
      name: 'Minimal',
    });

    // Assess
    expect(createdLocations(await installRecords(flow, hostname))).toEqual([
      expect.objectContaining({
        CompanyName: 'Minimal',
        IsWorkplace: 1,
        IsPayrollEntity: 0,
        Active: true,
      }),
    ]);
  });
});

/**
 * The install holds the first event's Counter and Terrace, then Bar and Patio, each once; the
 * LocationProvisioned part that says the existing location kept `kept` and gained Bar and Patio.
 */
function barAndPatioAdded(areas: Array<Record<string, unknown>>, kept: 'Counter' | 'Terrace') {
  expect(areas.map((area) => area['OperationalUnitName'])).toEqual(['Counter', 'Terrace', 'Bar', 'Patio']);
  return {
    created: false,
    areas: [
      { name: kept, areaId: areas[kept === 'Counter' ? 0 : 1]!['Id'], created: false },
      { name: 'Bar', areaId: areas[2]!['Id'], created: true },
      { name: 'Patio', areaId: areas[3]!['Id'], created: true },
    ],
  };
}

describe('LocationCreated delivered again', () => {
  it('creates no second location or area when the same event is delivered twice', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-twice');
    const first = await deliver(flow, 'provision-location', 'LocationCreated', locationCreated(accountId));

    // Act
    const calls = await callsDuring(flow, hostname, () =>
      deliver(flow, 'provision-location', 'LocationCreated', locationCreated(accountId), {
        id: first.eventId,
        receiveCount: 2,
      }),
    );

    // Assess
    expect(calls).toEqual([]);
    const records = await installRecords(flow, hostname);
    expect(createdLocations(records)).toHaveLength(1);
    expect(createdAreas(records)).toHaveLength(2);
  });

  it('answers another event for the same locationRef with the recorded ids, without calling', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-again');
    const first = await deliver(flow, 'provision-location', 'LocationCreated', locationCreated(accountId));

    // Act
    let again: Awaited<ReturnType<typeof deliver>> | undefined;
    const calls = await callsDuring(flow, hostname, async () => {
      again = await deliver(flow, 'provision-location', 'LocationCreated', locationCreated(accountId));
    });

    // Assess
    expect(calls).toEqual([]);
    const firstDetail = onlyPublished(first, 'LocationProvisioned');
    const areas = firstDetail['areas'] as Array<Record<string, unknown>>;
    expect(onlyPublished(again!, 'LocationProvisioned')).toEqual({
      ...firstDetail,
      causationId: again!.eventId,
      created: false,
      areas: areas.map((area) => ({ ...area, created: false })),
    });
  });

  it('adds to an existing location only the areas it does not have, once under redelivery', async () => {
    // Prepare: the location exists with Counter and Terrace; the next event lists Terrace and two new ones.
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-add-areas');
    await deliver(flow, 'provision-location', 'LocationCreated', locationCreated(accountId));
    const more = locationCreated(accountId, {
      areas: [{ name: 'Terrace' }, { name: 'Bar', exportName: 'BAR' }, { name: 'Patio', geographic: true }],
    });

    // Act
    const { delivery, calls } = await deliverWithCalls(
      flow,
      hostname,
      'provision-location',
      'LocationCreated',
      more,
    );
    const redeliveryCalls = await callsDuring(flow, hostname, () =>
      deliver(flow, 'provision-location', 'LocationCreated', more, {
        id: delivery.eventId,
        receiveCount: 2,
      }),
    );

    // Assess
    expect(calls).toEqual(['PUT /api/v1/supervise/department', 'PUT /api/v1/supervise/department']);
    expect(redeliveryCalls).toEqual([]);
    const records = await installRecords(flow, hostname);
    expect(createdLocations(records)).toHaveLength(1);
    const areas = createdAreas(records);
    expect(onlyPublished(delivery, 'LocationProvisioned')).toMatchObject({
      locationId: createdLocations(records)[0]!['Id'],
      ...barAndPatioAdded(areas, 'Terrace'),
    });
  });

  it.each([
    ['before the second new area reaches the service', false],
    ['between the second new area created at the service and its id recorded', true],
  ])('adds the missing areas of an existing location once after a crash %s', async (_when, createdFirst) => {
    // Prepare: the second event's first new area is created and recorded, then the run dies at
    // the next one: before it is sent, or after the service made it (its marker stays CREATING).
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-add-crash');
    // Both with occurredAt, so the second is the newer event on the location (last writer wins).
    await deliver(
      flow,
      'provision-location',
      'LocationCreated',
      locationCreated(accountId, { occurredAt: occurredNow() }),
    );
    const dependencies = await flowDependencies();
    const input = useCaseInput('LocationCreated', {
      ...locationCreated(accountId, {
        areas: [{ name: 'Counter' }, { name: 'Bar' }, { name: 'Patio' }],
        occurredAt: occurredNow(),
      }),
      isWorkplace: true,
      isPayrollEntity: true,
      active: true,
    });
    let areaCreates = 0;
    const crashingService: ServiceClient = {
      ...dependencies.service,
      install(name) {
        const install = dependencies.service.install(name);
        return {
          ...install,
          createArea: async (request) => {
            if (++areaCreates === 1) return install.createArea(request);
            if (!createdFirst) throw new NetworkError('connect ECONNREFUSED (simulated crash)');
            // The process dies after the service made the area: nothing releases its marker.
            await install.createArea(request);
            throw new Error('the process died (simulated crash)');
          },
        };
      },
    };
    await expect(provisionLocation(input, { ...dependencies, service: crashingService })).rejects.toThrow(
      'simulated crash',
    );

    // Act
    const [provisioned] = await provisionLocation(input, dependencies);

    // Assess
    const areas = createdAreas(await installRecords(flow, hostname));
    expect(provisioned?.detail).toMatchObject(barAndPatioAdded(areas, 'Counter'));
  });

  it('finishes the areas after a crash that followed the location create, without a second location', async () => {
    // Prepare: the first run creates the location, then the area calls never reach the service.
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-crash');
    const dependencies = await flowDependencies();
    const crashingService: ServiceClient = {
      ...dependencies.service,
      install(name) {
        const install = dependencies.service.install(name);
        return {
          ...install,
          createArea: () => Promise.reject(new NetworkError('connect ECONNREFUSED (simulated crash)')),
        };
      },
    };
    const input = useCaseInput('LocationCreated', {
      ...locationCreated(accountId),
      isWorkplace: true,
      isPayrollEntity: true,
      active: true,
    });
    await expect(provisionLocation(input, { ...dependencies, service: crashingService })).rejects.toThrow(
      'simulated crash',
    );
    const afterCrash = await installRecords(flow, hostname);

    // Act
    const [provisioned] = await provisionLocation(input, dependencies);

    // Assess
    expect(createdLocations(afterCrash)).toHaveLength(1);
    expect(createdAreas(afterCrash)).toHaveLength(0);
    const records = await installRecords(flow, hostname);
    expect(createdLocations(records)).toHaveLength(1);
    expect(createdAreas(records).map((area) => area['OperationalUnitName'])).toEqual(['Counter', 'Terrace']);
    expect(provisioned?.detail).toMatchObject({
      locationId: createdLocations(records)[0]!['Id'],
      created: true,
      areas: [
        { name: 'Counter', areaId: createdAreas(records)[0]!['Id'], created: true },
        { name: 'Terrace', areaId: createdAreas(records)[1]!['Id'], created: true },
      ],
    });
  });

  it('finishes the areas on redelivery after the department calls were rate limited', async () => {
    // Prepare: every department call is refused with 429 (never processed) until faults are cleared.
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-429');
    await flow.sandbox('POST', '/_sandbox/faults', {
      rate: 1,
      kinds: ['429'],
      seed: 1,
      count: 3,
      pathPrefix: `/installs/${hostname}/api/v1/supervise/department`,
    });
    let first: Awaited<ReturnType<typeof deliver>>;
    try {
      first = await deliver(flow, 'provision-location', 'LocationCreated', locationCreated(accountId));
    } finally {
      await flow.sandbox('DELETE', '/_sandbox/faults');
    }

    // Act
    const retried = await deliver(flow, 'provision-location', 'LocationCreated', locationCreated(accountId), {
      id: first.eventId,
      receiveCount: 2,
    });

    // Assess
    expect(first.failures).toHaveLength(1);
    expect(first.published).toEqual([]);
    const records = await installRecords(flow, hostname);
    expect(createdLocations(records)).toHaveLength(1);
    expect(createdAreas(records)).toHaveLength(2);
    expect(onlyPublished(retried, 'LocationProvisioned')).toMatchObject({
      locationId: createdLocations(records)[0]!['Id'],
    });
  }, 15_000);
});

describe('LocationCreated that cannot be applied', () => {
  const invalid: InvalidDetailCase[] = [
    ['neither workplace nor payroll entity', { isWorkplace: false, isPayrollEntity: false }, 'isWorkplace'],
    ['an empty name', { name: '' }, 'name'],
    ['two areas with one name', { areas: [{ name: 'Bar' }, { name: 'Bar' }] }, 'areas[1].name'],
    ['an active flag that is not a boolean', { active: 'no' }, 'active'],
    ['an unknown field', { manager: 'Sam' }, 'manager'],
  ];

  itAnswersInvalidDetails(
    flow,
    {
      functionName: 'provision-location',
      detailType: 'LocationCreated',
      accountLabel: 'loc-invalid',
      detail: locationCreated,
    },
    invalid,
  );

  it('guards the workplace / payroll entity rule in the use case too', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-guard');
    const input = useCaseInput('LocationCreated', {
      ...locationCreated(accountId),
      isWorkplace: false,
      isPayrollEntity: false,
      active: true,
    });
    const dependencies = await flowDependencies();

    // Act
    const calls = await callsDuring(flow, hostname, () =>
      expect(provisionLocation(input, dependencies)).rejects.toMatchObject({
        code: 'LOCATION_ROLE_REQUIRED',
      }),
    );

    // Assess
    expect(calls).toEqual([]);
  });

  it('releases the marker when the service refuses the location, so a corrected event can create it', async () => {
    // Prepare: a parent location that does not exist is refused with 404.
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-refused');
    const refused = await deliver(
      flow,
      'provision-location',
      'LocationCreated',
      locationCreated(accountId, { parentLocationId: 999 }),
    );

    // Act
    const corrected = await deliver(
      flow,
      'provision-location',
      'LocationCreated',
      locationCreated(accountId),
    );

    // Assess
    expect(onlyPublished(refused, 'SyncFailed')).toMatchObject({ code: 'NOT_FOUND' });
    expect(onlyPublished(corrected, 'LocationProvisioned')).toMatchObject({
      locationRef: 'loc-harbor-pier',
    });
    expect(createdLocations(await installRecords(flow, hostname))).toHaveLength(1);
  });
});
