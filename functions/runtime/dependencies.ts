import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { TokenMissingError } from '#functions/domain/errors.ts';
import { createPublisher, type OutboundContracts, type Publisher } from '#functions/publisher/publisher.ts';
import { dynamoDbClient } from '#functions/runtime/clients/dynamodb.ts';
import { eventBridgeClient } from '#functions/runtime/clients/eventbridge.ts';
import type { ConnectorConfig } from '#functions/runtime/config.ts';
import { localCollaborators } from '#functions/runtime/local-collaborators.ts';
import { ConnectorMetric, MetricName } from '#functions/runtime/metric-names.ts';
import { addConnectorMetric, logger, metrics } from '#functions/runtime/observability.ts';
import { serviceClientAssumptions } from '#functions/service/assumptions.ts';
import { createServiceClient, type ServiceClient } from '#functions/service/client.ts';
import { tokenFromSecret } from '#functions/service/token.ts';
import { createRequestBudget } from '#functions/store/request-budget.ts';
import { createStore, type Store } from '#functions/store/store.ts';

/**
 * The collaborators every use case receives (STYLE.md §2): tests build their own set against the
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
}

export interface Interruptions {
  /** `point` names the place, e.g. `provision-business.after-signup`; throwing simulates a death there. */
  at(point: string): void;
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

const built = new WeakMap<ConnectorConfig, WeakMap<OutboundContracts, Dependencies>>();

/**
 * Builds the collaborators once per process (module scope in handlers, i.e. at cold start) for a
 * function that publishes `publishes`. Nothing here calls AWS or the service: the token is read
 * from Secrets Manager on the first service call.
 */
export function buildDependencies(config: ConnectorConfig, publishes: OutboundContracts): Dependencies {
  const forConfig = built.get(config) ?? new WeakMap<OutboundContracts, Dependencies>();
  built.set(config, forConfig);
  const existing = forConfig.get(publishes);
  if (existing) return existing;

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
              localCollaborators().budgetObserver?.(take);
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
    // Read at each use, so a chaos run can start and stop its interruptions between runs.
    get interruptions() {
      return localCollaborators().interruptions;
    },
  };
  forConfig.set(publishes, dependencies);
  return dependencies;
}
