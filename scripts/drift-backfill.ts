import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { scheduleFirstDriftCheck } from '#functions/store/business.ts';
import { DEFAULT_DRIFT_EVERY_HOURS } from '#functions/store/drift-schedule.ts';
import { createStore, type Store } from '#functions/store/store.ts';
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
 * One-off after an upgrade to the drift watch: businesses recorded before it have no drift due
 * time, so the watch (which reads only the drift index) never looks at them. Every successful
 * event and every trial-watch update files its business on its own (recordSyncSuccess /
 * updateEdition, `if_not_exists`); this command files the rest. A paginated Scan of the table
 * for ACTIVE businesses without `driftDueAt` (acceptable for an operator's one-off; no function
 * scans), then one conditional UpdateItem each, on the same spread-out slots as a new business.
 */

export const USAGE =
  'usage: npm run drift-backfill -- [--table NAME] [--region R] [--local URL] [--every-hours N] [--dry-run] [--json]';

export const HELP = `${USAGE}

Gives every ACTIVE business that has no drift due time (recorded before the drift watch existed)
its first one, so the drift watch compares it with the service within one cadence. Run it once
after deploying the drift watch; running it again finds nothing left to do.

  --table NAME      the connector table (stack output TableName; default: TABLE_NAME)
  --region R        the connector's AWS region (default: AWS_REGION or your profile's)
  --local URL       the local runtime instead of AWS (npm start -- --serve: http://127.0.0.1:4010)
  --every-hours N   the drift watch's cadence, driftWatch.everyHours (default:
                    DRIFT_CHECK_EVERY_HOURS, else ${DEFAULT_DRIFT_EVERY_HOURS}); first checks are spread over it
  --dry-run         list what would be scheduled, write nothing
  --json            one JSON object instead of the summary

It reads the whole table once (a Scan, paginated; read capacity as one full read of the table) and
writes one conditional UpdateItem per business found: only an ACTIVE business with a hostname and
still no drift due time is changed. Exit code 0 when done (also when none were missing), 1 on a
failure, 2 on a usage error. Credentials come from the usual AWS sources.`;

export interface DriftBackfillOptions {
  readonly help?: boolean;
  readonly table?: string;
  readonly region?: string;
  readonly local?: string;
  readonly everyHours?: number;
  readonly dryRun: boolean;
  readonly json: boolean;
}

export function parseDriftBackfillArgs(argv: readonly string[]): DriftBackfillOptions {
  const values = parseCommandArgs(
    argv,
    {
      help: { type: 'boolean', short: 'h' },
      table: { type: 'string' },
      region: { type: 'string' },
      local: { type: 'string' },
      'every-hours': { type: 'string' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    USAGE,
  );
  if (values['help']) return { help: true, dryRun: false, json: false };
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const everyHours = text('every-hours');
  if (everyHours !== undefined && !/^[1-9]\d*$/.test(everyHours)) {
    throw new SignupUsageError(`--every-hours must be a whole number of hours ≥ 1\n${USAGE}`);
  }
  return {
    dryRun: values['dry-run'] === true,
    json: values['json'] === true,
    ...(everyHours !== undefined ? { everyHours: Number(everyHours) } : {}),
    ...(text('table') ? { table: text('table') } : {}),
    ...(text('region') ? { region: text('region') } : {}),
    ...(text('local') ? { local: text('local') } : {}),
  };
}

export interface DriftBackfillResult {
  /** Items the Scan read (the whole table). */
  readonly scanned: number;
  /** ACTIVE businesses without a drift due time. */
  readonly missing: number;
  /** Given their first due time now (0 with --dry-run). */
  readonly scheduled: number;
  /** Found missing, but changed meanwhile (filed by an event, or no longer ACTIVE): left alone. */
  readonly skipped: number;
  readonly accountIds: readonly string[];
  readonly dryRun: boolean;
}

/** The ACTIVE businesses with a hostname and no drift due time, page by page. */
async function* businessesWithoutDriftCheck(
  store: Store,
): AsyncGenerator<{ scanned: number; ids: string[] }> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await store.doc.send(
      new ScanCommand({
        TableName: store.tableName,
        FilterExpression:
          '#type = :business AND #status = :active AND attribute_exists(hostname) AND attribute_not_exists(driftDueAt)',
        ProjectionExpression: 'accountId',
        ExpressionAttributeNames: { '#type': 'type', '#status': 'status' },
        ExpressionAttributeValues: { ':business': 'Business', ':active': 'ACTIVE' },
        ExclusiveStartKey: startKey,
      }),
    );
    yield {
      scanned: page.ScannedCount ?? 0,
      ids: (page.Items ?? []).map((item) => String(item['accountId'])),
    };
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
}

export async function driftBackfill(
  client: DynamoDBClient,
  tableName: string,
  { everyHours = DEFAULT_DRIFT_EVERY_HOURS, dryRun = false, at = new Date() } = {},
): Promise<DriftBackfillResult> {
  const store = createStore({ tableName, client });
  let scanned = 0;
  let scheduled = 0;
  let skipped = 0;
  const accountIds: string[] = [];
  for await (const page of businessesWithoutDriftCheck(store)) {
    scanned += page.scanned;
    accountIds.push(...page.ids);
    if (dryRun) continue;
    for (const accountId of page.ids) {
      if (await scheduleFirstDriftCheck(store, accountId, at, everyHours)) scheduled += 1;
      else skipped += 1;
    }
  }
  return { scanned, missing: accountIds.length, scheduled, skipped, accountIds, dryRun };
}

export function formatDriftBackfill(result: DriftBackfillResult): string {
  const lines = [
    `scanned ${result.scanned} items: ${result.missing} ACTIVE business(es) without a drift due time`,
  ];
  if (result.dryRun) {
    lines.push(...result.accountIds.map((accountId) => `  would schedule ${accountId}`));
    lines.push('dry run: nothing written');
  } else {
    lines.push(
      `scheduled ${result.scheduled}` +
        (result.skipped > 0 ? `, skipped ${result.skipped} (changed meanwhile)` : ''),
    );
  }
  return lines.join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runOperatorCommand<DriftBackfillOptions, TableTarget>({
    name: 'drift-backfill',
    help: HELP,
    parse: parseDriftBackfillArgs,
    usageError: SignupUsageError,
    client: tableTarget,
    run: async (target, options) => {
      if (options.local) await useLocalRuntime(options.local);
      const tableName = required(options.table, 'TABLE_NAME', '--table');
      const fromEnv = Number(process.env['DRIFT_CHECK_EVERY_HOURS']);
      const everyHours =
        options.everyHours ??
        (Number.isInteger(fromEnv) && fromEnv >= 1 ? fromEnv : DEFAULT_DRIFT_EVERY_HOURS);
      target.client = new DynamoDBClient(target.region === undefined ? {} : { region: target.region });
      const result = await driftBackfill(target.client, tableName, { everyHours, dryRun: options.dryRun });
      console.log(
        options.json ? JSON.stringify({ ...result, everyHours }, null, 2) : formatDriftBackfill(result),
      );
      return 0;
    },
  });
}
