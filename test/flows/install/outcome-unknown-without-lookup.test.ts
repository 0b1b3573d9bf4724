import { describe, expect, it } from 'vitest';
import { getLocation } from '#functions/store/locations.ts';
import { useFlowHarness } from '#test/flows/support/harness.ts';
import { callsDuring, installRecords, onlyPublished, provisionedInstall } from './install-support.ts';
import {
  createdAreas,
  createdLocations,
  deliverLosingAnswer,
  locationCreated,
  redeliver,
} from './outcome-support.ts';

// Locations: lookup disabled. Areas: a resource the service does not have (404 at the sandbox).
const flow = useFlowHarness({
  config: { locationLookupResource: '', areaLookupResource: 'Department' },
});

const locationRoute = (accountId: string) => ({
  functionName: 'provision-location',
  detailType: 'LocationCreated' as const,
  detail: locationCreated(accountId),
});

describe('lost create answers that cannot be looked up', () => {
  it('fails with LOCATION_OUTCOME_UNKNOWN on redelivery when the location lookup is disabled', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'loc-nolookup');
    const route = locationRoute(accountId);
    const first = await deliverLosingAnswer(
      flow,
      { kind: 'drop-after-commit', pathPrefix: `/installs/${hostname}/api/v1/supervise/company` },
      route,
    );

    // Act
    let retried: Awaited<ReturnType<typeof redeliver>> | undefined;
    const calls = await callsDuring(flow, hostname, async () => {
      retried = await redeliver(flow, first, route);
    });

    // Assess
    expect(first.failures).toHaveLength(1);
    expect(onlyPublished(retried!, 'SyncFailed')).toMatchObject({
      code: 'LOCATION_OUTCOME_UNKNOWN',
      message: expect.stringContaining('no location lookup is configured'),
    });
    expect(calls).toEqual([]);
    expect(createdLocations(await installRecords(flow, hostname))).toHaveLength(1);
    expect(await getLocation(flow.store, hostname, 'loc-dock')).toMatchObject({ status: 'CREATING' });
  });

  it('fails with AREA_OUTCOME_UNKNOWN on redelivery when the service refuses the area lookup', async () => {
    // Prepare: the Counter create commits and loses its answer.
    const { accountId, hostname } = await provisionedInstall(flow, 'area-nolookup');
    const route = locationRoute(accountId);
    const first = await deliverLosingAnswer(
      flow,
      { kind: 'drop-after-commit', pathPrefix: `/installs/${hostname}/api/v1/supervise/department` },
      route,
    );

    // Act
    let retried: Awaited<ReturnType<typeof redeliver>> | undefined;
    const calls = await callsDuring(flow, hostname, async () => {
      retried = await redeliver(flow, first, route);
    });

    // Assess
    expect(onlyPublished(retried!, 'SyncFailed')).toMatchObject({
      code: 'AREA_OUTCOME_UNKNOWN',
      message: expect.stringMatching(/Counter.*lookup on Department failed/),
    });
    expect(calls).toEqual(['POST /api/v1/resource/Department/QUERY']);
    expect(createdAreas(await installRecords(flow, hostname))).toHaveLength(1);
    expect(await getLocation(flow.store, hostname, 'loc-dock')).toMatchObject({
      status: 'CREATED',
      areas: { Counter: { status: 'CREATING' } },
    });
  });
});
