/**
 * LocationCreated → create the location (supervise/company) and its areas (supervise/department).
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: provisionLocation → secondary
 * adapters: service client, store (intent markers per location and area), publisher.
 */
import * as locationCreated from '#functions/contracts/inbound/location-created.ts';
import * as locationProvisioned from '#functions/contracts/outbound/location-provisioned.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { provisionLocation } from './provision-location.ts';

export const handler = createRouteHandler({
  contract: locationCreated,
  publishes: [locationProvisioned],
  useCase: provisionLocation,
});
