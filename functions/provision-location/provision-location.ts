import type { LocationCreatedDetail } from '#functions/commons/contracts/inbound/location-created.ts';
import { crashPoint } from '#functions/commons/crash-points.ts';
import type { Dependencies } from '#functions/commons/dependencies.ts';
import { PermanentError, ServiceRejectedError } from '#functions/commons/errors.ts';
import { provisionedBusinessOf } from '#functions/commons/provisioned-business.ts';
import type { OutboundEvent } from '#functions/commons/publisher.ts';
import type { UseCaseEvent, UseCaseInput } from '#functions/commons/queue-handler.ts';
import type { InstallClient } from '#functions/commons/service/install.ts';
import type { AreaRequest, LocationRequest } from '#functions/commons/service/schemas.ts';
import { serviceRejection } from '#functions/commons/service-rejection.ts';
import { recordSyncSuccess } from '#functions/commons/store/business.ts';
import {
  claimAreaCreate,
  claimLocationCreate,
  recordAreaCreated,
  recordLocationCreated,
  releaseAreaClaim,
  releaseLocationClaim,
} from '#functions/commons/store/locations.ts';
import type { Store } from '#functions/commons/store/store.ts';
import { certainlyNotCreated } from './create-outcome.ts';

export type LocationArea = NonNullable<LocationCreatedDetail['areas']>[number];

/**
 * provisionLocation — LocationCreated → supervise/company, then supervise/department per area →
 * LocationProvisioned.
 *
 * Input: the LocationCreated detail (accountId, locationRef, name, code?, tradingName?, address?,
 * isWorkplace (default true), isPayrollEntity (default false), payrollExportCode?,
 * parentLocationId?, areas? [{name, exportName?, address?, geographic?}]).
 * Output: one `LocationProvisioned` {hostname, locationRef, locationId, areas [{name, areaId}]}
 * with the areas in the order of the event (one area named like the location when none is listed,
 * because the service creates none through the API and a location without an area records no time).
 *
 * Steps:
 * 1. Guard: at least one of isWorkplace / isPayrollEntity (the contract refines it already; the
 *    service would refuse the location otherwise) → LOCATION_ROLE_REQUIRED.
 * 2. Resolve the account's install from the table (never from the event); no ACTIVE business →
 *    RetryableError BUSINESS_NOT_PROVISIONED.
 * 3. Location, keyed on (install, locationRef): write an intent marker, create, record the id.
 *    A marker already CREATED → reuse its id (no call). A marker still CREATING (an earlier
 *    attempt crashed or lost the answer, the service may hold the location) → SyncFailed
 *    LOCATION_OUTCOME_UNKNOWN: a person checks the install rather than the connector risking a
 *    duplicate. A create that certainly created nothing (refused, or never reached the service)
 *    releases the marker: refusals → SyncFailed with the service's code, the rest are retried.
 * 4. Each area the same way under the location's record → AREA_OUTCOME_UNKNOWN when ambiguous.
 *    A redelivery after a crash between steps therefore finishes the missing areas and creates
 *    no second location or area.
 */
export async function provisionLocation(
  { event, detail }: UseCaseInput<LocationCreatedDetail>,
  { store, service, clock }: Dependencies,
): Promise<OutboundEvent[]> {
  if (!detail.isWorkplace && !detail.isPayrollEntity) {
    throw new PermanentError(
      'LOCATION_ROLE_REQUIRED',
      `location ${detail.locationRef}: at least one of isWorkplace and isPayrollEntity must be true`,
    );
  }
  const business = await provisionedBusinessOf(store, detail.accountId);
  const install = service.install(business.hostname);
  const creation: Creation = { store, install, event, at: () => clock.now() };

  const locationId = await ensureLocation(creation, detail);
  // The location is recorded, its areas are not: the redelivery must reuse it.
  crashPoint('provision-location.after-location');
  const areas = detail.areas ?? [{ name: detail.name }];
  const provisioned: Array<{ name: string; areaId: number }> = [];
  for (const area of areas) {
    provisioned.push({
      name: area.name,
      areaId: await ensureArea(creation, detail.locationRef, locationId, area),
    });
    crashPoint('provision-location.between-areas');
  }

  await recordSyncSuccess(store, detail.accountId, clock.now());
  return [
    {
      detailType: 'LocationProvisioned',
      detail: {
        hostname: business.hostname,
        locationRef: detail.locationRef,
        locationId,
        areas: provisioned,
      },
    },
  ];
}

interface Creation {
  store: Store;
  install: InstallClient;
  event: UseCaseEvent;
  at: () => Date;
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
    Active: true,
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

async function ensureLocation(creation: Creation, detail: LocationCreatedDetail): Promise<number> {
  const { store, install, event } = creation;
  const { hostname } = install;
  const claim = await claimLocationCreate(store, hostname, detail.locationRef, {
    eventId: event.id,
    at: creation.at(),
  });
  if (!claim.claimed) {
    const { existing } = claim;
    if (existing.status === 'CREATED' && existing.locationId !== undefined) return existing.locationId;
    throw new PermanentError(
      'LOCATION_OUTCOME_UNKNOWN',
      `location ${detail.locationRef}: an earlier attempt (event ${existing.eventId}, ${existing.claimedAt}) may have created it in the install but its id was never recorded; not created again to avoid a duplicate — check the install and record or remove the marker`,
    );
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
    throw new PermanentError(
      'LOCATION_OUTCOME_UNKNOWN',
      `location ${detail.locationRef}: the create call may have been applied but no id came back (${(error as Error).message}); not repeated to avoid a duplicate`,
      { cause: error },
    );
  }
  await recordLocationCreated(store, hostname, detail.locationRef, locationId);
  return locationId;
}

async function ensureArea(
  creation: Creation,
  locationRef: string,
  locationId: number,
  area: LocationArea,
): Promise<number> {
  const { store, install, event } = creation;
  const { hostname } = install;
  const claim = await claimAreaCreate(store, hostname, locationRef, area.name, {
    eventId: event.id,
    at: creation.at(),
  });
  if (!claim.claimed) {
    const { existing } = claim;
    if (existing.status === 'CREATED' && existing.areaId !== undefined) return existing.areaId;
    throw new PermanentError(
      'AREA_OUTCOME_UNKNOWN',
      `area ${area.name} of location ${locationRef}: an earlier attempt (event ${existing.eventId}, ${existing.claimedAt}) may have created it but its id was never recorded; not created again to avoid a duplicate`,
    );
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
    throw new PermanentError(
      'AREA_OUTCOME_UNKNOWN',
      `area ${area.name} of location ${locationRef}: the create call may have been applied but no id came back (${(error as Error).message}); not repeated to avoid a duplicate`,
      { cause: error },
    );
  }
  await recordAreaCreated(store, hostname, locationRef, area.name, areaId);
  return areaId;
}
