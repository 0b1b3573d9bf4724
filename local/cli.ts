import { parseStartArgs, START_USAGE, type StartOptions } from './cli-options.ts';
import { describeActivity } from './progress.ts';
import { type LocalRuntime, startLocalRuntime } from './runtime.ts';
import { formatSummary, runScenario } from './scenario.ts';

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
  const started = Date.now();
  const runtime = await startLocalRuntime({
    ports: options.ports,
    timeScale: options.timeScale,
    // The scenario moves the sandbox clock and runs the trial watch itself.
    schedules: options.serve ? 'sandbox-clock' : 'on-request',
    ...(options.token ? {} : { token: null }),
    ...(options.strict ? { sandboxStrict: true } : {}),
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
    ...(options.verbose
      ? {
          onActivity: (activity) => {
            const line = describeActivity(activity);
            if (line) console.log(line);
          },
        }
      : {}),
  });

  if (options.serve) return serve(runtime, options);

  try {
    console.log(
      `Local connector from its synthesized template (${Date.now() - started} ms): sandbox ${runtime.sandboxUrl}, DynamoDB ${runtime.dynamoEndpoint}, AWS endpoint ${runtime.eventsEndpoint}`,
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

function serve(runtime: LocalRuntime, options: StartOptions): Promise<number> {
  const { queues } = runtime.resources();
  console.log(`Local connector running from its synthesized template (Ctrl-C to stop)
  sandbox     ${runtime.sandboxUrl}   (${options.strict ? 'strict mode; ' : ''}control: /_sandbox/clock, /_sandbox/mode, /_sandbox/businesses, ...)
  DynamoDB    ${runtime.dynamoEndpoint}   table ${runtime.tableName}
  AWS         ${runtime.eventsEndpoint}   EventBridge PutEvents (bus ${runtime.busName}), SQS, Secrets Manager (${runtime.tokenSecretName})
              GET /_local/outbound  /_local/dlq  /_local/idle  /_local/resources  /_local/health
              POST /_local/trial-watch  /_local/scheduled
  ${queues.length} queues, ${runtime.deployment.functions.size} functions; inbound source ${runtime.inboundSource}
  schedules follow the sandbox clock (POST ${runtime.sandboxUrl}/_sandbox/clock {"advanceDays": n})

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
