/**
 * PlanChosen → convert (upgrade) or cancel the business's subscription.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: changePlan → secondary adapters:
 * service client, store, publisher.
 */
import * as planChosen from '#functions/contracts/inbound/plan-chosen.ts';
import * as planChanged from '#functions/contracts/outbound/plan-changed.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { changePlan } from './change-plan.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createRouteHandler({
    contract: planChosen,
    publishes: [planChanged],
    useCase: changePlan,
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
