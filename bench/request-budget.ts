import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createRequestBudget } from '#functions/store/request-budget.ts';
import { createStore, type Store } from '#functions/store/store.ts';
import type { BenchEnvironment } from './environment.ts';
import { median } from './stats.ts';

/**
 * Issue #15: what the shared request budget costs each service call — DynamoDB requests and time
 * per take — on one bucket taken by one worker (steady), and by `workers` budgets at once (the
 * Lambdas of a busy route contending for one install's bucket). Rates are high enough that no
 * take waits: what is measured is the bookkeeping, not throttling.
 */

export interface BudgetCost {
  readonly workers: number;
  readonly takes: number;
  /** DynamoDB requests per take (conditional updates, plus a read when a race is lost). */
  readonly requestsPerTake: number;
  readonly msPerTakeMedian: number;
}

export async function measureRequestBudgetCost(
  environment: BenchEnvironment,
  { takes, workers }: { takes: number; workers: readonly number[] },
): Promise<BudgetCost[]> {
  const client = new DynamoDBClient({
    region: environment.runtime.region,
    endpoint: environment.runtime.dynamoEndpoint,
    credentials: { accessKeyId: 'AKIABENCHBUDGET', secretAccessKey: 'bench' },
  });
  const store: Store = createStore({ client, tableName: environment.runtime.tableName });
  try {
    return await measureWith(store, takes, workers);
  } finally {
    client.destroy();
  }
}

async function measureWith(store: Store, takes: number, workers: readonly number[]): Promise<BudgetCost[]> {
  const results: BudgetCost[] = [];
  for (const count of workers) {
    let requests = 0;
    const durations: number[] = [];
    const scope = { kind: 'install', hostname: `bench-budget-${count}-${Date.now()}.sandbox.test` } as const;
    const budgets = Array.from({ length: count }, () =>
      createRequestBudget({
        store,
        settings: {
          provisioning: { ratePerSecond: 100_000, burst: 100_000 },
          install: { ratePerSecond: 100_000, burst: 100_000 },
        },
        onTake: (info) => {
          requests += info.requests;
        },
      }),
    );
    const perWorker = Math.ceil(takes / count);
    await Promise.all(
      budgets.map(async (budget) => {
        for (let index = 0; index < perWorker; index++) {
          const started = performance.now();
          await budget.take(scope);
          durations.push(performance.now() - started);
        }
      }),
    );
    results.push({
      workers: count,
      takes: perWorker * count,
      requestsPerTake: requests / (perWorker * count),
      msPerTakeMedian: median(durations),
    });
  }
  return results;
}
