import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  listUnconfirmedSignups,
  readUnconfirmedSignups,
  type UnconfirmedSignup,
} from '#functions/store/drift-index.ts';
import { createStore } from '#functions/store/store.ts';
import { runOperatorCommand } from './aws-setup.ts';
import {
  parseCommandArgs,
  required,
  SignupUsageError,
  type TableTarget,
  tableTarget,
  useLocalRuntime,
} from './operator-target.ts';

/**
 * Lists the signups whose answer was lost (business status UNCONFIRMED, SyncFailed
 * SIGNUP_COMMITTED_UNCONFIRMED): the service probably holds a business for the account whose
 * hostname the connector never learned. One Query of the drift index's UNCONFIRMED partition.
 */

export const USAGE =
  'usage: npm run signups -- --unconfirmed [--table NAME] [--region R] [--local URL] [--json]';

export const HELP = `${USAGE}

Lists the accounts whose signup is unconfirmed: the service probably created a business with
externalId = the account id, but its answer was lost, so the connector holds no hostname and the
account's other events wait in their DLQs. For each: account, externalId, since when, last error.
Resolve one with npm run resolve-signup -- --account A --hostname H (docs/provisioning.md, runbook).

  --unconfirmed   list the unconfirmed signups (the only listing so far; required)
  --table NAME    the connector table (stack output TableName; default: TABLE_NAME)
  --region R      the connector's AWS region (default: AWS_REGION or your profile's)
  --local URL     the local runtime instead of AWS (npm start -- --serve: http://127.0.0.1:4010)
  --json          one JSON array instead of the table

Exit code 0 (also when there are none), 1 on a failure, 2 on a usage error. Credentials come from
the usual AWS sources (AWS_PROFILE, environment variables, SSO).`;

export interface SignupsOptions {
  readonly help?: boolean;
  readonly unconfirmed: boolean;
  readonly table?: string;
  readonly region?: string;
  readonly local?: string;
  readonly json: boolean;
}

export function parseSignupsArgs(argv: readonly string[]): SignupsOptions {
  const values = parseCommandArgs(
    argv,
    {
      help: { type: 'boolean', short: 'h' },
      unconfirmed: { type: 'boolean' },
      table: { type: 'string' },
      region: { type: 'string' },
      local: { type: 'string' },
      json: { type: 'boolean' },
    },
    USAGE,
  );
  if (values['help']) return { help: true, unconfirmed: false, json: false };
  if (!values['unconfirmed']) throw new SignupUsageError(`--unconfirmed is required\n${USAGE}`);
  return {
    unconfirmed: true,
    json: values['json'] === true,
    ...(typeof values['table'] === 'string' ? { table: values['table'] } : {}),
    ...(typeof values['region'] === 'string' ? { region: values['region'] } : {}),
    ...(typeof values['local'] === 'string' ? { local: values['local'] } : {}),
  };
}

export interface UnconfirmedSignupRow extends UnconfirmedSignup {
  externalId: string;
}

/** The unconfirmed signups of the table, oldest first. */
export async function unconfirmedSignups(
  client: DynamoDBClient,
  tableName: string,
): Promise<UnconfirmedSignupRow[]> {
  const store = createStore({ tableName, client });
  const found = await readUnconfirmedSignups(store, await listUnconfirmedSignups(store));
  // Oldest first as listed (listUnconfirmedSignups). The connector signs up with externalId = the
  // partner's account id.
  return found.map((signup) => ({ ...signup, externalId: signup.accountId }));
}

export function formatSignups(signups: readonly UnconfirmedSignupRow[]): string {
  if (signups.length === 0) return 'no unconfirmed signups';
  const rows = signups.map((signup) => [
    signup.accountId,
    signup.externalId,
    signup.region,
    signup.since,
    signup.lastError ? `${signup.lastError.code}: ${signup.lastError.message}` : '',
  ]);
  const header = ['account', 'externalId', 'region', 'since', 'last error'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [
    `${signups.length} unconfirmed signup${signups.length === 1 ? '' : 's'}:`,
    line(header),
    ...rows.map(line),
    'resolve each: npm run resolve-signup -- --account <account> --hostname <hostname>',
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runOperatorCommand<SignupsOptions, TableTarget>({
    name: 'signups',
    help: HELP,
    parse: parseSignupsArgs,
    usageError: SignupUsageError,
    client: tableTarget,
    run: async (target, options) => {
      if (options.local) await useLocalRuntime(options.local);
      const tableName = required(options.table, 'TABLE_NAME', '--table');
      target.client = new DynamoDBClient(target.region === undefined ? {} : { region: target.region });
      const signups = await unconfirmedSignups(target.client, tableName);
      console.log(options.json ? JSON.stringify(signups, null, 2) : formatSignups(signups));
      return 0;
    },
  });
}
