/**
 * BudgetSet → save one wage or hour budget metric per day at local midnight.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: saveBudget → secondary adapters:
 * service client, store, publisher.
 */
import * as budgetSet from '#functions/contracts/inbound/budget-set.ts';
import * as budgetSaved from '#functions/contracts/outbound/budget-saved.ts';
import * as syncSkipped from '#functions/contracts/outbound/sync-skipped.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { saveBudget } from './save-budget.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createRouteHandler({
    contract: budgetSet,
    // SyncSkipped: an event older than one already applied to the same thing (last writer wins).
    publishes: [budgetSaved, syncSkipped],
    useCase: saveBudget,
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
