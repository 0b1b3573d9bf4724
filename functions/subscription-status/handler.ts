/**
 * SubscriptionStatusRequested → ask the service, refresh the mapping, answer with SubscriptionStatus.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: reportSubscriptionStatus →
 * secondary adapters: service client, store, publisher.
 */
import * as subscriptionStatusRequested from '#functions/contracts/inbound/subscription-status-requested.ts';
import * as subscriptionStatus from '#functions/contracts/outbound/subscription-status.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { reportSubscriptionStatus } from './report-subscription-status.ts';

export const handler = createRouteHandler({
  contract: subscriptionStatusRequested,
  publishes: [subscriptionStatus],
  useCase: reportSubscriptionStatus,
});
