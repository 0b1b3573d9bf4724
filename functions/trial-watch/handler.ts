/**
 * Scheduled trial watch → TrialExpiring / TrialEnded for businesses whose trial is ending.
 *
 * primary adapter: EventBridge Scheduled Event (middy + Powertools logger/metrics) → use case:
 * trialWatch → secondary adapters: store (sparse trial index, threshold claims), service client
 * (subscription-status), publisher.
 */
import * as trialEnded from '#functions/contracts/outbound/trial-ended.ts';
import * as trialExpiring from '#functions/contracts/outbound/trial-expiring.ts';
import { outboundContractsOf } from '#functions/publisher/publisher.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createScheduledHandler } from '#functions/runtime/scheduled-handler.ts';
import { trialWatch } from './trial-watch.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createScheduledHandler({
    publishes: outboundContractsOf([trialExpiring, trialEnded]),
    run: (input, dependencies) => trialWatch(input, dependencies),
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
