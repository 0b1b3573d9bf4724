import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { REGIONS, type Region } from '#functions/contracts/fields.ts';
import { queueRoutes } from '#functions/routes.ts';
import { createAddresses } from '#functions/service/addresses.ts';
import { serviceAssumptionsSchema } from '#functions/service/assumptions.ts';
import { tokenFromSecret } from '#functions/service/token.ts';
import { type ConnectorConfig, loadConnectorConfig } from '#lib/config.ts';
import { type LenientReading, parseLenient } from '#sandbox/mode.ts';
import { awsSetupProblem } from './aws-setup.ts';
import { parseCommandArgs, SignupUsageError } from './operator-target.ts';
import {
  type CheckLine,
  type PreflightReport,
  type PreflightTarget,
  runPreflight,
} from './preflight/checks.ts';
import { LOCAL_TOKEN, startLocalPreflight } from './preflight/local.ts';
import { readOnlyHttp } from './preflight/read-only-http.ts';

/**
 * `npm run preflight`: before the first event, the deployment's config and token against the live
 * service, with reads only (docs/deploy.md, "Go live"). The HTTP layer it uses refuses anything but
 * the spec's reads (scripts/preflight/read-only-http.ts).
 */

export const USAGE =
  'usage: npm run preflight -- [--config FILE] [--secret NAME | --token-file FILE] [--region R] [--hostname H [--hostname-region US|UK|AU]] [--json]\n       npm run preflight -- --local [--lenient NAME,...|all] [--json]';

export const HELP = `${USAGE}

Checks, with reads only, that the deployed config works against the service: the token is accepted
at each configured provisioning root (subscription-status of a hostname nobody created: a not-linked
refusal means accepted, 401 refused), every configured root answers, the subscription status of a
known hostname reads (--hostname), and each service assumption (serviceAssumptions in the config)
that reads can show is confirmed or contradicted; the others are reported not observable, with why.
Install checks (query limit, lk, several conditions, resources, bad request) need --hostname of an
install the partner owns. Nothing is ever written: any request but a read is refused unsent.

  --config FILE       the connector config (default: connector.config.json, as cdk synth reads it)
  --secret NAME       the token secret (name or ARN; default: the config's tokenSecret name or
                      existingSecretName), read as the functions read it; needs AWS credentials
  --token-file FILE   the token from a file instead (bare, or JSON {"token": "..."}), for a first
                      check before the secret is set
  --region R          the AWS region of the secret (default: AWS_REGION or your profile's)
  --hostname H        a hostname of a business the partner owns: its status and install are read
  --hostname-region   the provisioning root asked for its status (default US)
  --local             start the sandbox and check the example config against it
  --lenient NAMES     with --local: the sandbox's lenient readings (npm run sandbox -- --help)
  --json              the report as one JSON object

The token is never printed. Exit code 0 when the token is accepted, every root answers and nothing
is contradicted; 1 otherwise; 2 on a usage error.`;

export interface PreflightOptions {
  readonly help?: boolean;
  readonly config?: string;
  readonly secret?: string;
  readonly tokenFile?: string;
  readonly region?: string;
  readonly hostname?: string;
  readonly hostnameRegion: Region;
  readonly local: boolean;
  readonly lenient: readonly LenientReading[];
  readonly json: boolean;
}

export function parsePreflightArgs(argv: readonly string[]): PreflightOptions {
  const values = parseCommandArgs(
    argv,
    {
      help: { type: 'boolean', short: 'h' },
      config: { type: 'string' },
      secret: { type: 'string' },
      'token-file': { type: 'string' },
      region: { type: 'string' },
      hostname: { type: 'string' },
      'hostname-region': { type: 'string' },
      local: { type: 'boolean' },
      lenient: { type: 'string' },
      json: { type: 'boolean' },
    },
    USAGE,
  );
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const local = values['local'] === true;
  const base = {
    hostnameRegion: 'US' as Region,
    local,
    lenient: [] as LenientReading[],
    json: values['json'] === true,
  };
  if (values['help']) return { ...base, help: true };
  if (text('secret') !== undefined && text('token-file') !== undefined) {
    throw new SignupUsageError(`give --secret or --token-file, not both\n${USAGE}`);
  }
  if (!local && text('lenient') !== undefined)
    throw new SignupUsageError(`--lenient goes with --local\n${USAGE}`);
  if (local) {
    const clash = ['config', 'secret', 'token-file', 'hostname', 'hostname-region'].filter(
      (name) => text(name) !== undefined,
    );
    if (clash.length > 0)
      throw new SignupUsageError(
        `--local checks the example config against its own sandbox: drop --${clash.join(', --')}\n${USAGE}`,
      );
  }
  let lenient: LenientReading[] = [];
  if (text('lenient') !== undefined) {
    try {
      lenient = parseLenient(text('lenient'));
    } catch (error) {
      throw new SignupUsageError(`--lenient: ${(error as Error).message}\n${USAGE}`);
    }
  }
  const hostnameRegion = text('hostname-region') ?? 'US';
  if (!(REGIONS as readonly string[]).includes(hostnameRegion)) {
    throw new SignupUsageError(`--hostname-region: expected ${REGIONS.join(', ')}\n${USAGE}`);
  }
  return {
    ...base,
    lenient,
    hostnameRegion: hostnameRegion as Region,
    ...Object.fromEntries(
      (
        [
          ['config', 'config'],
          ['secret', 'secret'],
          ['tokenFile', 'token-file'],
          ['region', 'region'],
          ['hostname', 'hostname'],
        ] as const
      ).flatMap(([key, flag]) => (text(flag) === undefined ? [] : [[key, text(flag)]])),
    ),
  };
}

