import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { OutboundContracts } from '#functions/publisher/publisher.ts';
import { loadConfig } from '#functions/runtime/config.ts';
import {
  buildDependencies,
  type Dependencies,
  type DependencyOptions,
} from '#functions/runtime/dependencies.ts';

/** What a scheduled run is given: its id, "now", and the time the invocation has left. */
export interface ScheduledRun {
  /** Id of this run (the scheduled event id): every published event's causationId. */
  runId: string;
  /** The scheduled event's `time`, used as "now" (the local runtime: the sandbox clock). */
  scheduledTime?: string;
  /** Time left before the Lambda is stopped (context.getRemainingTimeInMillis). */
  remainingTimeMs: () => number;
}

/**
 * The runtime every scheduled Lambda (the watches) is built on: an EventBridge Scheduled Event →
 * the watch's use case, with Powertools logger and metrics as middy middlewares. The collaborators
 * are built when the handler is (its cold start): a missing or invalid env var fails there, not
 * on the first scheduled run.
 */
export function createScheduledHandler<Report>(options: {
  /** The outbound contract modules the watch publishes. */
  publishes: OutboundContracts;
  run: (input: ScheduledRun, dependencies: Dependencies) => Promise<Report>;
  /** What a local run adds to the collaborators (dependencies.ts). */
  dependencyOptions?: DependencyOptions;
}) {
  const dependencies = buildDependencies(loadConfig(), options.publishes, options.dependencyOptions);
  return middy(
    (event: ScheduledEvent, context: Context): Promise<Report> =>
      options.run(
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
