import { describe, expect, it } from 'vitest';
import {
  claimAreaCreate,
  claimLocationCreate,
  getLocation,
  LocationStateConflictError,
  listLocations,
  reclaimAreaCreate,
  reclaimLocationCreate,
  recordAreaCreated,
  recordLocationCreated,
  releaseAreaClaim,
  releaseLocationClaim,
} from '#functions/store/locations.ts';
import { useTestStore } from './support.ts';

const store = useTestStore();
let sequence = 0;
const newHostname = () => `install-${++sequence}.us.sandbox.test`;
const at = new Date('2030-01-01T00:00:00Z');

async function createdLocation(hostname: string, locationRef: string, locationId: number) {
  await claimLocationCreate(store, hostname, locationRef, { eventId: 'evt-1', at });
  await recordLocationCreated(store, hostname, locationRef, locationId);
}

describe('location creation markers', () => {
  it('lets exactly one of two concurrent deliveries create the location', async () => {
    // Prepare
    const hostname = newHostname();

    // Act
    const claims = await Promise.all([
      claimLocationCreate(store, hostname, 'store-1', { eventId: 'evt-a', at }),
      claimLocationCreate(store, hostname, 'store-1', { eventId: 'evt-b', at }),
    ]);

    // Assess
    expect(claims.filter((claim) => claim.claimed)).toHaveLength(1);
    expect(claims.find((claim) => !claim.claimed)).toMatchObject({
      claimed: false,
      existing: { status: 'CREATING', locationRef: 'store-1' },
    });
  });

  it('shows a redelivery after a lost answer that an earlier attempt may have created the location', async () => {
    // Prepare
    const hostname = newHostname();
    await claimLocationCreate(store, hostname, 'store-1', { eventId: 'evt-1', at });

    // Act
    const redelivery = await claimLocationCreate(store, hostname, 'store-1', { eventId: 'evt-1', at });

    // Assess
    expect(redelivery).toEqual({
      claimed: false,
      existing: {
        hostname,
        locationRef: 'store-1',
        status: 'CREATING',
        eventId: 'evt-1',
        claimedAt: at.toISOString(),
        areas: {},
      },
    });
  });

  it('hands the recorded id to a redelivery instead of a new claim', async () => {
    // Prepare
    const hostname = newHostname();
    await createdLocation(hostname, 'store-1', 501);

    // Act
    const redelivery = await claimLocationCreate(store, hostname, 'store-1', { eventId: 'evt-2', at });

    // Assess
    expect(redelivery).toMatchObject({ claimed: false, existing: { status: 'CREATED', locationId: 501 } });
  });

  it('accepts the same id twice and refuses a different one', async () => {
    // Prepare
    const hostname = newHostname();
    await createdLocation(hostname, 'store-1', 501);

    // Act
    const sameAgain = recordLocationCreated(store, hostname, 'store-1', 501);
    const another = recordLocationCreated(store, hostname, 'store-1', 502);

    // Assess
    await expect(sameAgain).resolves.toBeUndefined();
    await expect(another).rejects.toThrow(LocationStateConflictError);
    expect(await getLocation(store, hostname, 'store-1')).toMatchObject({ locationId: 501 });
  });

  it('refuses to record an id for a location nobody claimed', async () => {
    // Prepare
    const hostname = newHostname();

    // Act
    const recording = recordLocationCreated(store, hostname, 'never-claimed', 1);

    // Assess
    await expect(recording).rejects.toThrow(LocationStateConflictError);
    expect(await getLocation(store, hostname, 'never-claimed')).toBeUndefined();
  });

  it('releases only its own unfinished claim', async () => {
    // Prepare
    const hostname = newHostname();
    await claimLocationCreate(store, hostname, 'store-1', { eventId: 'evt-1', at });
    await createdLocation(hostname, 'store-2', 77);

    // Act
    const notOurs = await releaseLocationClaim(store, hostname, 'store-1', 'evt-2');
    const ours = await releaseLocationClaim(store, hostname, 'store-1', 'evt-1');
    const created = await releaseLocationClaim(store, hostname, 'store-2', 'evt-1');

    // Assess
    expect([notOurs, ours, created]).toEqual([false, true, false]);
    expect(await getLocation(store, hostname, 'store-1')).toBeUndefined();
    expect(await getLocation(store, hostname, 'store-2')).toMatchObject({ locationId: 77 });
  });
});

