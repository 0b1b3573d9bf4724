import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { createLambdaContext, type LambdaHandler } from '#local/aws/lambda.ts';
import {
  type LocalRuntime,
  type LocalRuntimeOptions,
  type RuntimeActivity,
  startLocalRuntime,
} from '#local/runtime.ts';
import {
  instrumentSdkClients,
  type RecordedRequest,
  RequestRecorder,
  type ServiceProxy,
  startServiceProxy,
} from './recorder.ts';
import { fromServiceStateMet, type ServiceRequestLike } from './service-state.ts';
import { fromStateMet, type ItemImage, replayedFrom, TableState } from './table-state.ts';
import { accountCreated, sqsBatch } from './workload.ts';

/**
 * Everything the bench measures against, in this one process: the local runtime (the connector's
 * synthesized template: sandbox, dynalite with the template's table, the AWS endpoint, every
 * function), with the service reached through a recording proxy in front of the sandbox (the
 * template is synthesized with the proxy's address), and the recorder on the shared SDK clients.
 */
export interface BenchEnvironment {
  readonly runtime: LocalRuntime;
  readonly recorder: RequestRecorder;
  readonly serviceProxy: ServiceProxy;
  /** What the handlers (and the cold-start children) run with. */
  readonly environment: Readonly<Record<string, string>>;
  handler(functionName: string): Promise<LambdaHandler>;
  contextFor(functionName: string): Context;
  /** Provisions fresh accounts through the real provision-business handler; returns their ids. */
  provisionAccounts(count: number): Promise<string[]>;
  /** The table as it is now, and the service: what a raw replay starts from. */
  readStateMet(): Promise<StateMet>;
  /** Hears everything the local runtime does (events put, batches run) until the returned function is called. */
  onActivity(listener: (activity: RuntimeActivity) => void): () => void;
  close(): Promise<void>;
}

/**
 * What a raw replay starts from: the table (read once, then kept up to date by each replay) and the
 * service, as the recorded handler met them.
 */
export interface StateMet {
  readonly table: TableState;
  /** Runs `replay` from the state `handlerRequests` met (bench/table-state.ts, bench/service-state.ts). */
  replay<T>(handlerRequests: readonly RecordedRequest[], replay: () => Promise<T>): Promise<T>;
  /** The same from before-images taken earlier (a cold start's recorded invocation, replayed each round). */
  replayFrom<T>(
    images: readonly ItemImage[],
    handlerRequests: readonly ServiceRequestLike[],
    replay: () => Promise<T>,
  ): Promise<T>;
}

export async function startBenchEnvironment(
  options: Pick<LocalRuntimeOptions, 'seed' | 'orderedDelivery' | 'announce'> = {},
): Promise<BenchEnvironment> {
  const recorder = new RequestRecorder();
  let serviceProxy: ServiceProxy | undefined;
  const listeners = new Set<(activity: RuntimeActivity) => void>();
  const runtime = await startLocalRuntime({
    ...options,
    logLevel: 'ERROR',
    // The recorder counts DynamoDB requests through the handlers' own client (instrumentSdkClients).
    functionModules: 'shared',
    // Nothing waits locally that the bench does not ask for: failed records come back at once.
    timeScale: 0,
    onActivity: (activity) => {
      for (const listener of listeners) listener(activity);
    },
    serviceProxy: async (sandboxUrl) => {
      serviceProxy = await startServiceProxy(sandboxUrl, recorder);
      return serviceProxy;
    },
  });
  // The variables of a route function (all route functions share them): what cold-start children get.
  const environment = runtime.functionEnvironment('provision-business');
  instrumentSdkClients(recorder);

  // The bench's own client for reading and putting back the table, built here: the handlers' shared
  // client takes its region from the invocation's variables, which are not set between invocations.
  const tableClient = new DynamoDBClient({
    endpoint: runtime.dynamoEndpoint,
    region: runtime.region,
    credentials: { accessKeyId: 'AKIABENCHTABLESTATE0', secretAccessKey: 'bench' },
  });
  const handler = (functionName: string) => runtime.functionNamed(functionName).handler();
  const contextFor = (functionName: string) =>
    createLambdaContext(runtime.functionNamed(functionName).settings);

  const provisionAccounts = async (count: number): Promise<string[]> => {
    const provision = await handler('provision-business');
    const accounts: string[] = [];
    for (let start = 0; start < count; start += 10) {
      const entries = Array.from({ length: Math.min(10, count - start) }, () => accountCreated());
      const response = (await provision(sqsBatch(entries), contextFor('provision-business'))) as {
        batchItemFailures?: unknown[];
      };
      if ((response.batchItemFailures ?? []).length > 0) {
        throw new Error(`provisioning ${entries.length} bench accounts failed`);
      }
      accounts.push(...entries.map((entry) => entry.detail.accountId));
    }
    return accounts;
  };

  return {
    runtime,
    recorder,
    serviceProxy: serviceProxy as ServiceProxy,
    environment,
    handler,
    contextFor,
    provisionAccounts,
    readStateMet: async () => {
      const table = await TableState.read(tableClient, runtime.tableName);
      const withService =
        <T>(requests: readonly ServiceRequestLike[], replay: () => Promise<T>) =>
        () =>
          fromServiceStateMet(runtime.sandboxUrl, requests, replay);
      return {
        table,
        replay: (requests, replay) => fromStateMet(table, requests, withService(requests, replay)),
        replayFrom: (images, requests, replay) => replayedFrom(table, images, withService(requests, replay)),
      };
    },
    onActivity: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: async () => {
      tableClient.destroy();
      await runtime.close();
    },
  };
}
