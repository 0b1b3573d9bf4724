/**
 * Scheduled drift watch → BusinessEditionChanged / BusinessGone for changes the service made on
 * its own (it has no webhooks).
 *
 * primary adapter: EventBridge Scheduled Event (middy + Powertools logger/metrics) → use case:
 * driftWatch → secondary adapters: store (sparse sharded drift index, drift notices), service
 * client (subscription-status), publisher.
 */
import * as businessEditionChanged from '#functions/contracts/outbound/business-edition-changed.ts';
import * as businessGone from '#functions/contracts/outbound/business-gone.ts';
import { outboundContractsOf } from '#functions/publisher/publisher.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createScheduledHandler } from '#functions/runtime/scheduled-handler.ts';
import { driftWatch } from './drift-watch.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createScheduledHandler({
    publishes: outboundContractsOf([businessEditionChanged, businessGone]),
    run: (input, dependencies) => driftWatch(input, dependencies),
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
