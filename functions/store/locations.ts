import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import {
  type Claim,
  claimMarker,
  type MarkerRef,
  reclaimMarker,
  recordMarkerId,
  releaseMarker,
} from './claims.ts';
import { installPartition, LOCATION_PREFIX, locationKey } from './keys.ts';
import { queryAll } from './query-all.ts';
import { isConditionalCheckFailure, normalizeTimestamp, type Store } from './store.ts';

/**
 * CREATING: an intent marker written before the create call; the call may or may not have
 * reached the service (crash, lost answer). CREATED: the service's id is recorded.
 */
export type CreationStatus = 'CREATING' | 'CREATED';

const areaSchema = z.object({
  status: z.enum(['CREATING', 'CREATED']),
  claimedAt: z.string(),
  eventId: z.string(),
  areaId: z.number().int().optional(),
});

const locationSchema = z.object({
  hostname: z.string(),
  locationRef: z.string(),
  status: z.enum(['CREATING', 'CREATED']),
  eventId: z.string(),
  claimedAt: z.string(),
  locationId: z.number().int().optional(),
  areas: z.record(z.string(), areaSchema),
});

export type AreaRecord = z.infer<typeof areaSchema>;
export type LocationRecord = z.infer<typeof locationSchema>;

export class LocationStateConflictError extends Error {
  override readonly name = 'LocationStateConflictError';
}

export type CreationClaim = Claim<LocationRecord>;

export async function getLocation(
  store: Store,
  hostname: string,
  locationRef: string,
): Promise<LocationRecord | undefined> {
  const { Item } = await store.doc.send(
    new GetCommand({
      TableName: store.tableName,
      Key: locationKey(hostname, locationRef),
      ConsistentRead: true,
    }),
  );
  return Item ? locationSchema.parse(Item) : undefined;
}

/**
 * Writes the location's intent marker; only the first caller for (install, locationRef) gets
 * `claimed: true` and may send the create call. Anyone else gets the marker: CREATED means use
 * its id; CREATING means an earlier attempt may have created the location (outcome unknown).
 */
export async function claimLocationCreate(
  store: Store,
  hostname: string,
  locationRef: string,
  intent: { eventId: string; at?: Date },
): Promise<CreationClaim> {
  return claimMarker(
    store,
    {
      ...locationKey(hostname, locationRef),
      type: 'Location',
      hostname,
      locationRef,
      status: 'CREATING',
      eventId: intent.eventId,
      claimedAt: normalizeTimestamp(intent.at ?? new Date()),
      areas: {},
    },
    {
      parse: (item) => locationSchema.parse(item),
      read: () => getLocation(store, hostname, locationRef),
    },
  );
}

/**
 * Removes this event's CREATING marker when the create call certainly did not create anything
 * (refused before or by the service), so a retry may claim again. False if it was not ours.
 */
export async function releaseLocationClaim(
  store: Store,
  hostname: string,
  locationRef: string,
  eventId: string,
): Promise<boolean> {
  return releaseMarker(store, locationMarker(hostname, locationRef), { claimedStatus: 'CREATING', eventId });
}

/** Records the id the service returned. Repeating the same id is a no-op; a different id is refused. */
export async function recordLocationCreated(
  store: Store,
  hostname: string,
  locationRef: string,
  locationId: number,
): Promise<void> {
  return recordMarkerId(
    store,
    locationMarker(hostname, locationRef),
    { status: 'CREATED', idAttribute: 'locationId', id: locationId },
    () =>
      new LocationStateConflictError(
        `location ${locationRef} of ${hostname} is unclaimed or already recorded with another id`,
      ),
  );
}

/**
 * Intent marker for one area of a created location; same contract as claimLocationCreate.
 * Fails with LocationStateConflictError when the location itself is not recorded as CREATED.
 */
