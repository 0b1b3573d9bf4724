/**
 * PayReturnsRequested → read each timesheet's pay returns (by id, or of a period) and publish them
 * normalized.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: readPayReturns → secondary
 * adapters: service client, store, publisher.
 */
import * as payReturnsRequested from '#functions/contracts/inbound/pay-returns-requested.ts';
import * as payReturnsCompleted from '#functions/contracts/outbound/pay-returns-completed.ts';
import * as payReturnsReady from '#functions/contracts/outbound/pay-returns-ready.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { readPayReturns } from './pay-returns.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createRouteHandler({
    contract: payReturnsRequested,
    publishes: [payReturnsReady, payReturnsCompleted],
    useCase: readPayReturns,
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
