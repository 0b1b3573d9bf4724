/**
 * BudgetSet → save one wage or hour budget metric per day at local midnight.
 *
 * primary adapter: SQS FIFO batch (createQueueHandler) → use case: saveBudget → secondary adapters:
 * service client, store, publisher.
 */
import { createQueueHandler } from '#functions/commons/queue-handler.ts';
import { saveBudget } from './save-budget.ts';

export const handler = createQueueHandler({ detailType: 'BudgetSet', useCase: saveBudget });
