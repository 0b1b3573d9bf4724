import type * as z from 'zod';
import type { LocationCreatedDetail } from '#functions/contracts/inbound/location-created.ts';
import {
  type CreateOutcome,
  certainlyNotCreated,
  createdAtOrAfter,
  earliestCreation,
  outcomeOf,
} from '#functions/domain/create-outcome.ts';
import { OutcomeUnknownError, PermanentError, ServiceRejectedError } from '#functions/domain/errors.ts';
import { EventOrder, type Thing } from '#functions/domain/event-order.ts';
import { provisionedBusinessOf } from '#functions/domain/provisioned-business.ts';
import { serviceRejection } from '#functions/domain/service-rejection.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import type { UseCaseEvent, UseCaseInput } from '#functions/runtime/use-case.ts';
import type { InstallClient } from '#functions/service/install.ts';
import type { QueryCondition } from '#functions/service/install-query.ts';
import {
  type AreaRequest,
  areaRecordSchema,
  type LocationRequest,
  locationRecordSchema,
} from '#functions/service/records/locations.ts';
import { recordSyncSuccess } from '#functions/store/business.ts';
import {
  claimAreaCreate,
  claimLocationCreate,
  getLocation,
  listLocations,
  reclaimAreaCreate,
  reclaimLocationCreate,
  recordAreaCreated,
  recordLocationCreated,
  releaseAreaClaim,
  releaseLocationClaim,
} from '#functions/store/locations.ts';
import type { Store } from '#functions/store/store.ts';

export type LocationArea = NonNullable<LocationCreatedDetail['areas']>[number];

/**
 * The thing a LocationCreated sets: the location with its locationRef, taken whole (the location
 * and the areas the event lists). The service can only create locations and areas, never rename
 * or remove them, so the newest event adds what it lists that is missing; an older event arriving
 * after it adds nothing (SyncSkipped).
 */
export const locationThing = (locationRef: string): Thing => ({
  key: `location#${locationRef}`,
  field: 'location',
});

/**
 * provisionLocation — LocationCreated → supervise/company, then supervise/department per area →
 * LocationProvisioned.
 *
 * Input: the LocationCreated detail (accountId, locationRef, name, code?, tradingName?, address?,
 * isWorkplace (default true), isPayrollEntity (default false), payrollExportCode?,
 * parentLocationId?, active (default true, sent as `Active`), areas? [{name, exportName?, address?,
 * geographic?}]).
 * Output: one `LocationProvisioned` {hostname, locationRef, locationId, created, areas [{name,
 * areaId, created}]} with the areas in the order of the event: areas absent → one area named like
 * the location (the service creates none through the API and a location without an area records
 * no time); `areas: []` → none (an Enterprise top-level node "needs no area"). `created` says
 * whether this event created the location / each area, or it existed (an earlier event's);
 * one `SyncSkipped` SUPERSEDED instead, creating nothing, when a newer LocationCreated for the same
 * locationRef (by occurredAt, then event id) was applied first (locationThing).
 *
 * Steps:
 * 1. Guard: at least one of isWorkplace / isPayrollEntity (the contract refines it already; the
 *    service would refuse the location otherwise) → LOCATION_ROLE_REQUIRED.
 * 2. Resolve the account's install from the table (never from the event); no ACTIVE business →
 *    waits, fails or counts as provisionedBusinessOf says (domain/provisioned-business.ts).
 * 3. Last writer wins on the location (locationThing, domain/event-order.ts): an older event → SyncSkipped.
 *    Its position moves to this event once the location and every listed area are recorded.
 * 4. Location, keyed on (install, locationRef): write an intent marker, create, record the id.
 *    A marker already CREATED → reuse its id (no call). A create whose answer was lost is looked
 *    up at once (exactly one match → its id, below); otherwise it keeps its marker and is retried.
 *    A marker still CREATING (lost answer or crash: the service may hold the location) is
 *    reconciled by reading the install's locations (LOCATION_LOOKUP_RESOURCE,
 *    matched on CompanyName and Code, not older than the marker less the clock skew, not
 *    recorded for another locationRef): exactly one → record its id and go on; none → the create
 *    did not happen, take the marker over and create; several, a lookup refused by the service,
 *    or no lookup configured → SyncFailed LOCATION_OUTCOME_UNKNOWN (a person checks the install).
 *    A create that certainly created nothing (refused, or never reached the service) releases
 *    the marker: refusals → SyncFailed with the service's code, the rest are retried.
 * 5. Each area the same way under the location's record (AREA_LOOKUP_RESOURCE, matched on
 *    Company = location id and OperationalUnitName) → AREA_OUTCOME_UNKNOWN when it cannot tell.
 *    A redelivery after a crash between steps therefore finishes the missing areas and creates
 *    no second location or area. The same holds for a later event on a location that exists: it
 *    reuses the recorded location (no call) and each area recorded under the same name, and
 *    creates only the areas not recorded yet.
 */
