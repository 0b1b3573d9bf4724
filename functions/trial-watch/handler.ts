/**
 * Scheduled trial watch → TrialExpiring / TrialEnded for businesses whose trial is ending.
 *
 * primary adapter: EventBridge Scheduled Event (middy + Powertools logger/metrics) → use case:
 * trialWatch → secondary adapters: store (sparse trial index, threshold claims), service client
 * (subscription-status), publisher.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import * as trialEnded from '#functions/contracts/outbound/trial-ended.ts';
import * as trialExpiring from '#functions/contracts/outbound/trial-expiring.ts';
import { outboundContractsOf } from '#functions/publisher/publisher.ts';
import { loadConfig } from '#functions/runtime/config.ts';
import { buildDependencies, type DependencyOptions } from '#functions/runtime/dependencies.ts';
import { type TrialWatchReport, trialWatch } from './trial-watch.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export function createHandler(dependencyOptions?: DependencyOptions) {
  // Cold start: a missing or invalid env var fails here, not on the first scheduled run.
  const dependencies = buildDependencies(
    loadConfig(),
    outboundContractsOf([trialExpiring, trialEnded]),
    dependencyOptions,
  );
  return middy(
    (event: ScheduledEvent, context: Context): Promise<TrialWatchReport> =>
      trialWatch(
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
