import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { queueRoutes, scheduledFunctions } from '#functions/routes.ts';
import { createTestStore, startDynalite } from '#local/dynalite.ts';
import { startSandbox } from '#sandbox/server.ts';
import { type DeliveryActivity, LocalBus, type LocalQueueRoute } from './delivery.ts';
import {
  type BusEvent,
  type DeadLetterView,
  type OutboundEvent,
  startEventsServer,
} from './events-server.ts';
import { invokeFunction, type LambdaHandler, scheduledEvent } from './lambda.ts';
import { LOCAL_DEFAULTS, type LocalEndpoints, localEnvironment, SERVE_PORTS } from './settings.ts';

/**
 * The whole connector on one machine: the sandbox, dynalite with the stack's table, the events
 * server (PutEvents + Secrets Manager + /_local) and every handler of the route table, run the way
 * Lambda runs them. `npm start`, `npm run invoke`, the end-to-end test and the chaos tool share it.
 *
 * Handlers read their environment at module load, and one process hosts all of them, so one
 * runtime per process: the environment is set before the first handler module is imported.
 */

/** A route as the route table (`functions/routes.ts`) describes it; fixtures use the same shape. */
export interface RouteDefinition {
  readonly detailType: string;
  readonly functionName: string;
  /** Repo-relative path of the handler module. */
  readonly entry: string;
  readonly handlerExport: string;
  readonly batchSize: number;
  readonly maxConcurrency: number;
  readonly maxReceiveCount: number;
  readonly timeoutSeconds: number;
  readonly memorySizeMb?: number;
}

export interface ScheduledDefinition {
  readonly functionName: string;
  readonly entry: string;
  readonly handlerExport: string;
  readonly timeoutSeconds: number;
  readonly memorySizeMb?: number;
}

export interface LocalRuntimeOptions {
  /**
   * `free`: every server on a free port (tests, `npm start`); `fixed`: 8787 / 8000 / 4010; or the
   * port of each server (0 = a free one). @default 'free'
   */
  readonly ports?: 'free' | 'fixed' | LocalPorts;
  /** @default queueRoutes of functions/routes.ts */
  readonly routes?: readonly RouteDefinition[];
  /** The function run by `runTrialWatch()` and the schedule. @default trial-watch of functions/routes.ts */
  readonly trialWatch?: ScheduledDefinition;
  /** How often the trial watch runs on its own; 0 turns the schedule off. @default 1 hour */
  readonly trialWatchEveryMs?: number;
  /** Delay before a failed record is received again. @default 250 ms (SQS: the visibility timeout) */
  readonly visibilityDelayMs?: number;
  readonly partnerName?: string;
  readonly token?: string;
  readonly tableName?: string;
  readonly busName?: string;
  /** Powertools log level of the handlers. @default WARN */
  readonly logLevel?: string;
  readonly onActivity?: (activity: DeliveryActivity | TrialWatchActivity) => void;
}

export interface LocalPorts {
  readonly sandbox: number;
  readonly dynamo: number;
  readonly events: number;
}

const FREE_PORTS: LocalPorts = { sandbox: 0, dynamo: 0, events: 0 };

export interface TrialWatchActivity {
  readonly kind: 'trial-watch';
  readonly trigger: 'schedule' | 'request';
  readonly result?: unknown;
  readonly error?: string;
}

export interface LocalRuntime extends LocalEndpoints {
  readonly inboundSource: string;
  readonly outboundSource: string;
  readonly region: string;
  /** The variables every handler runs with (also set on process.env). */
  readonly environment: Readonly<Record<string, string>>;
  outbound(): readonly OutboundEvent[];
  dlq(): readonly DeadLetterView[];
  /** Every event accepted by the events server, inbound and outbound, in arrival order. */
  published(): readonly BusEvent[];
  /** Runs the trial watch now with a Scheduled Event timed at the sandbox clock; resolves with its result. */
  runTrialWatch(): Promise<unknown>;
  /** Resolves once every queue is drained and no trial watch is running. */
  waitForIdle(): Promise<void>;
  close(): Promise<void>;
}

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const ONE_HOUR_MS = 60 * 60 * 1000;
let runningRuntime = false;