export async function provisionLocation(
  { event, detail }: UseCaseInput<LocationCreatedDetail>,
  { store, service, clock, config, interruptions, lastWriterWins }: Dependencies,
): Promise<OutboundEvent[]> {
  if (!detail.isWorkplace && !detail.isPayrollEntity) {
    throw new PermanentError(
      'LOCATION_ROLE_REQUIRED',
      `location ${detail.locationRef}: at least one of isWorkplace and isPayrollEntity must be true`,
    );
  }
  const business = await provisionedBusinessOf(store, detail.accountId);
  const location = locationThing(detail.locationRef);
  const order = await EventOrder.read(store, business.hostname, event, detail, [location], {
    lastWriterWins,
  });
  if (!order.applies(location)) return order.syncSkipped();
  const install = service.install(business.hostname);
  const creation: Creation = {
    store,
    install,
    event,
    at: () => clock.now(),
    lookups: { location: config.locationLookupResource, area: config.areaLookupResource },
  };

  const ensuredLocation = await ensureLocation(creation, detail);
  // The location is recorded, its areas are not: the redelivery must reuse it.
  interruptions?.at('provision-location.after-location');
  const areas = detail.areas ?? [{ name: detail.name }];
  const provisioned: Array<{ name: string; areaId: number; created: boolean }> = [];
  for (const area of areas) {
    const ensured = await ensureArea(creation, detail.locationRef, ensuredLocation.id, area);
    provisioned.push({ name: area.name, areaId: ensured.id, created: ensured.created });
    interruptions?.at('provision-location.between-areas');
  }

  await order.applied([location], clock.now());
  await recordSyncSuccess(store, detail.accountId, clock.now());
  return [
    {
      detailType: 'LocationProvisioned',
      detail: {
        hostname: business.hostname,
        locationRef: detail.locationRef,
        locationId: ensuredLocation.id,
        created: ensuredLocation.created,
        areas: provisioned,
      },
    },
  ];
}

/**
 * A location or area the event needs, and whether this event created it: its marker names the
 * event whose create call made it (a redelivery of that event, after a crash, still says created).
 */
interface Ensured {
  id: number;
  created: boolean;
}

interface Creation {
  store: Store;
  install: InstallClient;
  event: UseCaseEvent;
  at: () => Date;
  /** QUERY resources that read locations and areas back; null: no lookup configured. */
  lookups: { location: string | null; area: string | null };
}

export function locationRequest(detail: LocationCreatedDetail): LocationRequest {
  return {
    CompanyName: detail.name,
    ...(detail.code === undefined ? {} : { Code: detail.code }),
    ...(detail.tradingName === undefined ? {} : { TradingName: detail.tradingName }),
    ...(detail.address === undefined ? {} : { Address: detail.address }),
    IsWorkplace: detail.isWorkplace ? 1 : 0,
    IsPayrollEntity: detail.isPayrollEntity ? 1 : 0,
    ...(detail.payrollExportCode === undefined ? {} : { PayrollExportCode: detail.payrollExportCode }),
    ...(detail.parentLocationId === undefined ? {} : { ParentCompany: detail.parentLocationId }),
    Active: detail.active,
  };
}

export function areaRequest(locationId: number, area: LocationArea): AreaRequest {
  return {
    intCompanyId: locationId,
    strOpunitName: area.name,
    ...(area.exportName === undefined ? {} : { strExportName: area.exportName }),
    ...(area.address === undefined ? {} : { strAddress: area.address }),
    intOpunitType: area.geographic ? 1 : 0,
  };
}

