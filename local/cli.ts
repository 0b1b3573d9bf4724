import { parseStartArgs, START_USAGE } from './cli-options.ts';
import { describeActivity } from './progress.ts';
import { type LocalRuntime, startLocalRuntime } from './runtime.ts';
import { formatSummary, runScenario } from './scenario.ts';
import { LOCAL_DEFAULTS } from './settings.ts';

/**
 * `npm start`            replay the demo scenario on free ports, print a summary, exit 0 (or 1 with the reason).
 * `npm start -- --serve` keep the connector running on 8787 / 8000 / 4010 until Ctrl-C.
 */

async function main(): Promise<number> {
  const options = parseStartArgs(process.argv.slice(2));
  if (options.help) {
    console.log(START_USAGE);
    return 0;
  }
  const everyMinutes = options.trialWatchEveryMinutes;

  const runtime = await startLocalRuntime({
    ports: options.ports,
    // The scenario drives the trial watch itself; only serve mode runs it on a schedule.
    trialWatchEveryMs: options.serve ? everyMinutes * 60_000 : 0,
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
    onActivity: options.verbose ? (activity) => console.log(describeActivity(activity)) : undefined,
  });

  if (options.serve) return serve(runtime, everyMinutes);

  try {
    console.log(
      `Local connector on free ports: sandbox ${runtime.sandboxUrl}, DynamoDB ${runtime.dynamoEndpoint}, events ${runtime.eventsEndpoint}`,
    );
    const report = await runScenario(runtime, { log: (line) => console.log(line) });
    console.log(formatSummary(report));
    if (report.failures.length > 0) {
      console.error(`\nScenario failed: ${report.failures[0]}`);
      return 1;
    }
    return 0;
  } finally {
    await runtime.close();
  }
}

function serve(runtime: LocalRuntime, everyMinutes: number): Promise<number> {
  console.log(`Local connector running (Ctrl-C to stop)
  sandbox     ${runtime.sandboxUrl}        (control: /_sandbox/clock, /_sandbox/businesses, ...)
  DynamoDB    ${runtime.dynamoEndpoint}        table ${runtime.tableName}
  events      ${runtime.eventsEndpoint}        PutEvents (bus ${runtime.busName}, default or none), GetSecretValue
              GET /_local/outbound  GET /_local/dlq  GET /_local/health  POST /_local/trial-watch
  inbound source ${runtime.inboundSource}; token secret ${LOCAL_DEFAULTS.tokenSecretId}
  trial watch ${everyMinutes > 0 ? `every ${everyMinutes} min` : 'on request only'}

Publish an event:
  aws events put-events --endpoint-url ${runtime.eventsEndpoint} --region ${runtime.region} \\
    --entries "[$(cat events/inbound/AccountCreated/eventbridge-entry.json)]"`);
  return new Promise((resolveExit) => {
    const stop = (signal: string) => {
      console.log(`\n${signal}: stopping`);
      runtime.close().then(
        () => resolveExit(0),
        () => resolveExit(1),
      );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

// Exit explicitly: SDK keep-alive sockets of the handlers must not hold the process open.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const inUse = (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
    const hint = inUse ? ' (is another `npm start -- --serve` or `npm run sandbox` running?)' : '';
    console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}${hint}`);
    process.exit(1);
  },
);
