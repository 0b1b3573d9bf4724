import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { region as regionSchema } from '#functions/contracts/fields.ts';
import { ServiceRejectedError } from '#functions/domain/errors.ts';
import { loadConfig } from '#functions/runtime/config.ts';
import { buildDependencies } from '#functions/runtime/dependencies.ts';
import { getAccountByHostname, getBusiness } from '#functions/store/business.ts';
import { recordProvisioned } from '#functions/store/signup.ts';
import { DEFAULT_CONFIG_FILE } from '#lib/config.ts';
import { runOperatorCommand } from './aws-setup.ts';
import { parseCommandArgs, required, SignupUsageError, useLocalRuntime } from './operator-target.ts';

/**
 * Resolves an unconfirmed signup (SIGNUP_COMMITTED_UNCONFIRMED): checks through subscription-status,
 * with the connector's own service client and token, that the hostname belongs to the partner, then
 * records the mapping (ACTIVE, edition, trial end; trial and drift indexes) as a signup answer would
 * have. Refuses, writing nothing, when the service does not link the hostname to the partner, the
 * account is not unconfirmed, or the hostname is another account's.
 */

export const USAGE =
  'usage: npm run resolve-signup -- --account A --hostname H [--table NAME] [--token-secret S] [--config FILE] [--region R] [--local URL] [--dry-run]';

export const HELP = `${USAGE}

Records the business the service created for an unconfirmed signup (npm run signups --
--unconfirmed lists them). Find its hostname first: ask the service's partner support for the
business whose externalId is the account id (on the sandbox: GET /_sandbox/businesses).

  --account A          the partner's account id (the signup's externalId)
  --hostname H         the business's hostname at the service
  --table NAME         the connector table (stack output TableName; default: TABLE_NAME)
  --token-secret S     the token secret (default: TOKEN_SECRET_ID, else tokenSecret of the config)
  --config FILE        the connector config for partner name and provisioning URLs
                       (default: ${DEFAULT_CONFIG_FILE}; not needed with --local)
  --region R           the connector's AWS region (default: AWS_REGION or your profile's)
  --local URL          the local runtime instead of AWS (npm start -- --serve: http://127.0.0.1:4010)
  --dry-run            check with the service, record nothing

It asks subscription-status for the hostname: when the service refuses it (HOSTNAME_NOT_LINKED), the
hostname is not the partner's and nothing is written. Otherwise the account becomes ACTIVE on that
hostname with the edition and trial end the service reports. The service cannot say which account a
hostname was made for (subscription-status shows no externalId): check that with support. Then
publish SubscriptionStatusRequested for the account (the partner learns the hostname). The account's
events that waited for the business apply within their next wait (at most 30 minutes), with no
redrive; only events that gave up before (in a DLQ, e.g. waited past the queue's retention) need
npm run redrive.
Exit code 0 when recorded (or would be, with --dry-run), 1 when refused or on a failure, 2 on a
usage error.`;

export interface ResolveSignupOptions {
  readonly help?: boolean;
  readonly account: string;
  readonly hostname: string;
  readonly table?: string;
  readonly tokenSecret?: string;
  readonly config?: string;
  readonly region?: string;
  readonly local?: string;
  readonly dryRun: boolean;
}

export function parseResolveSignupArgs(argv: readonly string[]): ResolveSignupOptions {
  const values = parseCommandArgs(
    argv,
    {
      help: { type: 'boolean', short: 'h' },
      account: { type: 'string' },
      hostname: { type: 'string' },
      table: { type: 'string' },
      'token-secret': { type: 'string' },
      config: { type: 'string' },
      region: { type: 'string' },
      local: { type: 'string' },
      'dry-run': { type: 'boolean' },
    },
    USAGE,
  );
  if (values['help']) return { help: true, account: '', hostname: '', dryRun: false };
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const account = text('account');
  const hostname = text('hostname')?.trim().toLowerCase();
  if (!account || !hostname) throw new SignupUsageError(`--account and --hostname are required\n${USAGE}`);
  return {
    account,
    hostname,
    dryRun: values['dry-run'] === true,
    ...(text('table') ? { table: text('table') } : {}),
    ...(text('token-secret') ? { tokenSecret: text('token-secret') } : {}),
    ...(text('config') ? { config: text('config') } : {}),
    ...(text('region') ? { region: text('region') } : {}),
    ...(text('local') ? { local: text('local') } : {}),
  };
}

