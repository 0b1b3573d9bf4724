/**
 * SubscriptionStatusRequested → ask the service, refresh the mapping, answer with SubscriptionStatus.
 *
 * primary adapter: SQS FIFO batch (createQueueHandler) → use case: reportSubscriptionStatus →
 * secondary adapters: service client, store, publisher.
 */
import { createQueueHandler } from '#functions/commons/queue-handler.ts';
import { reportSubscriptionStatus } from './report-subscription-status.ts';

export const handler = createQueueHandler({
  detailType: 'SubscriptionStatusRequested',
  useCase: reportSubscriptionStatus,
});