async function ensureLocation(creation: Creation, detail: LocationCreatedDetail): Promise<Ensured> {
  const { store, install, event } = creation;
  const { hostname } = install;
  let claimedAt = creation.at();
  const claim = await claimLocationCreate(store, hostname, detail.locationRef, {
    eventId: event.id,
    at: claimedAt,
  });
  if (!claim.claimed) {
    const { existing } = claim;
    const byThisEvent = existing.eventId === event.id;
    if (existing.status === 'CREATED' && existing.locationId !== undefined) {
      return { id: existing.locationId, created: byThisEvent };
    }
    const outcome = await earlierLocationOutcome(creation, detail, existing);
    if (outcome.kind === 'created') {
      await recordLocationCreated(store, hostname, detail.locationRef, outcome.id);
      return { id: outcome.id, created: byThisEvent };
    }
    if (outcome.kind === 'unknown') {
      throw new PermanentError(
        'LOCATION_OUTCOME_UNKNOWN',
        `location ${detail.locationRef}: an earlier attempt (event ${existing.eventId}, ${existing.claimedAt}) may have created it in the install but its id was never recorded and ${outcome.reason}; not created again to avoid a duplicate — check the install and record or remove the marker`,
      );
    }
    const held = { eventId: existing.eventId, claimedAt: existing.claimedAt };
    claimedAt = creation.at();
    const intent = { eventId: event.id, at: claimedAt };
    if (!(await reclaimLocationCreate(store, hostname, detail.locationRef, held, intent))) {
      throw new OutcomeUnknownError(
        `location ${detail.locationRef}: its marker changed while it was reconciled; retried`,
      );
    }
  }

  let locationId: number;
  try {
    ({ locationId } = await install.createLocation(locationRequest(detail)));
  } catch (error) {
    if (certainlyNotCreated(error)) {
      await releaseLocationClaim(store, hostname, detail.locationRef, event.id);
      if (error instanceof ServiceRejectedError) throw serviceRejection('create location', error);
      throw error;
    }
    if (error instanceof OutcomeUnknownError) {
      // A location found now is conclusive; finding none is not yet (a timed-out request may
      // still be applied), so that waits for the redelivery with the marker kept.
      const found = await settledNow(() => earlierLocationOutcome(creation, detail, { claimedAt }));
      if (found === undefined) throw error;
      locationId = found;
    } else {
      throw new PermanentError(
        'LOCATION_OUTCOME_UNKNOWN',
        `location ${detail.locationRef}: the create call may have been applied but no id came back (${(error as Error).message}); not repeated to avoid a duplicate`,
        { cause: error },
      );
    }
  }
  await recordLocationCreated(store, hostname, detail.locationRef, locationId);
  return { id: locationId, created: true };
}

async function ensureArea(
  creation: Creation,
  locationRef: string,
  locationId: number,
  area: LocationArea,
): Promise<Ensured> {
  const { store, install, event } = creation;
  const { hostname } = install;
  let claimedAt = creation.at();
  const claim = await claimAreaCreate(store, hostname, locationRef, area.name, {
    eventId: event.id,
    at: claimedAt,
  });
  if (!claim.claimed) {
    const { existing } = claim;
    const byThisEvent = existing.eventId === event.id;
    if (existing.status === 'CREATED' && existing.areaId !== undefined) {
      return { id: existing.areaId, created: byThisEvent };
    }
    const outcome = await earlierAreaOutcome(
      creation,
      { locationRef, locationId, name: area.name },
      existing,
    );
    if (outcome.kind === 'created') {
      await recordAreaCreated(store, hostname, locationRef, area.name, outcome.id);
      return { id: outcome.id, created: byThisEvent };
    }
    if (outcome.kind === 'unknown') {
      throw new PermanentError(
        'AREA_OUTCOME_UNKNOWN',
        `area ${area.name} of location ${locationRef}: an earlier attempt (event ${existing.eventId}, ${existing.claimedAt}) may have created it but its id was never recorded and ${outcome.reason}; not created again to avoid a duplicate`,
      );
    }
    const held = { eventId: existing.eventId, claimedAt: existing.claimedAt };
    claimedAt = creation.at();
    const intent = { eventId: event.id, at: claimedAt };
    if (!(await reclaimAreaCreate(store, hostname, locationRef, area.name, held, intent))) {
      throw new OutcomeUnknownError(
        `area ${area.name} of location ${locationRef}: its marker changed while it was reconciled; retried`,
      );
    }
  }

  let areaId: number;
  try {
    ({ areaId } = await install.createArea(areaRequest(locationId, area)));
  } catch (error) {
    if (certainlyNotCreated(error)) {
      await releaseAreaClaim(store, hostname, locationRef, area.name, event.id);
      if (error instanceof ServiceRejectedError) throw serviceRejection(`create area ${area.name}`, error);
      throw error;
    }
    if (error instanceof OutcomeUnknownError) {
      const lost = { locationRef, locationId, name: area.name };
      const found = await settledNow(() => earlierAreaOutcome(creation, lost, { claimedAt }));
      if (found === undefined) throw error;
      areaId = found;
    } else {
      throw new PermanentError(
        'AREA_OUTCOME_UNKNOWN',
        `area ${area.name} of location ${locationRef}: the create call may have been applied but no id came back (${(error as Error).message}); not repeated to avoid a duplicate`,
        { cause: error },
      );
    }
  }
  await recordAreaCreated(store, hostname, locationRef, area.name, areaId);
  return { id: areaId, created: true };
}

