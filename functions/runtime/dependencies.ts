import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { TokenMissingError } from '#functions/domain/errors.ts';
import { createPublisher, type OutboundContracts, type Publisher } from '#functions/publisher/publisher.ts';
import { dynamoDbClient } from '#functions/runtime/clients/dynamodb.ts';
import { eventBridgeClient } from '#functions/runtime/clients/eventbridge.ts';
import type { ConnectorConfig } from '#functions/runtime/config.ts';
import { ConnectorMetric, MetricName } from '#functions/runtime/metric-names.ts';
import { addConnectorMetric, logger, metrics } from '#functions/runtime/observability.ts';
import { serviceClientAssumptions } from '#functions/service/assumptions.ts';
import { createServiceClient, type ServiceClient } from '#functions/service/client.ts';
import { tokenFromSecret } from '#functions/service/token.ts';
import { type BudgetTake, createRequestBudget } from '#functions/store/request-budget.ts';
import { createStore, type Store } from '#functions/store/store.ts';

/**
 * The collaborators every use case receives: tests build their own set against the
 * sandbox and dynalite or against fakes; handlers get the process-wide set from
 * `buildDependencies`, whose publisher knows only the outbound contracts it is given (a handler
 * passes its own, so its bundle constructs no other schema; tools and tests may pass the registry).
 */
export interface Dependencies {
  config: ConnectorConfig;
  store: Store;
  service: ServiceClient;
  publisher: Publisher;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /**
   * Told when a multi-step use case is between two steps that a dying process could separate (a
   * create call and recording its id, two areas of one location). Deployed functions have none;
   * the chaos run injects one that sometimes throws there (scripts/chaos/crash-points.ts), so the
   * guards that make such a death harmless are proven by it.
   */
  interruptions?: Interruptions;
  /**
   * `false` switches off last writer wins (domain/event-order.ts): every event applies whatever
   * was applied before it, so the service ends with the event that arrived last. Local runs only
   * (DependencyOptions.lastWriterWins: the chaos test shows its order check failing without the
   * guard); deployed functions are built with no options, so absent, and the guard is on.
   */
  lastWriterWins?: false;
}

export interface Interruptions {
  /** `point` names the place, e.g. `provision-business.after-signup`; throwing simulates a death there. */
  at(point: string): void;
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * What a local run adds to a function's collaborators (local/function-host.ts passes them to the
 * handler module's `createHandler`). Deployed functions are built with none.
 */
export interface DependencyOptions {
  /** The chaos run's crash points (scripts/chaos/crash-points.ts). */
  readonly interruptions?: Interruptions;
  /** Hears every take of the request budget (the chaos run measures when calls waited on it). */
  readonly budgetObserver?: (take: BudgetTake) => void;
  /**
   * `false` switches off last writer wins for the functions of this run (Dependencies.lastWriterWins):
   * for a test that shows the chaos run's order check failing without the guard. There is no
   * environment variable or configuration for it, so a deployment cannot turn it off.
   */
  readonly lastWriterWins?: false;
}

/**
 * Builds a function's collaborators for a function that publishes `publishes`; a handler builds
 * them once per execution environment (at cold start, or on its first record). Nothing here calls
 * AWS or the service: the token is read from Secrets Manager on the first service call.
 */
export function buildDependencies(
  config: ConnectorConfig,
  publishes: OutboundContracts,
  options: DependencyOptions = {},
): Dependencies {
  const token = tokenFromSecret(config.tokenSecretId);
  const store = createStore({ tableName: config.tableName, client: dynamoDbClient() });
  const service = createServiceClient({
    partnerName: config.partnerName,
    provisioningUrls: config.provisioningUrls,
    installUrlTemplate: config.installUrlTemplate,
    ...(config.allowedHostnameSuffixes ? { allowedHostnameSuffixes: config.allowedHostnameSuffixes } : {}),
    // A missing or refused token is counted for the alarm that says so (lib/: TokenProblems).
    token: async () => {
      try {
        return await token();
      } catch (error) {
        if (error instanceof TokenMissingError) {
          addConnectorMetric(ConnectorMetric.TokenProblems, ['code', error.code]);
        }
        throw error;
      }
    },
    onTokenRejected: () => {
      token.invalidate();
      addConnectorMetric(ConnectorMetric.TokenProblems, ['code', 'TOKEN_REJECTED']);
    },
    timeoutMs: config.httpTimeoutMs,
    hourBudgetType: config.hourBudgetType,
    ...(config.requestBudget
      ? {
          budget: createRequestBudget({
            store,
            settings: config.requestBudget,
            onTake: (take) => {
              if (take.waitedMs > 0) {
                metrics.addMetric(MetricName.BudgetWaitMs, MetricUnit.Milliseconds, take.waitedMs);
              }
              options.budgetObserver?.(take);
            },
          }),
        }
      : {}),
    ...serviceClientAssumptions(config.serviceAssumptions),
    logger: {
      debug: (message, attributes) => logger.debug(message, attributes ?? {}),
      warn: (message, attributes) => logger.warn(message, attributes ?? {}),
    },
    onRequest: (info) => {
      metrics.addMetric(MetricName.ServiceCalls, MetricUnit.Count, 1);
      if (info.attempt > 1) metrics.addMetric(MetricName.ServiceRetries, MetricUnit.Count, 1);
    },
  });

  const dependencies: Dependencies = {
    config,
    store,
    service,
    publisher: createPublisher({
      contracts: publishes,
      client: eventBridgeClient(),
      busName: config.eventBusName,
      source: config.outboundSource,
    }),
    clock: systemClock,
    logger,
    metrics,
    ...(options.interruptions ? { interruptions: options.interruptions } : {}),
    ...(options.lastWriterWins === false ? { lastWriterWins: false as const } : {}),
  };
  return dependencies;
}
