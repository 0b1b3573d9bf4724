/**
 * PlanChosen → convert (upgrade) or cancel the business's subscription.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: changePlan → secondary adapters:
 * service client, store, publisher.
 */
import * as planChosen from '#functions/contracts/inbound/plan-chosen.ts';
import * as planChanged from '#functions/contracts/outbound/plan-changed.ts';
import * as syncSkipped from '#functions/contracts/outbound/sync-skipped.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { changePlan } from './change-plan.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createRouteHandler({
    contract: planChosen,
    // SyncSkipped: an event older than one already applied to the same thing (last writer wins).
    publishes: [planChanged, syncSkipped],
    useCase: changePlan,
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
