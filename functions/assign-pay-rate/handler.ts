/**
 * PayRateAssigned → one library assignment and one employees:bulk → PayRatesAssigned.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: assignPayRate → secondary
 * adapters: service client, store, publisher.
 */
import * as payRateAssigned from '#functions/contracts/inbound/pay-rate-assigned.ts';
import * as payRatesAssigned from '#functions/contracts/outbound/pay-rates-assigned.ts';
import * as syncSkipped from '#functions/contracts/outbound/sync-skipped.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { assignPayRate } from './assign-pay-rate.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createRouteHandler({
    contract: payRateAssigned,
    publishes: [payRatesAssigned, syncSkipped],
    useCase: assignPayRate,
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
