import { parseArgs } from 'node:util';
import { ApiError } from './errors.ts';
import {
  LENIENT_READING_NAMES,
  LENIENT_READINGS,
  type LenientReading,
  parseLenient,
  parseRegions,
  type RegionCode,
} from './mode.ts';
import { startSandbox } from './server.ts';

const usage =
  'usage: npm run sandbox -- --port P [--host H] [--partner NAME] [--token TOKEN] [--rate-limit N] [--lenient NAME,...|all] [--regions US,UK,AU]';

/** `--help`: the usage, then each lenient reading (by default the sandbox answers as the spec allows). */
const help = [
  usage,
  '',
  'By default the sandbox answers as the service API description allows. --lenient turns on readings a',
  'client may meet where the description is vague (comma-separated, or `all`):',
  ...LENIENT_READING_NAMES.map((name) => `  ${name.padEnd(22)} ${LENIENT_READINGS[name]}`),
].join('\n');

function lenientOption(value: string | undefined): LenientReading[] | undefined {
  if (value === undefined) return undefined;
  try {
    return parseLenient(value);
  } catch (error) {
    console.error(`--lenient: ${error instanceof ApiError ? error.message : String(error)}\n${usage}`);
    process.exit(2);
  }
}

function regionsOption(value: string | undefined): RegionCode[] | undefined {
  if (value === undefined) return undefined;
  try {
    return parseRegions(value);
  } catch (error) {
    console.error(`--regions: ${error instanceof ApiError ? error.message : String(error)}\n${usage}`);
    process.exit(2);
  }
}

function integerOption(
  value: string | undefined,
  name: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    console.error(`--${name} must be an integer between ${min} and ${max}\n${usage}`);
    process.exit(2);
  }
  return parsed;
}

async function main(): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        partner: { type: 'string' },
        token: { type: 'string' },
        'rate-limit': { type: 'string' },
        lenient: { type: 'string' },
        regions: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(help);
    return;
  }
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const regions = regionsOption(text('regions'));
  const lenient = lenientOption(text('lenient'));
  // Listening for SIGINT and SIGTERM from the start: Node ends a process at once on a signal it has
  // no listener for, so one arriving while the sandbox starts, or just after its "listening" line,
  // would otherwise kill it without stopping it. One received while it starts stops it once it is up.
  let stopSignal: string | undefined;
  let stop: ((signal: string) => void) | undefined;
  const onSignal = (signal: string) => {
    if (stopSignal) return;
    stopSignal = signal;
    stop?.(signal);
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  const sandbox = await startSandbox({
    port: integerOption(text('port'), 'port', 0, 65_535) ?? 8787,
    host: text('host') ?? '127.0.0.1',
    partner: text('partner') ?? 'acme',
    token: text('token') ?? 'sandbox-token',
    rateLimit: integerOption(text('rate-limit'), 'rate-limit', 1, 1_000_000),
    ...(lenient ? { lenient } : {}),
    ...(regions ? { regions } : {}),
  });
  const { partner } = sandbox.state.settings;
  const mode = sandbox.state.mode.describe();
  console.log(`Sandbox listening on ${sandbox.url}`);
  console.log(
    `  mode:         ${mode.strict ? 'the spec' : `lenient: ${mode.lenient.join(', ')}`}; provisioning regions running: ${mode.regions.join(', ') || 'none'}`,
  );
  console.log(
    `  signup:       ${sandbox.url}/connect/v1/partner/${partner}/signup (also under /regions/uk, /regions/au)`,
  );
  console.log(`  install base: ${sandbox.url}/installs/{hostname}`);
  console.log(
    `  control:      ${sandbox.url}/_sandbox/{clock,faults,mode,businesses,installs/{hostname}[/records/{Resource}],requests,reset}`,
  );

  stop = (signal) => {
    sandbox.close().then(
      () => {
        console.log(`Sandbox stopped (${signal})`);
        process.exit(0);
      },
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  if (stopSignal) stop(stopSignal);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
