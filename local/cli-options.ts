import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LENIENT_READING_NAMES, type LenientReading, parseLenient } from '#sandbox/mode.ts';
import { DEFAULT_TIME_SCALE } from './aws/clock.ts';
import { parseSeed } from './aws/delivery-model.ts';
import { type LocalPorts, SERVE_PORTS } from './runtime.ts';

/** The options of `npm start`, read apart from the CLI so the defaults can be checked without starting anything. */

export const START_USAGE = `usage: npm start [-- --serve] [--assembly <cdk.out>] [--verbose] [--log-level <LEVEL>] [--json-logs] [--time-scale <s>]
                 [--no-token] [--lenient <names>|all] [--seed <n>] [--ordered-delivery]

  (no flag)                  replay the demo scenario from events/ on free ports and exit
  --assembly <dir>           run this already synthesized cloud assembly (what \`cdk synth\` wrote, e.g. cdk.out,
                             from your own config) instead of synthesizing the example; its service
                             addresses are pointed at the sandbox, its functions run from its own bundles
  --serve                    stay up on fixed ports: sandbox ${SERVE_PORTS.sandbox}, DynamoDB ${SERVE_PORTS.dynamo}, events ${SERVE_PORTS.events};
                             schedules (the trial watch) follow the sandbox clock
  --sandbox-port <n>, --dynamo-port <n>, --events-port <n>
                             serve on other ports (0 = a free port, printed at start)
  --verbose                  print every delivery (events, batches, retries, dead letters)
  --log-level <LEVEL>        Powertools log level of the handlers (default ERROR, WARN with --serve)
  --json-logs                the handlers' output as deployed (JSON log lines and EMF metrics) instead
                             of one readable line per log entry
  --time-scale <s>           scale of AWS waiting times such as visibility timeouts (default ${DEFAULT_TIME_SCALE})
  --no-token                 serve with the token secret as CloudFormation creates it (a placeholder
                             the sandbox refuses), to rehearse setting the token after deploying
  --lenient <names>|all      the sandbox answers as the service's API description allows; this turns on
                             lenient readings a client may meet where it is vague (comma-separated:
                             ${LENIENT_READING_NAMES.join(', ')};
                             \`npm run sandbox -- --help\` and sandbox/README.md say what each does)
  --seed <n>                 the delivery seed: standard queues, rule deliveries and pipes reorder and
                             repeat deliveries as AWS may, drawn from this seed (default: a random seed;
                             the seed in use is printed at start, to repeat a run)
  --ordered-delivery         deliver everything in send order and nothing twice: for debugging only,
                             AWS gives no such order (docs/local.md)`;

export interface StartOptions {
  readonly help: boolean;
  readonly serve: boolean;
  /** Ports of the servers: the serve-mode ports, or free ones for the scenario replay. */
  readonly ports: LocalPorts;
  readonly verbose: boolean;
  readonly logLevel?: string;
  /** The handlers' output as deployed (JSON, EMF) instead of one line per log entry (local/handler-output.ts). */
  readonly jsonLogs: boolean;
  readonly timeScale: number;
  /** False: the token secret starts with a placeholder instead of the sandbox token. */
  readonly token: boolean;
  /** Lenient readings the sandbox starts with (none: it answers as the spec allows). */
  readonly lenient: readonly LenientReading[];
  /** The delivery seed; undefined: a random one. */
  readonly seed?: number;
  /** Everything delivered in send order, nothing twice (debugging only). */
  readonly orderedDelivery: boolean;
  /** A synthesized cloud assembly to run instead of the example (an absolute path). */
  readonly assembly?: string;
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
  const timeScale = values['time-scale'] === undefined ? DEFAULT_TIME_SCALE : Number(values['time-scale']);
  if (!Number.isFinite(timeScale) || timeScale < 0 || timeScale > 1) {
    throw new StartUsageError('--time-scale takes a number between 0 and 1');
  }
  if (values['no-token'] && !values.serve) throw new StartUsageError('--no-token applies to --serve only');
  let lenient: LenientReading[] = [];
  try {
    lenient = values.lenient === undefined ? [] : parseLenient(values.lenient);
  } catch (error) {
    throw new StartUsageError(`--lenient: ${(error as Error).message}`);
  }
  let seed: number | undefined;
  try {
    seed = values.seed === undefined ? undefined : parseSeed(values.seed);
  } catch (error) {
    throw new StartUsageError((error as Error).message);
  }
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
    verbose: values.verbose || values.serve,
    ...(logLevel === undefined ? {} : { logLevel }),
    jsonLogs: values['json-logs'],
    timeScale,
    token: !values['no-token'],
    lenient,
    ...(seed === undefined ? {} : { seed }),
    orderedDelivery: values['ordered-delivery'],
    ...(values.assembly === undefined ? {} : { assembly: assemblyPath(values.assembly) }),
  };
}

/**
 * A relative `--assembly` is where the command was typed: npm runs scripts in the package's root
 * and says where it was started in INIT_CWD.
 */
function assemblyPath(value: string): string {
  if (value === '')
    throw new StartUsageError('--assembly takes the directory cdk synth wrote (e.g. cdk.out)');
  return resolve(process.env['INIT_CWD'] ?? process.cwd(), value);
}

function parseStartArgv(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      serve: { type: 'boolean', default: false },
      'sandbox-port': { type: 'string' },
      'dynamo-port': { type: 'string' },
      'events-port': { type: 'string' },
      verbose: { type: 'boolean', default: false },
      'log-level': { type: 'string' },
      'json-logs': { type: 'boolean', default: false },
      'time-scale': { type: 'string' },
      'no-token': { type: 'boolean', default: false },
      lenient: { type: 'string' },
      seed: { type: 'string' },
      'ordered-delivery': { type: 'boolean', default: false },
      assembly: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
}
