import { parseArgs } from 'node:util';
import type { LocalPorts } from './runtime.ts';
import { SERVE_PORTS } from './settings.ts';

/** The options of `npm start`, read apart from the CLI so the defaults can be checked without starting anything. */

export const START_USAGE = `usage: npm start [-- --serve] [--trial-watch-every <minutes>] [--verbose] [--log-level <LEVEL>]

  (no flag)                  replay the demo scenario from events/ on free ports and exit
  --serve                    stay up on fixed ports: sandbox ${SERVE_PORTS.sandbox}, DynamoDB ${SERVE_PORTS.dynamo}, events ${SERVE_PORTS.events}
  --sandbox-port <n>, --dynamo-port <n>, --events-port <n>
                             serve on other ports (0 = a free port, printed at start)
  --trial-watch-every <min>  schedule of the trial watch in serve mode (default 60, 0 = off)
  --verbose                  print every delivery (batches, retries, published events)
  --log-level <LEVEL>        Powertools log level of the handlers (default ERROR, WARN with --serve)`;

export interface StartOptions {
  readonly help: boolean;
  readonly serve: boolean;
  /** Ports of the servers: the serve-mode ports, or free ones for the scenario replay. */
  readonly ports: LocalPorts;
  /** 0 = the trial watch runs only on request. */
  readonly trialWatchEveryMinutes: number;
  readonly verbose: boolean;
  readonly logLevel?: string;
}

export class StartUsageError extends Error {
  constructor(message: string) {
    super(`${message}\n${START_USAGE}`);
    this.name = 'StartUsageError';
  }
}

export function parseStartArgs(argv: readonly string[]): StartOptions {
  let values: ReturnType<typeof parseStartArgv>['values'];
  try {
    ({ values } = parseStartArgv(argv));
  } catch (error) {
    throw new StartUsageError((error as Error).message);
  }
  const everyMinutes = values['trial-watch-every'] === undefined ? 60 : Number(values['trial-watch-every']);
  if (!Number.isFinite(everyMinutes) || everyMinutes < 0) {
    throw new StartUsageError('--trial-watch-every takes minutes (0 = off)');
  }
  const port = (flag: 'sandbox-port' | 'dynamo-port' | 'events-port', fixed: number): number => {
    const raw = values[flag];
    if (raw === undefined) return values.serve ? fixed : 0;
    if (!values.serve) throw new StartUsageError(`--${flag} applies to --serve only`);
    const parsed = Number(raw);
    if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) {
      throw new StartUsageError(`--${flag} takes a port number (0 = a free port)`);
    }
    return parsed;
  };
  // The scenario prints its own progress; handler warnings (expected retries) would only clutter it.
  const logLevel = values['log-level'] ?? (values.serve ? undefined : 'ERROR');
  return {
    help: values.help,
    serve: values.serve,
    ports: {
      sandbox: port('sandbox-port', SERVE_PORTS.sandbox),
      dynamo: port('dynamo-port', SERVE_PORTS.dynamo),
      events: port('events-port', SERVE_PORTS.events),
    },
    trialWatchEveryMinutes: everyMinutes,
    verbose: values.verbose || values.serve,
    ...(logLevel === undefined ? {} : { logLevel }),
  };
}

function parseStartArgv(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      serve: { type: 'boolean', default: false },
      'sandbox-port': { type: 'string' },
      'dynamo-port': { type: 'string' },
      'events-port': { type: 'string' },
      'trial-watch-every': { type: 'string' },
      verbose: { type: 'boolean', default: false },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
}