/** What the preflight reads the service with: the config's addresses and assumptions. */
export function preflightTarget(
  config: ConnectorConfig,
  options: Pick<PreflightOptions, 'hostname' | 'hostnameRegion'>,
): PreflightTarget {
  const addresses = createAddresses({
    partnerName: config.partnerName,
    provisioningUrls: config.provisioningUrls,
    installUrlTemplate: config.installUrlTemplate,
  });
  return {
    partnerName: config.partnerName,
    provisioningUrls: config.provisioningUrls,
    installBaseUrl: addresses.installBaseUrl,
    allowedHostnameSuffixes: config.allowedHostnameSuffixes ?? [],
    assumptions: serviceAssumptionsSchema.parse(config.serviceAssumptions ?? {}),
    hostnameRegion: options.hostnameRegion,
    ...(options.hostname === undefined ? {} : { hostname: options.hostname }),
  };
}

/** The token: a file, else the secret as the functions read it (bare or {"token"}). */
async function readToken(config: ConnectorConfig, options: PreflightOptions): Promise<string> {
  if (options.tokenFile !== undefined) {
    const raw = readFileSync(options.tokenFile, 'utf8').trim();
    const token = raw.startsWith('{') ? (JSON.parse(raw) as { token?: unknown }).token : raw;
    if (typeof token !== 'string' || token.trim() === '') {
      throw new SignupUsageError(`${options.tokenFile} holds no token (bare, or JSON {"token": "..."})`);
    }
    return token.trim();
  }
  const secretId =
    options.secret ??
    ('existingSecretName' in config.tokenSecret
      ? config.tokenSecret.existingSecretName
      : config.tokenSecret.name);
  if (secretId === undefined) {
    throw new SignupUsageError(
      `the config creates the token secret without a name: pass --secret (its name or ARN, from the stack) or --token-file\n${USAGE}`,
    );
  }
  const client = new SecretsManagerClient(options.region === undefined ? {} : { region: options.region });
  try {
    return await tokenFromSecret(secretId, { provider: new SecretsProvider({ awsSdkV3Client: client }) })();
  } finally {
    client.destroy();
  }
}

/** Every request that may carry the token: the configured roots, and the known hostname's install. */
function allowedPrefixes(target: PreflightTarget): string[] {
  const prefixes = Object.values(target.provisioningUrls).filter((url): url is string => url !== undefined);
  if (target.hostname !== undefined) {
    try {
      prefixes.push(target.installBaseUrl(target.hostname));
    } catch {
      // A hostname the functions would refuse is reported by the checks and never read.
    }
  }
  return prefixes;
}

const WIDTH = 'not observable'.length + 2;

export function formatReport(report: PreflightReport, heading: string): string {
  const row = (entry: CheckLine) => `${entry.status.padEnd(WIDTH)}${entry.name}: ${entry.detail}`;
  const count = (status: CheckLine['status']) =>
    report.lines.filter((entry) => entry.status === status).length;
  return [
    heading,
    ...report.lines.map(row),
    `${report.pass ? 'PASS' : 'FAIL'}: ${count('confirmed')} confirmed, ${count('contradicted')} contradicted, ${count('not observable')} not observable, ${count('failed')} failed; ${report.sent.length} reads sent, no write`,
  ].join('\n');
}

export async function preflight(
  options: PreflightOptions,
): Promise<{ report: PreflightReport; output: string }> {
  if (options.local) {
    const local = await startLocalPreflight(options.lenient);
    try {
      const target = preflightTarget(local.config, { hostname: local.hostname, hostnameRegion: 'US' });
      const http = readOnlyHttp({ allowedPrefixes: allowedPrefixes(target), token: LOCAL_TOKEN });
      const report = await runPreflight(http, target);
      const mode = options.lenient.length === 0 ? 'the spec' : `lenient ${options.lenient.join(',')}`;
      return {
        report,
        output: render(
          report,
          `preflight of the example config against the sandbox (${mode}) at ${local.sandbox.url}, hostname ${local.hostname}`,
          options,
        ),
      };
    } finally {
      await local.close();
    }
  }
  const config = loadConnectorConfig(
    { tryGetContext: (key) => (key === 'config' ? options.config : undefined) },
    { cwd: process.cwd(), knownRoutes: queueRoutes },
  );
  const target = preflightTarget(config, options);
  const token = await readToken(config, options);
  const http = readOnlyHttp({ allowedPrefixes: allowedPrefixes(target), token });
  const report = await runPreflight(http, target);
  return {
    report,
    output: render(
      report,
      `preflight of partner ${config.partnerName} (${Object.keys(config.provisioningUrls).join(', ')})${options.hostname ? `, hostname ${options.hostname}` : ''}`,
      options,
    ),
  };
}

function render(report: PreflightReport, heading: string, options: PreflightOptions): string {
  return options.json ? JSON.stringify({ heading, ...report }, null, 2) : formatReport(report, heading);
}

export async function main(argv: readonly string[]): Promise<number> {
  let options: PreflightOptions;
  try {
    options = parsePreflightArgs(argv);
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  if (options.help) {
    console.log(HELP);
    return 0;
  }
  try {
    const { report, output } = await preflight(options);
    console.log(output);
    return report.pass ? 0 : 1;
  } catch (error) {
    console.error(`preflight failed: ${awsSetupProblem(error, 'preflight') ?? (error as Error).message}`);
    return error instanceof SignupUsageError ? 2 : 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
