import type { Context } from 'aws-lambda';
import { queueRoutes, scheduledFunctions } from '#functions/routes.ts';
import type { LambdaHandler } from '#local/lambda.ts';
import { createLambdaContext } from '#local/lambda.ts';
import { type LocalRuntime, loadHandler, startLocalRuntime } from '#local/runtime.ts';
import { instrumentSdkClients, RequestRecorder, type ServiceProxy, startServiceProxy } from './recorder.ts';
import { accountCreated, sqsBatch } from './workload.ts';

/**
 * Everything the bench measures against, in this one process: the local runtime (sandbox, dynalite
 * with the stack's table, the PutEvents/GetSecretValue server, every handler), a recording proxy in
 * front of the sandbox, and the recorder on the shared SDK clients. Handlers read their environment
 * when first imported, so the proxy address is in process.env before any handler loads.
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
  close(): Promise<void>;
}

function definitionOf(functionName: string) {
  const definition =
    queueRoutes.find((route) => route.functionName === functionName) ??
    scheduledFunctions.find((fn) => fn.functionName === functionName);
  if (!definition) throw new Error(`no function ${functionName} in functions/routes.ts`);
  return definition;
}

export async function startBenchEnvironment(): Promise<BenchEnvironment> {
  const runtime = await startLocalRuntime({ ports: 'free', trialWatchEveryMs: 0, logLevel: 'ERROR' });
  const recorder = new RequestRecorder();
  const serviceProxy = await startServiceProxy(runtime.sandboxUrl, recorder);
  const environment: Record<string, string> = {
    ...runtime.environment,
    PROVISIONING_URLS: JSON.stringify({
      US: serviceProxy.url,
      UK: `${serviceProxy.url}/regions/uk`,
      AU: `${serviceProxy.url}/regions/au`,
    }),
    INSTALL_URL_TEMPLATE: `${serviceProxy.url}/installs/{hostname}`,
  };
  Object.assign(process.env, environment);
  instrumentSdkClients(recorder);

  const handler = (functionName: string) => loadHandler(definitionOf(functionName));
  const contextFor = (functionName: string) => {
    const definition = definitionOf(functionName);
    return createLambdaContext({
      functionName,
      region: runtime.region,
      timeoutMs: definition.timeoutSeconds * 1000,
      memoryMb: definition.memorySizeMb,
    });
  };

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
    serviceProxy,
    environment,
    handler,
    contextFor,
    provisionAccounts,
    close: async () => {
      await serviceProxy.close();
      await runtime.close();
    },
  };
}