describe('area creation markers', () => {
  it('records areas of a created location by name', async () => {
    // Prepare
    const hostname = newHostname();
    await createdLocation(hostname, 'store-1', 501);

    // Act
    await claimAreaCreate(store, hostname, 'store-1', 'Kitchen', { eventId: 'evt-1', at });
    await recordAreaCreated(store, hostname, 'store-1', 'Kitchen', 9001);
    await claimAreaCreate(store, hostname, 'store-1', 'Front of house', { eventId: 'evt-1', at });

    // Assess
    const location = await getLocation(store, hostname, 'store-1');
    expect(location?.areas).toEqual({
      Kitchen: { status: 'CREATED', areaId: 9001, eventId: 'evt-1', claimedAt: at.toISOString() },
      'Front of house': { status: 'CREATING', eventId: 'evt-1', claimedAt: at.toISOString() },
    });
  });

  it('lets exactly one of two concurrent deliveries create an area', async () => {
    // Prepare
    const hostname = newHostname();
    await createdLocation(hostname, 'store-1', 501);

    // Act
    const claims = await Promise.all([
      claimAreaCreate(store, hostname, 'store-1', 'Bar', { eventId: 'evt-a', at }),
      claimAreaCreate(store, hostname, 'store-1', 'Bar', { eventId: 'evt-b', at }),
    ]);

    // Assess
    expect(claims.filter((claim) => claim.claimed)).toHaveLength(1);
    expect(claims.find((claim) => !claim.claimed)).toMatchObject({
      claimed: false,
      existing: { status: 'CREATING' },
    });
  });

  it('refuses an area before its location is created', async () => {
    // Prepare
    const hostname = newHostname();
    await claimLocationCreate(store, hostname, 'store-1', { eventId: 'evt-1', at });

    // Act
    const claim = claimAreaCreate(store, hostname, 'store-1', 'Bar', { eventId: 'evt-1', at });

    // Assess
    await expect(claim).rejects.toThrow(LocationStateConflictError);
  });

  it('refuses a second id for an area and an id for an unclaimed area', async () => {
    // Prepare
    const hostname = newHostname();
    await createdLocation(hostname, 'store-1', 501);
    await claimAreaCreate(store, hostname, 'store-1', 'Bar', { eventId: 'evt-1', at });
    await recordAreaCreated(store, hostname, 'store-1', 'Bar', 1);

    // Act
    const secondId = recordAreaCreated(store, hostname, 'store-1', 'Bar', 2);
    const unclaimed = recordAreaCreated(store, hostname, 'store-1', 'Cellar', 3);

    // Assess
    await expect(secondId).rejects.toThrow(LocationStateConflictError);
    await expect(unclaimed).rejects.toThrow(LocationStateConflictError);
    expect((await getLocation(store, hostname, 'store-1'))?.areas).toEqual({
      Bar: { status: 'CREATED', areaId: 1, eventId: 'evt-1', claimedAt: at.toISOString() },
    });
  });

  it('releases its own area marker so the area can be claimed again', async () => {
    // Prepare
    const hostname = newHostname();
    await createdLocation(hostname, 'store-1', 501);
    await claimAreaCreate(store, hostname, 'store-1', 'Bar', { eventId: 'evt-1', at });

    // Act
    const notOurs = await releaseAreaClaim(store, hostname, 'store-1', 'Bar', 'evt-2');
    const ours = await releaseAreaClaim(store, hostname, 'store-1', 'Bar', 'evt-1');
    const reclaim = await claimAreaCreate(store, hostname, 'store-1', 'Bar', { eventId: 'evt-2', at });

    // Assess
    expect([notOurs, ours]).toEqual([false, true]);
    expect(reclaim).toEqual({ claimed: true });
  });
});

describe('reconciling unfinished markers', () => {
  it('lets exactly one of two concurrent reconcilers take over a CREATING location marker', async () => {
    // Prepare
    const hostname = newHostname();
    await claimLocationCreate(store, hostname, 'store-1', { eventId: 'evt-1', at });
    const held = { eventId: 'evt-1', claimedAt: at.toISOString() };
    const later = new Date('2030-01-01T00:05:00Z');

    // Act
    const takeovers = await Promise.all([
      reclaimLocationCreate(store, hostname, 'store-1', held, { eventId: 'evt-2', at: later }),
      reclaimLocationCreate(store, hostname, 'store-1', held, { eventId: 'evt-3', at: later }),
    ]);

    // Assess
    expect(takeovers.filter(Boolean)).toHaveLength(1);
    const marker = await getLocation(store, hostname, 'store-1');
    expect(marker).toMatchObject({ status: 'CREATING', claimedAt: later.toISOString() });
    expect(['evt-2', 'evt-3']).toContain(marker?.eventId);
  });

  it('never takes over a marker that already holds an id', async () => {
    // Prepare
    const hostname = newHostname();
    await createdLocation(hostname, 'store-1', 12);

    // Act
    const taken = await reclaimLocationCreate(
      store,
      hostname,
      'store-1',
      { eventId: 'evt-1', claimedAt: at.toISOString() },
      { eventId: 'evt-2', at: new Date('2030-01-02T00:00:00Z') },
    );

    // Assess
    expect(taken).toBe(false);
    expect(await getLocation(store, hostname, 'store-1')).toMatchObject({
      status: 'CREATED',
      eventId: 'evt-1',
    });
  });

  it('takes over an unfinished area marker even when the new claim time equals the old one', async () => {
    // Prepare
    const hostname = newHostname();
    await createdLocation(hostname, 'store-1', 501);
    await claimAreaCreate(store, hostname, 'store-1', 'Kitchen', { eventId: 'evt-1', at });
    const held = { eventId: 'evt-1', claimedAt: at.toISOString() };

    // Act
    const first = await reclaimAreaCreate(store, hostname, 'store-1', 'Kitchen', held, {
      eventId: 'evt-1',
      at,
    });
    const second = await reclaimAreaCreate(store, hostname, 'store-1', 'Kitchen', held, {
      eventId: 'evt-1',
      at,
    });

    // Assess: the claim time moved, so a second reconciler holding the old one loses.
    expect([first, second]).toEqual([true, false]);
    const area = (await getLocation(store, hostname, 'store-1'))?.areas['Kitchen'];
    expect(area?.status).toBe('CREATING');
    expect(area?.claimedAt).not.toBe(at.toISOString());
  });

  it('lists every location marker of one install and none of another', async () => {
    // Prepare
    const hostname = newHostname();
    await createdLocation(hostname, 'store-1', 1);
    await claimLocationCreate(store, hostname, 'store-2', { eventId: 'evt-2', at });
    await createdLocation(newHostname(), 'store-9', 9);

    // Act
    const locations = await listLocations(store, hostname);

    // Assess
    expect(locations.map((location) => [location.locationRef, location.locationId]).sort()).toEqual([
      ['store-1', 1],
      ['store-2', undefined],
    ]);
  });
});