export async function claimAreaCreate(
  store: Store,
  hostname: string,
  locationRef: string,
  areaName: string,
  intent: { eventId: string; at?: Date },
): Promise<Claim<AreaRecord>> {
  const marker = {
    status: 'CREATING',
    eventId: intent.eventId,
    claimedAt: normalizeTimestamp(intent.at ?? new Date()),
  };
  try {
    await store.doc.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: locationKey(hostname, locationRef),
        UpdateExpression: 'SET areas.#area = :marker',
        ConditionExpression: '#status = :created AND attribute_not_exists(areas.#area)',
        ExpressionAttributeNames: { '#status': 'status', '#area': areaName },
        ExpressionAttributeValues: { ':created': 'CREATED', ':marker': marker },
      }),
    );
    return { claimed: true };
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
    const location = await getLocation(store, hostname, locationRef);
    const existing = location?.areas[areaName];
    if (existing) return { claimed: false, existing };
    throw new LocationStateConflictError(`location ${locationRef} of ${hostname} is not created yet`);
  }
}

/** Removes this event's CREATING area marker when the area certainly was not created. */
export async function releaseAreaClaim(
  store: Store,
  hostname: string,
  locationRef: string,
  areaName: string,
  eventId: string,
): Promise<boolean> {
  return releaseMarker(store, areaMarker(hostname, locationRef, areaName), {
    claimedStatus: 'CREATING',
    eventId,
  });
}

/** Records an area's id; same id again is a no-op, another id or no marker is refused. */
export async function recordAreaCreated(
  store: Store,
  hostname: string,
  locationRef: string,
  areaName: string,
  areaId: number,
): Promise<void> {
  return recordMarkerId(
    store,
    areaMarker(hostname, locationRef, areaName),
    { status: 'CREATED', idAttribute: 'areaId', id: areaId },
    () =>
      new LocationStateConflictError(
        `area ${areaName} of location ${locationRef} of ${hostname} is unclaimed or recorded with another id`,
      ),
  );
}

const locationMarker = (hostname: string, locationRef: string): MarkerRef => ({
  key: locationKey(hostname, locationRef),
});

const areaMarker = (hostname: string, locationRef: string, areaName: string): MarkerRef => ({
  key: locationKey(hostname, locationRef),
  nested: { path: 'areas.#area', names: { '#area': areaName } },
});

/**
 * Every location marker of one install (a few per install), for telling whether a location id the
 * service holds is already recorded for another locationRef.
 */
export function listLocations(store: Store, hostname: string): Promise<LocationRecord[]> {
  return queryAll(
    store,
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': installPartition(hostname), ':prefix': LOCATION_PREFIX },
      ConsistentRead: true,
    },
    (item) => locationSchema.parse(item),
  );
}

/**
 * Takes over a CREATING location marker whose create was found not to have reached the service,
 * so this delivery may send it again. False when the marker changed since it was read (another
 * delivery took it over or recorded an id): the caller must not create.
 */
export function reclaimLocationCreate(
  store: Store,
  hostname: string,
  locationRef: string,
  held: Pick<LocationRecord, 'eventId' | 'claimedAt'>,
  intent: { eventId: string; at: Date },
): Promise<boolean> {
  return reclaimMarker(
    store,
    locationMarker(hostname, locationRef),
    { claimedStatus: 'CREATING', eventId: held.eventId, claimedAt: held.claimedAt },
    { eventId: intent.eventId, claimedAt: normalizeTimestamp(intent.at) },
  );
}

/** The area counterpart of reclaimLocationCreate. */
export function reclaimAreaCreate(
  store: Store,
  hostname: string,
  locationRef: string,
  areaName: string,
  held: Pick<AreaRecord, 'eventId' | 'claimedAt'>,
  intent: { eventId: string; at: Date },
): Promise<boolean> {
  return reclaimMarker(
    store,
    areaMarker(hostname, locationRef, areaName),
    { claimedStatus: 'CREATING', eventId: held.eventId, claimedAt: held.claimedAt },
    { eventId: intent.eventId, claimedAt: normalizeTimestamp(intent.at) },
  );
}