export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  if (runningRuntime) {
    throw new Error('a local runtime is already running in this process (handlers read process.env once)');
  }
  runningRuntime = true;
  const cleanup: Array<() => Promise<void>> = [];
  try {
    return await start(options, cleanup);
  } catch (error) {
    for (const close of cleanup.reverse()) await close().catch(() => undefined);
    runningRuntime = false;
    throw error;
  }
}

async function start(
  options: LocalRuntimeOptions,
  cleanup: Array<() => Promise<void>>,
): Promise<LocalRuntime> {
  const ports =
    options.ports === 'fixed'
      ? SERVE_PORTS
      : options.ports === undefined || options.ports === 'free'
        ? FREE_PORTS
        : options.ports;
  const region = LOCAL_DEFAULTS.region;
  const tableName = options.tableName ?? LOCAL_DEFAULTS.tableName;
  const busName = options.busName ?? LOCAL_DEFAULTS.busName;
  const token = options.token ?? LOCAL_DEFAULTS.token;
  const partnerName = options.partnerName ?? LOCAL_DEFAULTS.partnerName;

  const sandbox = await startSandbox({ port: ports.sandbox, partner: partnerName, token });
  cleanup.push(() => sandbox.close());
  const dynamo = await startDynalite({ port: ports.dynamo });
  cleanup.push(() => dynamo.close());
  // The table comes from the stack's own definition (createTableInput), not a local copy.
  const { client: tableClient } = await createTestStore(dynamo.endpoint, tableName);
  tableClient.destroy();

  const routes = (options.routes ?? queueRoutes).map(toLocalRoute);
  const trialWatch = options.trialWatch ?? scheduledFunctions.find((fn) => fn.functionName === 'trial-watch');
  if (!trialWatch) throw new Error('the route table has no trial-watch scheduled function');

  const bus = new LocalBus({
    region,
    inboundSource: LOCAL_DEFAULTS.inboundSource,
    outboundSource: LOCAL_DEFAULTS.outboundSource,
    routes,
    ...(options.visibilityDelayMs === undefined ? {} : { visibilityDelayMs: options.visibilityDelayMs }),
    ...(options.onActivity ? { onActivity: options.onActivity } : {}),
  });
  cleanup.push(() => bus.close());

  const trialWatchRuns = new Set<Promise<unknown>>();
  const runTrialWatch = (trigger: TrialWatchActivity['trigger']): Promise<unknown> => {
    const run = (async () => {
      try {
        const handler = await loadHandler(trialWatch);
        const at = await sandboxNow(sandbox.url);
        const result = await invokeFunction(
          handler,
          scheduledEvent(`${trialWatch.functionName}-schedule`, region, at),
          {
            functionName: trialWatch.functionName,
            region,
            timeoutMs: trialWatch.timeoutSeconds * 1000,
            ...(trialWatch.memorySizeMb === undefined ? {} : { memoryMb: trialWatch.memorySizeMb }),
          },
        );
        options.onActivity?.({ kind: 'trial-watch', trigger, result });
        return result;
      } catch (error) {
        options.onActivity?.({
          kind: 'trial-watch',
          trigger,
          error: error instanceof Error ? error.message : String(error),
        });
        throw error;
      }
    })();
    trialWatchRuns.add(run);
    run.then(
      () => trialWatchRuns.delete(run),
      () => trialWatchRuns.delete(run),
    );
    return run;
  };

  let eventsUrl = '';
  const events = await startEventsServer({
    port: ports.events,
    region,
    busName,
    secrets: { [LOCAL_DEFAULTS.tokenSecretId]: token },
    dispatch: bus.dispatch,
    control: {
      outbound: () => bus.outbound(),
      dlq: () => bus.dlq(),
      runTrialWatch: () => runTrialWatch('request'),
      health: () => ({
        sandbox: sandbox.url,
        dynamodb: dynamo.endpoint,
        events: eventsUrl,
        tableName,
        busName,
        queues: bus.queueDepths(),
        deadLetters: bus.dlq().length,
      }),
    },
  });
  cleanup.push(() => events.close());
  eventsUrl = events.url;

  const endpoints: LocalEndpoints = {
    sandboxUrl: sandbox.url,
    dynamoEndpoint: dynamo.endpoint,
    eventsEndpoint: events.url,
    secretsEndpoint: events.url,
    tableName,
    busName,
  };
  const environment = localEnvironment(endpoints, {
    partnerName,
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
  });
  // A developer's own AWS profile must never leak into a local run.
  for (const name of ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_ENDPOINT_URL']) delete process.env[name];
  Object.assign(process.env, environment);

  const everyMs = options.trialWatchEveryMs ?? ONE_HOUR_MS;
  if (everyMs > 0) {
    const timer = setInterval(() => {
      runTrialWatch('schedule').catch(() => undefined);
    }, everyMs);
    timer.unref();
    cleanup.push(async () => clearInterval(timer));
  }

  const waitForIdle = async (): Promise<void> => {
    do {
      await Promise.allSettled([...trialWatchRuns]);
      await bus.waitForIdle();
    } while (trialWatchRuns.size > 0);
  };

  let closed = false;
  return {
    ...endpoints,
    inboundSource: LOCAL_DEFAULTS.inboundSource,
    outboundSource: LOCAL_DEFAULTS.outboundSource,
    region,
    environment,
    outbound: () => bus.outbound(),
    dlq: () => bus.dlq(),
    published: () => bus.published(),
    runTrialWatch: () => runTrialWatch('request'),
    waitForIdle,
    close: async () => {
      if (closed) return;
      closed = true;
      for (const close of cleanup.reverse()) await close().catch(() => undefined);
      runningRuntime = false;
    },
  };
}

function toLocalRoute(route: RouteDefinition): LocalQueueRoute {
  return {
    detailType: route.detailType,
    functionName: route.functionName,
    queueName: `workforce-connector-${route.functionName}.fifo`,
    batchSize: route.batchSize,
    maxConcurrency: route.maxConcurrency,
    maxReceiveCount: route.maxReceiveCount,
    timeoutSeconds: route.timeoutSeconds,
    ...(route.memorySizeMb === undefined ? {} : { memorySizeMb: route.memorySizeMb }),
    loadHandler: () => loadHandler(route),
  };
}

const loadedHandlers = new Map<string, Promise<LambdaHandler>>();
let importChain: Promise<unknown> = Promise.resolve();

/**
 * Imports a handler module once (its cold start), one module at a time: Powertools reads
 * AWS_LAMBDA_FUNCTION_NAME and friends when a module builds its clients, so each import runs
 * with its own function's Lambda variables set.
 */
export function loadHandler(fn: {
  functionName: string;
  entry: string;
  handlerExport: string;
  memorySizeMb?: number;
}): Promise<LambdaHandler> {
  const key = `${fn.entry}#${fn.handlerExport}`;
  let loaded = loadedHandlers.get(key);
  if (!loaded) {
    loaded = importChain.then(async () => {
      Object.assign(process.env, {
        AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySizeMb ?? 1024),
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      });
      const module = (await import(pathToFileURL(resolve(REPO_ROOT, fn.entry)).href)) as Record<
        string,
        unknown
      >;
      const handler = module[fn.handlerExport];
      if (typeof handler !== 'function') {
        throw new Error(
          `Runtime.HandlerNotFound: ${fn.entry} does not export a function named ${fn.handlerExport}`,
        );
      }
      return handler as LambdaHandler;
    });
    // A failed cold start is retried on the next invocation, as Lambda does with a new environment.
    loaded.catch(() => loadedHandlers.delete(key));
    loadedHandlers.set(key, loaded);
    importChain = loaded.catch(() => undefined);
  }
  return loaded;
}

/** Scheduled events carry the sandbox's time, so a moved sandbox clock moves the trial watch too. */
async function sandboxNow(sandboxUrl: string): Promise<Date> {
  const response = await fetch(`${sandboxUrl}/_sandbox/clock`);
  if (!response.ok) throw new Error(`sandbox clock answered ${response.status}`);
  const { now } = (await response.json()) as { now?: unknown };
  const at = typeof now === 'string' ? new Date(now) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime())) throw new Error('sandbox clock answered without a valid "now"');
  return at;
}
