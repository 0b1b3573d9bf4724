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
import {
  noteAccountCreatedReceivedFor,
  provisionBusiness,
  recordAccountCreatedFailure,
} from './provision-business.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createRouteHandler({
    contract: accountCreated,
    publishes: [businessProvisioned],
    useCase: provisionBusiness,
    // The account's other events wait for its business while this event is on its way, and end
    // at once when it ends in a SyncFailed (domain/provisioned-business.ts).
    onReceived: noteAccountCreatedReceivedFor,
    onFinalFailure: recordAccountCreatedFailure,
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
