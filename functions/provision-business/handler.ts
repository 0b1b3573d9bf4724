/**
 * AccountCreated → provision a business in the service.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler: decode, idempotency per event id, SyncFailed
 * or retry per record) → use case: provisionBusiness → secondary adapters: service client, store,
 * publisher.
 */
import * as accountCreated from '#functions/contracts/inbound/account-created.ts';
import * as businessProvisioned from '#functions/contracts/outbound/business-provisioned.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { provisionBusiness } from './provision-business.ts';

export const handler = createRouteHandler({
  contract: accountCreated,
  publishes: [businessProvisioned],
  useCase: provisionBusiness,
});
