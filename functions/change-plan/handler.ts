/**
 * PlanChosen → convert (upgrade) or cancel the business's subscription.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: changePlan → secondary adapters:
 * service client, store, publisher.
 */
import * as planChosen from '#functions/contracts/inbound/plan-chosen.ts';
import * as planChanged from '#functions/contracts/outbound/plan-changed.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { changePlan } from './change-plan.ts';

export const handler = createRouteHandler({
  contract: planChosen,
  publishes: [planChanged],
  useCase: changePlan,
});
