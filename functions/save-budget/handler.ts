/**
 * BudgetSet → save one wage or hour budget metric per day at local midnight.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: saveBudget → secondary adapters:
 * service client, store, publisher.
 */
import * as budgetSet from '#functions/contracts/inbound/budget-set.ts';
import * as budgetSaved from '#functions/contracts/outbound/budget-saved.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { saveBudget } from './save-budget.ts';

export const handler = createRouteHandler({
  contract: budgetSet,
  publishes: [budgetSaved],
  useCase: saveBudget,
});
