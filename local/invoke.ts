import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { queueRoutes, scheduledFunctions } from '#functions/routes.ts';
import type { OutboundEvent } from './events-server.ts';
import { invokeFunction, scheduledEvent } from './lambda.ts';
import { loadHandler, startLocalRuntime } from './runtime.ts';
import { LOCAL_DEFAULTS, localEnvironment, SERVE_PORTS } from './settings.ts';

/**
 * `npm run invoke -- <function> [event.json] [--fresh]`: one handler, one event, once — the local
 * counterpart of a Lambda console test invocation. When `npm start -- --serve` is running, the
 * handler runs against its services (so it sees the businesses the served connector created);
 * otherwise, or with --fresh, against a sandbox, dynalite and events server started for this run.
 */

const USAGE = `usage: npm run invoke -- <function> [event.json] [--fresh]

  <function>   ${[...queueRoutes.map((route) => route.functionName), ...scheduledFunctions.map((fn) => fn.functionName)].join(', ')}
  event.json   the event to pass (e.g. events/inbound/AccountCreated/sqs-fifo-batch.json);
               optional for scheduled functions (a Scheduled Event is built)
  --fresh      do not use a running \`npm start -- --serve\`; start fresh services on free ports`;

interface Services {
  readonly mode: 'serve' | 'fresh';
  readonly describe: string;
  readonly sandboxUrl: string;
  outbound(): Promise<readonly OutboundEvent[]>;
  close(): Promise<void>;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      fresh: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [functionName, eventPath] = positionals;
  if (values.help || !functionName) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const target =
    queueRoutes.find((route) => route.functionName === functionName) ??
    scheduledFunctions.find((fn) => fn.functionName === functionName);
  if (!target) throw new Error(`unknown function ${functionName}\n${USAGE}`);
  const isScheduled = !('detailType' in target);
  if (!eventPath && !isScheduled) throw new Error(`${functionName} needs an event file\n${USAGE}`);

  const services = values.fresh
    ? await freshServices()
    : ((await servedServices()) ?? (await freshServices()));
  try {
    console.log(`Invoking ${functionName} against ${services.describe}`);
    const event: unknown = eventPath
      ? JSON.parse(await readFile(eventPath, 'utf8'))
      : scheduledEvent(
          `${functionName}-schedule`,
          LOCAL_DEFAULTS.region,
          await sandboxNow(services.sandboxUrl),
        );
    const before = (await services.outbound()).length;
    const handler = await loadHandler(target);
    const started = Date.now();
    let failed = false;
    try {
      const result = await invokeFunction(handler, event, {
        functionName: target.functionName,
        region: LOCAL_DEFAULTS.region,
        timeoutMs: target.timeoutSeconds * 1000,
        memoryMb: target.memorySizeMb,
      });
      console.log(`\nResult (${Date.now() - started} ms):\n${JSON.stringify(result ?? null, null, 2)}`);
    } catch (error) {
      failed = true;
      console.error(
        `\nThe handler threw (${Date.now() - started} ms): ${error instanceof Error ? error.stack : String(error)}`,
      );
    }
    const published = (await services.outbound()).slice(before);
    console.log(`\nEvents published (${published.length}):`);
    for (const item of published) console.log(JSON.stringify(item, null, 2));
    return failed ? 1 : 0;
  } finally {
    await services.close();
  }
}

/** The services of a running `npm start -- --serve`, when its events server answers on 4010. */
async function servedServices(): Promise<Services | undefined> {
  const eventsEndpoint = `http://127.0.0.1:${SERVE_PORTS.events}`;
  let health: Record<string, unknown>;
  try {
    const response = await fetch(`${eventsEndpoint}/_local/health`, { signal: AbortSignal.timeout(1000) });
    if (!response.ok) return undefined;
    health = (await response.json()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const text = (key: string, fallback: string) =>
    typeof health[key] === 'string' ? (health[key] as string) : fallback;
  const sandboxUrl = text('sandbox', `http://127.0.0.1:${SERVE_PORTS.sandbox}`);
  Object.assign(
    process.env,
    localEnvironment({
      sandboxUrl,
      dynamoEndpoint: text('dynamodb', `http://127.0.0.1:${SERVE_PORTS.dynamo}`),
      eventsEndpoint,
      secretsEndpoint: eventsEndpoint,
      tableName: text('tableName', LOCAL_DEFAULTS.tableName),
      busName: text('busName', LOCAL_DEFAULTS.busName),
    }),
  );
  return {
    mode: 'serve',
    sandboxUrl,
    describe: `the running serve mode (${eventsEndpoint}); its DLQ and queues are not involved`,
    outbound: async () =>
      (await (await fetch(`${eventsEndpoint}/_local/outbound`)).json()) as OutboundEvent[],
    close: async () => undefined,
  };
}

async function freshServices(): Promise<Services> {
  const runtime = await startLocalRuntime({ ports: 'free', trialWatchEveryMs: 0 });
  return {
    mode: 'fresh',
    sandboxUrl: runtime.sandboxUrl,
    describe: `fresh services (sandbox ${runtime.sandboxUrl}, DynamoDB ${runtime.dynamoEndpoint}, events ${runtime.eventsEndpoint})`,
    outbound: async () => runtime.outbound(),
    close: () => runtime.close(),
  };
}

async function sandboxNow(sandboxUrl: string): Promise<Date> {
  const response = await fetch(`${sandboxUrl}/_sandbox/clock`);
  const { now } = (await response.json()) as { now: string };
  return new Date(now);
}

// Exit explicitly: SDK keep-alive sockets of the handler must not hold the process open.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`npm run invoke failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