/** The function settings the service client needs, from the deployment config file (unset ones only). */
function useConfigFile(file: string): void {
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const fill = (name: string, value: unknown) => {
    if (value === undefined || (process.env[name] ?? '') !== '') return;
    process.env[name] = typeof value === 'string' ? value : JSON.stringify(value);
  };
  fill('PARTNER_NAME', config['partnerName']);
  fill('PROVISIONING_URLS', config['provisioningUrls']);
  fill('INSTALL_URL_TEMPLATE', config['installUrlTemplate']);
  const suffixes = config['allowedHostnameSuffixes'];
  if (Array.isArray(suffixes)) fill('ALLOWED_HOSTNAME_SUFFIXES', suffixes.join(','));
  fill('SERVICE_ASSUMPTIONS', config['serviceAssumptions']);
  const secret = config['tokenSecret'] as { name?: string; existingSecretName?: string } | undefined;
  fill('TOKEN_SECRET_ID', secret?.existingSecretName ?? secret?.name);
  // The deployment's request budget ("off" or its buckets), so the tool's calls share it with the functions'.
  fill('REQUEST_BUDGET', config['requestBudget']);
  const drift = config['driftWatch'] as { everyHours?: number } | undefined;
  if (drift?.everyHours !== undefined) fill('DRIFT_CHECK_EVERY_HOURS', String(drift.everyHours));
}

export async function resolveSignup(
  options: ResolveSignupOptions,
  log: (line: string) => void,
): Promise<number> {
  if (options.local) await useLocalRuntime(options.local);
  else {
    const file = resolve(options.config ?? DEFAULT_CONFIG_FILE);
    if (existsSync(file)) useConfigFile(file);
    else if (options.config) throw new SignupUsageError(`config file ${file} not found`);
  }
  if (options.table) process.env['TABLE_NAME'] = options.table;
  if (options.tokenSecret) process.env['TOKEN_SECRET_ID'] = options.tokenSecret;
  if (options.region) process.env['AWS_REGION'] = options.region;
  required(undefined, 'TABLE_NAME', '--table');
  required(undefined, 'TOKEN_SECRET_ID', '--token-secret');
  // The tool publishes nothing; the bus name is only required by the functions' settings.
  process.env['EVENT_BUS_NAME'] ||= 'unused-by-resolve-signup';
  process.env['POWERTOOLS_LOG_LEVEL'] ||= 'SILENT';
  const config = loadConfig(process.env);
  const { store, service } = buildDependencies(config, {}); // publishes nothing
  const { account, hostname } = options;

  const business = await getBusiness(store, account);
  if (business === undefined) {
    log(`refused: account ${account} has no business record (nothing to resolve)`);
    return 1;
  }
  if (business.status === 'ACTIVE') {
    const same = business.hostname === hostname;
    log(
      same
        ? `nothing to do: account ${account} is already ACTIVE on ${hostname}`
        : `refused: account ${account} is already ACTIVE on ${business.hostname ?? '(no hostname)'}, not ${hostname}`,
    );
    return same ? 0 : 1;
  }
  if (business.status !== 'UNCONFIRMED') {
    log(
      `refused: account ${account} is ${business.status}, not UNCONFIRMED; only an unconfirmed signup is resolved here`,
    );
    return 1;
  }
  const owner = await getAccountByHostname(store, hostname);
  if (owner !== undefined && owner !== account) {
    log(`refused: ${hostname} is already recorded for account ${owner}`);
    return 1;
  }
  const region = regionSchema.parse(business.region);
  let status: Awaited<ReturnType<typeof service.provisioning.subscriptionStatus>>;
  try {
    status = await service.provisioning.subscriptionStatus(hostname, region);
  } catch (error) {
    if (error instanceof ServiceRejectedError) {
      log(
        `refused: the service does not link ${hostname} to partner ${config.partnerName} (${error.serviceCode ?? error.code}: ${error.message}); nothing recorded`,
      );
      return 1;
    }
    throw error;
  }
  const trialEndDate = status.trialEndDate ?? '';
  if (options.dryRun) {
    log(
      `dry run: ${hostname} belongs to partner ${config.partnerName} (${status.edition}, trial end ${trialEndDate || 'none'}); would record it for account ${account}`,
    );
    return 0;
  }
  const recording = await recordProvisioned(store, {
    accountId: account,
    hostname,
    edition: status.edition,
    trialEndDate,
    region,
    eventId: 'resolve-signup',
    driftEveryHours: config.driftCheckEveryHours,
  });
  if (!recording.recorded) {
    log(`refused: the table did not take ${hostname} for account ${account} (${recording.reason})`);
    return 1;
  }
  log(
    `recorded: account ${account} is ACTIVE on ${hostname} (${status.edition}, trial end ${trialEndDate || 'none'}, region ${region}).`,
  );
  log(
    'next: publish SubscriptionStatusRequested for the account (the partner learns the hostname). Its waiting events apply within their next wait (at most 30 minutes); redrive (npm run redrive) only dead letters of events that gave up before.',
  );
  return 0;
}

interface NoClient {
  destroy(): void;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runOperatorCommand<ResolveSignupOptions, NoClient>({
    name: 'resolve-signup',
    help: HELP,
    parse: parseResolveSignupArgs,
    usageError: SignupUsageError,
    client: () => ({ destroy: () => undefined }),
    run: (_client, options) => resolveSignup(options, (line) => console.log(line)),
  });
}
