/**
 * Scheduled drift watch → BusinessEditionChanged / BusinessGone for changes the service made on
 * its own (it has no webhooks).
 *
 * primary adapter: EventBridge Scheduled Event (middy + Powertools logger/metrics) → use case:
 * driftWatch → secondary adapters: store (sparse sharded drift index, drift notices), service
 * client (subscription-status), publisher.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import * as businessEditionChanged from '#functions/contracts/outbound/business-edition-changed.ts';
import * as businessGone from '#functions/contracts/outbound/business-gone.ts';
import { outboundContractsOf } from '#functions/publisher/publisher.ts';
import { loadConfig } from '#functions/runtime/config.ts';
import { buildDependencies, type DependencyOptions } from '#functions/runtime/dependencies.ts';
import { type DriftWatchReport, driftWatch } from './drift-watch.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export function createHandler(dependencyOptions?: DependencyOptions) {
  // Cold start: a missing or invalid env var fails here, not on the first scheduled run.
  const dependencies = buildDependencies(
    loadConfig(),
    outboundContractsOf([businessEditionChanged, businessGone]),
    dependencyOptions,
  );
  return middy(
    (event: ScheduledEvent, context: Context): Promise<DriftWatchReport> =>
      driftWatch(
        {
          runId: event.id,
          scheduledTime: event.time,
          remainingTimeMs: () => context.getRemainingTimeInMillis(),
        },
        dependencies,
      ),
  )
    .use(injectLambdaContext(dependencies.logger))
    .use(logMetrics(dependencies.metrics));
}

export const handler = createHandler();
