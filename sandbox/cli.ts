import { parseArgs } from 'node:util';
import { ApiError } from './errors.ts';
import { parseRegions, type RegionCode } from './mode.ts';
import { startSandbox } from './server.ts';

const usage =
  'usage: npm run sandbox -- --port P [--host H] [--partner NAME] [--token TOKEN] [--rate-limit N] [--strict] [--regions US,UK,AU]';

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
        strict: { type: 'boolean' },
        regions: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(usage);
    return;
  }
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const regions = regionsOption(text('regions'));
  const sandbox = await startSandbox({
    port: integerOption(text('port'), 'port', 0, 65_535) ?? 8787,
    host: text('host') ?? '127.0.0.1',
    partner: text('partner') ?? 'acme',
    token: text('token') ?? 'sandbox-token',
    rateLimit: integerOption(text('rate-limit'), 'rate-limit', 1, 1_000_000),
    strict: values.strict === true,
    ...(regions ? { regions } : {}),
  });
  const { partner } = sandbox.state.settings;
  const mode = sandbox.state.mode.describe();
  console.log(`Sandbox listening on ${sandbox.url}`);
  console.log(
    `  mode:         ${mode.strict ? 'strict' : 'default'}; provisioning regions running: ${mode.regions.join(', ') || 'none'}`,
  );
  console.log(
    `  signup:       ${sandbox.url}/connect/v1/partner/${partner}/signup (also under /regions/uk, /regions/au)`,
  );
  console.log(`  install base: ${sandbox.url}/installs/{hostname}`);
  console.log(
    `  control:      ${sandbox.url}/_sandbox/{clock,faults,mode,businesses,installs/{hostname}[/records/{Resource}],requests,reset}`,
  );

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
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
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
