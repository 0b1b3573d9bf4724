/**
 * PayRatesRequested → each employee agreement's effective hourly rate and its origin.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: reportPayRates → secondary
 * adapters: service client, store, publisher.
 */
import * as payRatesRequested from '#functions/contracts/inbound/pay-rates-requested.ts';
import * as payRatesReported from '#functions/contracts/outbound/pay-rates-reported.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { reportPayRates } from './pay-rates.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createRouteHandler({
    contract: payRatesRequested,
    publishes: [payRatesReported],
    useCase: reportPayRates,
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
