/**
 * SubscriptionStatusRequested → ask the service, refresh the mapping, answer with SubscriptionStatus.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: reportSubscriptionStatus →
 * secondary adapters: service client, store, publisher.
 */
import * as subscriptionStatusRequested from '#functions/contracts/inbound/subscription-status-requested.ts';
import * as subscriptionStatus from '#functions/contracts/outbound/subscription-status.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { reportSubscriptionStatus } from './report-subscription-status.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createRouteHandler({
    contract: subscriptionStatusRequested,
    publishes: [subscriptionStatus],
    useCase: reportSubscriptionStatus,
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
