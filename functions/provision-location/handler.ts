/**
 * LocationCreated → create the location (supervise/company) and its areas (supervise/department).
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: provisionLocation → secondary
 * adapters: service client, store (intent markers per location and area), publisher.
 */
import * as locationCreated from '#functions/contracts/inbound/location-created.ts';
import * as locationProvisioned from '#functions/contracts/outbound/location-provisioned.ts';
import * as syncSkipped from '#functions/contracts/outbound/sync-skipped.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { provisionLocation } from './provision-location.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createRouteHandler({
    contract: locationCreated,
    // SyncSkipped: an event older than one already applied to the same thing (last writer wins).
    publishes: [locationProvisioned, syncSkipped],
    useCase: provisionLocation,
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
