import { parseStartArgs, START_USAGE, type StartOptions } from './cli-options.ts';
import { showHandlerOutput } from './handler-output.ts';
import { describeActivity } from './progress.ts';
import { type LocalRuntime, startLocalRuntime } from './runtime.ts';
import { runScenario } from './scenario.ts';
import { formatSummary } from './scenario-summary.ts';

/**
 * `npm start`            replay the demo scenario on free ports, print a summary, exit 0 (or 1 with the reason).
 * `npm start -- --serve` keep the connector running on 8787 / 8000 / 4010 until Ctrl-C.
 *
 * SIGINT or SIGTERM closes everything the runtime started (sandbox, DynamoDB, AWS endpoint, timers)
 * and exits: 0 when serving, 128 + the signal's number when it stops the scenario. A second signal
 * ends the process at once.
 */

type StopSignal = 'SIGINT' | 'SIGTERM';
const SIGNAL_EXIT_CODES: Readonly<Record<StopSignal, number>> = { SIGINT: 130, SIGTERM: 143 };

interface Stop {
  /** Resolves with the first SIGINT or SIGTERM. */
  readonly signal: Promise<StopSignal>;
  /** The signal received so far, if any. */
  received(): StopSignal | undefined;
}

/** Listens for SIGINT and SIGTERM; after the first, a second one exits at once. */
function listenForStop(): Stop {
  let received: StopSignal | undefined;
  const signal = new Promise<StopSignal>((resolve) => {
    const onSignal = (name: StopSignal) => {
      if (received) process.exit(SIGNAL_EXIT_CODES[name]);
      received = name;
      console.log(`\n${name}: stopping`);
      resolve(name);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  return { signal, received: () => received };
}

async function main(): Promise<number> {
  const options = parseStartArgs(process.argv.slice(2));
  if (options.help) {
    console.log(START_USAGE);
    return 0;
  }
  showHandlerOutput(options.jsonLogs ? 'json' : 'lines');
  // From the start: a signal while the runtime starts closes it as soon as it is up.
  const stop = listenForStop();
  const started = Date.now();
  const runtime = await startLocalRuntime({
    ports: options.ports,
    timeScale: options.timeScale,
    // The scenario moves the sandbox clock and runs the trial watch itself.
    schedules: options.serve ? 'sandbox-clock' : 'on-request',
    ...(options.token ? {} : { token: null }),
    ...(options.lenient.length > 0 ? { sandboxLenient: options.lenient } : {}),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.orderedDelivery ? { orderedDelivery: true } : {}),
    ...(options.assembly ? { assembly: options.assembly } : {}),
    announce: (line) => console.log(line),
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

  if (options.serve) return serve(runtime, options, stop);

  try {
    const early = stop.received();
    if (early) return SIGNAL_EXIT_CODES[early];
    console.log(
      `Local connector from ${templateOrigin(options)} (${Date.now() - started} ms): sandbox ${runtime.sandboxUrl}, DynamoDB ${runtime.dynamoEndpoint}, AWS endpoint ${runtime.eventsEndpoint}`,
    );
    // Once stopped, the scenario runs on against a closing runtime: its lines and its end are not shown.
    const scenario = runScenario(runtime, {
      log: (line) => {
        if (!stop.received()) console.log(line);
      },
    });
    const outcome = await Promise.race([
      scenario.then((report) => ({ report })),
      stop.signal.then((signal) => ({ signal })),
    ]);
    if ('signal' in outcome) {
      scenario.catch(() => undefined);
      console.error(`Scenario stopped by ${outcome.signal} before its end`);
      return SIGNAL_EXIT_CODES[outcome.signal];
    }
    const { report } = outcome;
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

/** Where the running template comes from: the example, synthesized, or the assembly given. */
function templateOrigin(options: StartOptions): string {
  return options.assembly ? `the cloud assembly ${options.assembly}` : 'its synthesized template';
}

async function serve(runtime: LocalRuntime, options: StartOptions, stop: Stop): Promise<number> {
  const { queues } = runtime.resources();
  const sample = 'events/inbound/AccountCreated/eventbridge-entry.json';
  // The samples name the example's bus and source; an assembly's may differ.
  const entry = options.assembly
    ? `$(jq -c '.EventBusName = "${runtime.busName}" | .Source = "${runtime.inboundSource}"' ${sample})`
    : `$(cat ${sample})`;
  console.log(`Local connector running from ${templateOrigin(options)} (Ctrl-C to stop)
  sandbox     ${runtime.sandboxUrl}   (${options.lenient.length > 0 ? `lenient: ${options.lenient.join(', ')}; ` : ''}control: /_sandbox/clock, /_sandbox/mode, /_sandbox/businesses, ...)
  DynamoDB    ${runtime.dynamoEndpoint}   table ${runtime.tableName}
  AWS         ${runtime.eventsEndpoint}   EventBridge PutEvents (bus ${runtime.busName}), SQS, Secrets Manager (${runtime.tokenSecretName})
              GET /_local/outbound  /_local/dlq  /_local/idle  /_local/resources  /_local/health
              POST /_local/trial-watch  /_local/scheduled
  ${queues.length} queues, ${runtime.deployment.functions.size} functions; inbound source ${runtime.inboundSource}
  schedules follow the sandbox clock (POST ${runtime.sandboxUrl}/_sandbox/clock {"advanceDays": n})

Publish an event:
  aws events put-events --endpoint-url ${runtime.eventsEndpoint} --region ${runtime.region} \\
    --entries "[${entry}]"`);
  await stop.signal;
  return runtime.close().then(
    () => 0,
    () => 1,
  );
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