/**
 * What an earlier, unanswered location create did: the install's locations named like the event
 * (and coded like it, when it gives a code), not older than the marker, and not recorded for
 * another locationRef of the install.
 */
async function earlierLocationOutcome(
  creation: Creation,
  detail: LocationCreatedDetail,
  marker: { claimedAt: string | Date },
): Promise<CreateOutcome<number>> {
  const resource = creation.lookups.location;
  if (resource === null) return { kind: 'unknown', reason: 'no location lookup is configured' };
  const conditions: QueryCondition[] = [{ field: 'CompanyName', type: 'eq', data: detail.name }];
  if (detail.code !== undefined) conditions.push({ field: 'Code', type: 'eq', data: detail.code });
  const found = await lookUp(creation.install, resource, conditions, locationRecordSchema);
  if (!found.ok) return { kind: 'unknown', reason: found.reason };

  const since = earliestCreation(marker.claimedAt);
  const recordedElsewhere = new Set(
    (await listLocations(creation.store, creation.install.hostname))
      .filter((location) => location.locationRef !== detail.locationRef)
      .map((location) => location.locationId),
  );
  // Matched again here: the spec does not show that several conditions are combined.
  const candidates = found.records
    .filter(
      (record) =>
        record.CompanyName === detail.name &&
        (detail.code === undefined || record.Code === detail.code) &&
        createdAtOrAfter(record, since) &&
        !recordedElsewhere.has(record.Id),
    )
    .map((record) => record.Id);
  return outcomeOf(candidates, `locations named ${detail.name}`);
}

/** The area counterpart: areas of the location with the area's name, not recorded for another area. */
async function earlierAreaOutcome(
  creation: Creation,
  area: { locationRef: string; locationId: number; name: string },
  marker: { claimedAt: string | Date },
): Promise<CreateOutcome<number>> {
  const resource = creation.lookups.area;
  if (resource === null) return { kind: 'unknown', reason: 'no area lookup is configured' };
  const found = await lookUp(
    creation.install,
    resource,
    [
      { field: 'Company', type: 'eq', data: area.locationId },
      { field: 'OperationalUnitName', type: 'eq', data: area.name },
    ],
    areaRecordSchema,
  );
  if (!found.ok) return { kind: 'unknown', reason: found.reason };

  const since = earliestCreation(marker.claimedAt);
  const location = await getLocation(creation.store, creation.install.hostname, area.locationRef);
  const recordedElsewhere = new Set(
    Object.entries(location?.areas ?? {})
      .filter(([name]) => name !== area.name)
      .map(([, recorded]) => recorded.areaId),
  );
  const candidates = found.records
    .filter(
      (record) =>
        record.Company === area.locationId &&
        record.OperationalUnitName === area.name &&
        createdAtOrAfter(record, since) &&
        !recordedElsewhere.has(record.Id),
    )
    .map((record) => record.Id);
  return outcomeOf(candidates, `areas named ${area.name}`);
}

/**
 * The id of the record a create whose answer was just lost made, when a lookup right away finds
 * exactly one; undefined for anything less certain (none yet, several, the lookup failing), which
 * the redelivery settles.
 */
async function settledNow(lookUpOutcome: () => Promise<CreateOutcome<number>>): Promise<number | undefined> {
  try {
    const outcome = await lookUpOutcome();
    return outcome.kind === 'created' ? outcome.id : undefined;
  } catch {
    return undefined;
  }
}

type LookUp<T> = { ok: true; records: T[] } | { ok: false; reason: string };

/**
 * A lookup the service refuses (404: the resource does not exist at the real service, or any
 * other 4xx) cannot tell what happened; 429/5xx/timeouts are retried like any other call.
 */
async function lookUp<T extends z.ZodType>(
  install: InstallClient,
  resource: string,
  conditions: QueryCondition[],
  schema: T,
): Promise<LookUp<z.output<T>>> {
  try {
    // A cut answer could hide the record: a lookup that reaches the QUERY maximum cannot tell.
    return { ok: true, records: await install.queryComplete(resource, { conditions }, schema) };
  } catch (error) {
    if (error instanceof PermanentError) {
      return { ok: false, reason: `the lookup on ${resource} failed (${error.code}: ${error.message})` };
    }
    throw error;
  }
}
