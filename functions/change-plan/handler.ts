/**
 * PlanChosen → convert (upgrade) or cancel the business's subscription.
 *
 * primary adapter: SQS FIFO batch (createQueueHandler) → use case: changePlan → secondary adapters:
 * service client, store, publisher.
 */
import { createQueueHandler } from '#functions/commons/queue-handler.ts';
import { changePlan } from './change-plan.ts';

export const handler = createQueueHandler({ detailType: 'PlanChosen', useCase: changePlan });
