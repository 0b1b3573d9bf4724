/**
 * AccountCreated → provision a business in the service.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler: decode, idempotency per event id, SyncFailed
 * or retry per record) → use case: provisionBusiness → secondary adapters: service client, store,
 * publisher.
 */
import * as accountCreated from '#functions/contracts/inbound/account-created.ts';
import * as businessProvisioned from '#functions/contracts/outbound/business-provisioned.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { provisionBusiness } from './provision-business.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createRouteHandler({
    contract: accountCreated,
    publishes: [businessProvisioned],
    useCase: provisionBusiness,
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
