import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  DescribeArchiveCommand,
  type DescribeArchiveCommandOutput,
  DescribeReplayCommand,
  type DescribeReplayCommandOutput,
  EventBridgeClient,
  ListArchivesCommand,
  ListRulesCommand,
  type Rule,
  StartReplayCommand,
} from '@aws-sdk/client-eventbridge';
import { DEFAULT_INBOUND_SOURCE } from '#functions/contracts/source.ts';
import { queueRoutes } from '#functions/routes.ts';
import { DEFAULT_CONFIG_FILE } from '#lib/config.ts';
import { runOperatorCommand } from './aws-setup.ts';

/**
 * Replays the connector's inbound events of a time window from its EventBridge archive, back to its
 * route rules: after a fix, events that gave up (SyncFailed RETRIES_EXHAUSTED) run again. "When EventBridge sends an event from an archive to the source event bus
 * during a replay, it adds a metadata field to the event, replay-name" (EventBridge user guide,
 * "Archiving and replaying events"); a route handler acknowledges a replayed event whose content it
 * applied before, whatever its id (functions/store/applied-events.ts), so a window can be
 * replayed whole: what was applied is not applied twice.
 *
 * The archive is the stack's (output ArchiveName), found by its pattern when not named; the
 * destinations are the route rules of its bus (StartReplay `Destination.FilterArns`, "a list of ARNs
 * for rules to replay events to"), never the refusal rule.
 */

export const USAGE =
  'usage: npm run replay -- --from <ISO time> --to <ISO time> [--detail-type T] [--dry-run] [--archive NAME] [--region R] [--no-wait]';

const ROUTE_DETAIL_TYPES: readonly string[] = queueRoutes.map((route) => route.detailType);

/** EventBridge user guide: "We recommend you delay replaying archived events for 10 minutes". */
export const ARCHIVE_DELAY_MS = 10 * 60_000;

/** How often a waiting replay asks DescribeReplay. */
export const POLL_INTERVAL_MS = 5_000;

export const HELP = `${USAGE}

Sends the connector's inbound events whose event time is in [--from, --to) from the stack's
EventBridge archive back to its route rules, e.g. after a fix for events that ended in
SyncFailed RETRIES_EXHAUSTED. Each replayed event carries replay-name; a route acknowledges one
whose content it already applied, so replaying a whole window repeats nothing that worked.

  --from <time>       start of the window, ISO 8601 (2025-03-03T09:00:00Z), inclusive
  --to <time>         end of the window, exclusive; not in the future. AWS recommends replaying
                      only events at least 10 minutes old (newer ones may not be archived yet)
  --detail-type T     replay to this route's rule only, one of
                      ${ROUTE_DETAIL_TYPES.join(', ')}
  --dry-run           print the archive, bus, window and rules, start nothing
  --archive NAME      the archive (stack output ArchiveName); default: the one archive of the
                      region whose pattern is {"source":["<inbound source>"]}
  --region R          the connector's AWS region (default: AWS_REGION or your profile's)
  --no-wait           return once the replay started (default: wait until it ends, polling
                      DescribeReplay every ${POLL_INTERVAL_MS / 1000} s; exit 1 if it fails or is cancelled)

The destinations are the route rules only (source + one detail-type). The refusal rule is never
one: events no route takes were answered with SyncFailed when they were first published, and
replaying them there would only answer SyncFailed again. EventBridge replays in one-minute steps
of event time, not necessarily in order within a step; a handler retries an event whose account
is not provisioned yet. The inbound source is inboundSource of ${DEFAULT_CONFIG_FILE} when that
file is here, else ${DEFAULT_INBOUND_SOURCE}. Exit code 1 when the replay fails or is cancelled, 2 on a
usage error. Credentials come from the usual AWS sources (AWS_PROFILE, environment variables, SSO).`;

export interface ReplayOptions {
  /** Print the help and do nothing else. */
  readonly help?: boolean;
  readonly from: Date;
  readonly to: Date;
  readonly detailType?: string;
  readonly dryRun: boolean;
  readonly archive?: string;
  readonly region?: string;
  /** Wait for the replay to end. @default true */
  readonly wait: boolean;
  /** The connector's inbound source (the archive's and the route rules' `source`). @default 'partner.app' */
  readonly inboundSource?: string;
}

export class ReplayUsageError extends Error {
  constructor(message: string) {
    super(`${message}\n${USAGE}`);
    this.name = 'ReplayUsageError';
  }
}

export function parseReplayArgs(argv: readonly string[], now: Date = new Date()): ReplayOptions {
  let values: ReturnType<typeof parseReplayArgv>['values'];
  try {
    ({ values } = parseReplayArgv(argv));
  } catch (error) {
    throw new ReplayUsageError((error as Error).message);
  }
  if (values.help) return { help: true, from: now, to: now, dryRun: false, wait: false };
  if (values.wait && values['no-wait']) throw new ReplayUsageError('--wait and --no-wait exclude each other');
  const from = time(values.from, '--from');
  const to = time(values.to, '--to');
  if (from.getTime() >= to.getTime()) throw new ReplayUsageError('--from must be before --to');
  if (to.getTime() > now.getTime()) {
    throw new ReplayUsageError(`--to is in the future (now is ${now.toISOString()})`);
  }
  const detailType = values['detail-type'];
  if (detailType !== undefined && !ROUTE_DETAIL_TYPES.includes(detailType)) {
    throw new ReplayUsageError(
      `--detail-type ${detailType} is not a route's; the routes take ${ROUTE_DETAIL_TYPES.join(', ')}`,
    );
  }
  return {
    from,
    to,
    ...(detailType === undefined ? {} : { detailType }),
    dryRun: values['dry-run'] ?? false,
    ...(values.archive ? { archive: values.archive } : {}),
    ...(values.region ? { region: values.region } : {}),
    wait: !values['no-wait'],
  };
}

function parseReplayArgv(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      help: { type: 'boolean', short: 'h' },
      from: { type: 'string' },
      to: { type: 'string' },
      'detail-type': { type: 'string' },
      'dry-run': { type: 'boolean' },
      archive: { type: 'string' },
      region: { type: 'string' },
      wait: { type: 'boolean' },
      'no-wait': { type: 'boolean' },
    },
    strict: true,
  });
}

function time(value: string | undefined, flag: string): Date {
  if (value === undefined) throw new ReplayUsageError(`missing ${flag} <ISO time>`);
  // A date-time, not a bare number (Date would read "2025" as a year and "1" as a timestamp).
  const at = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime())) {
    throw new ReplayUsageError(`${flag} ${value} is not an ISO 8601 time (e.g. 2025-03-03T09:00:00Z)`);
  }
  return at;
}

/** `inboundSource` of connector.config.json in `directory` when the file is there and reads; else partner.app. */
export function inboundSourceFromConfig(directory: string = process.cwd()): string {
  const file = resolve(directory, DEFAULT_CONFIG_FILE);
  if (!existsSync(file)) return DEFAULT_INBOUND_SOURCE;
  try {
    const config = JSON.parse(readFileSync(file, 'utf8')) as { inboundSource?: unknown };
    return typeof config.inboundSource === 'string' && config.inboundSource !== ''
      ? config.inboundSource
      : DEFAULT_INBOUND_SOURCE;
  } catch {
    return DEFAULT_INBOUND_SOURCE;
  }
}

export interface ReplayPlan {
  readonly archiveName: string;
  readonly archiveArn: string;
  readonly busArn: string;
  readonly busName: string;
  /** The route rules that receive the replayed events. */
  readonly rules: ReadonlyArray<{ readonly name: string; readonly arn: string; readonly detailType: string }>;
  readonly eventCount?: number;
  readonly sizeBytes?: number;
}

export type ReplayOutcome =
  | { readonly kind: 'dry-run'; readonly plan: ReplayPlan }
  | {
      readonly kind: 'started';
      readonly plan: ReplayPlan;
      readonly replayName: string;
      readonly replayArn: string;
    }
  | {
      readonly kind: 'finished';
      readonly plan: ReplayPlan;
      readonly replayName: string;
      readonly replayArn: string;
      readonly state: string;
      readonly stateReason?: string;
    };

export interface ReplayTiming {
  /** The current time (the 10-minute warning and the replay's name). @default new Date() */
  readonly now?: () => Date;
  /** Between two DescribeReplay calls. @default POLL_INTERVAL_MS */
  readonly pollIntervalMs?: number;
}

/** Runs one replay command; `print` receives the lines an operator reads. */
export async function replay(
  client: EventBridgeClient,
  options: ReplayOptions,
  print: (line: string) => void = console.log,
  timing: ReplayTiming = {},
): Promise<ReplayOutcome> {
  const now = timing.now ?? (() => new Date());
  const inboundSource = options.inboundSource ?? DEFAULT_INBOUND_SOURCE;
  const plan = await planReplay(client, options, inboundSource);
  const window = `[${options.from.toISOString()}, ${options.to.toISOString()})`;
  const routes = `${plan.rules.length} route rule(s) (${plan.rules.map((rule) => rule.detailType).join(', ')})`;
  if (now().getTime() - options.to.getTime() < ARCHIVE_DELAY_MS) {
    print(
      `warning: --to is less than 10 minutes ago; AWS recommends waiting 10 minutes before replaying ("Archiving and replaying events"): the newest events may not be archived yet, and should a replay keep the events' ids, a copy within 5 minutes of its original is dropped by the route's FIFO queue as a duplicate (deduplication on the event id)`,
    );
  }
  if (options.dryRun) {
    print(`dry run: would replay events of ${window}`);
    // DescribeArchive counts the whole archive, not the window.
    print(
      `  archive ${plan.archiveName} (${plan.archiveArn}): ${plan.eventCount ?? '?'} event(s), ${plan.sizeBytes ?? '?'} bytes in all`,
    );
    print(`  bus     ${plan.busName}`);
    print(`  to ${plan.rules.length} route rule(s):`);
    for (const rule of plan.rules) print(`    ${rule.detailType.padEnd(28)} ${rule.name}`);
    return { kind: 'dry-run', plan };
  }

  const started = await startReplay(client, options, plan, now());
  print(`started replay ${started.name} of ${window} from ${plan.archiveName} to ${routes}`);
  if (!options.wait) {
    print(`follow it with: aws events describe-replay --replay-name ${started.name}`);
    return { kind: 'started', plan, replayName: started.name, replayArn: started.arn };
  }
  const pollIntervalMs = timing.pollIntervalMs ?? POLL_INTERVAL_MS;
  let last: DescribeReplayCommandOutput;
  let lastLine = '';
  for (;;) {
    last = await client.send(new DescribeReplayCommand({ ReplayName: started.name }));
    const line = describeProgress(last);
    if (line !== lastLine) print(line);
    lastLine = line;
    if (last.State === 'COMPLETED' || last.State === 'FAILED' || last.State === 'CANCELLED') break;
    await new Promise((resolveWait) => setTimeout(resolveWait, pollIntervalMs));
  }
  if (last.State === 'COMPLETED') {
    print(
      `replay ${started.name} completed: every event of the window went to its route, whose handler applies what was not applied before (watch the outbound events for SyncFailed)`,
    );
  } else {
    print(`replay ${started.name} ${last.State}${last.StateReason ? `: ${last.StateReason}` : ''}`);
  }
  return {
    kind: 'finished',
    plan,
    replayName: started.name,
    replayArn: started.arn,
    state: last.State ?? 'UNKNOWN',
    ...(last.StateReason ? { stateReason: last.StateReason } : {}),
  };
}

/** The archive, its bus and the route rules a replay sends to. */
export async function planReplay(
  client: EventBridgeClient,
  options: Pick<ReplayOptions, 'archive' | 'detailType'>,
  inboundSource: string,
): Promise<ReplayPlan> {
  const archive = options.archive
    ? await describeNamedArchive(client, options.archive)
    : await findInboundArchive(client, inboundSource);
  const busArn = archive.EventSourceArn ?? '';
  const busName = busArn.slice(busArn.lastIndexOf('/') + 1);
  const rules: Array<{ name: string; arn: string; detailType: string }> = [];
  for (const rule of await listRules(client, busArn)) {
    const detailType = routeDetailType(rule, inboundSource);
    if (detailType === undefined) continue;
    if (options.detailType !== undefined && detailType !== options.detailType) continue;
    if (rule.Name && rule.Arn) rules.push({ name: rule.Name, arn: rule.Arn, detailType });
  }
  if (rules.length === 0) {
    const which = options.detailType ? `the ${options.detailType} route` : 'any route';
    throw new Error(
      `no rule of ${which} (source ${inboundSource}, one detail-type) on bus ${busName}: is ${archive.ArchiveName} the connector's archive?`,
    );
  }
  return {
    archiveName: archive.ArchiveName ?? '',
    archiveArn: archive.ArchiveArn ?? '',
    busArn,
    busName,
    rules,
    ...(archive.EventCount === undefined ? {} : { eventCount: archive.EventCount }),
    ...(archive.SizeBytes === undefined ? {} : { sizeBytes: archive.SizeBytes }),
  };
}

async function describeNamedArchive(
  client: EventBridgeClient,
  name: string,
): Promise<DescribeArchiveCommandOutput> {
  try {
    return await client.send(new DescribeArchiveCommand({ ArchiveName: name }));
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') {
      throw new ReplayUsageError(
        `no archive named ${name} in this region (the stack output ArchiveName names it)`,
      );
    }
    throw error;
  }
}

/** The one archive whose pattern is exactly {"source": [inboundSource]} (what the stack creates). */
async function findInboundArchive(
  client: EventBridgeClient,
  inboundSource: string,
): Promise<DescribeArchiveCommandOutput> {
  const names: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await client.send(new ListArchivesCommand(nextToken ? { NextToken: nextToken } : {}));
    for (const archive of page.Archives ?? []) if (archive.ArchiveName) names.push(archive.ArchiveName);
    nextToken = page.NextToken;
  } while (nextToken);
  const matching: DescribeArchiveCommandOutput[] = [];
  for (const name of names) {
    const archive = await client.send(new DescribeArchiveCommand({ ArchiveName: name }));
    if (isInboundPattern(archive.EventPattern, inboundSource)) matching.push(archive);
  }
  const [only, ...more] = matching;
  if (only === undefined) {
    throw new ReplayUsageError(
      `no archive of ${inboundSource} events in this region (${names.length} archive(s) looked at): name it with --archive <name> (the stack output ArchiveName)`,
    );
  }
  if (more.length > 0) {
    throw new ReplayUsageError(
      `${matching.length} archives keep ${inboundSource} events (${matching.map((archive) => archive.ArchiveName).join(', ')}): name one with --archive <name> (the stack output ArchiveName)`,
    );
  }
  return only;
}

function isInboundPattern(pattern: string | undefined, inboundSource: string): boolean {
  const parsed = parseJson(pattern);
  if (!isRecord(parsed)) return false;
  const keys = Object.keys(parsed);
  return keys.length === 1 && keys[0] === 'source' && sameList(parsed['source'], [inboundSource]);
}

async function listRules(client: EventBridgeClient, busArn: string): Promise<Rule[]> {
  const rules: Rule[] = [];
  let nextToken: string | undefined;
  do {
    const page = await client.send(
      new ListRulesCommand({ EventBusName: busArn, ...(nextToken ? { NextToken: nextToken } : {}) }),
    );
    rules.push(...(page.Rules ?? []));
    nextToken = page.NextToken;
  } while (nextToken);
  return rules;
}

/** A route rule's detail-type: its pattern has `source: [inboundSource]` and one route detail-type. */
function routeDetailType(rule: Rule, inboundSource: string): string | undefined {
  const pattern = parseJson(rule.EventPattern);
  if (!isRecord(pattern) || !sameList(pattern['source'], [inboundSource])) return undefined;
  const detailTypes = pattern['detail-type'];
  if (!Array.isArray(detailTypes) || detailTypes.length !== 1) return undefined;
  const [detailType] = detailTypes;
  return typeof detailType === 'string' && ROUTE_DETAIL_TYPES.includes(detailType) ? detailType : undefined;
}

/** `connector-replay-<yyyymmddhhmmss>` (UTC); ReplayName allows 64 characters of [\.\-_A-Za-z0-9]. */
export function replayName(at: Date, attempt = 1): string {
  const stamp = at
    .toISOString()
    .replace(/\.\d{3}Z$/, '')
    .replace(/\D/g, '');
  return `connector-replay-${stamp}${attempt > 1 ? `-${attempt}` : ''}`;
}

async function startReplay(
  client: EventBridgeClient,
  options: ReplayOptions,
  plan: ReplayPlan,
  at: Date,
): Promise<{ name: string; arn: string }> {
  // Two replays started in the same second: the second one takes the next free suffix.
  for (let attempt = 1; ; attempt++) {
    const name = replayName(at, attempt);
    try {
      const { ReplayArn } = await client.send(
        new StartReplayCommand({
          ReplayName: name,
          Description: `npm run replay${options.detailType ? ` --detail-type ${options.detailType}` : ''}`,
          EventSourceArn: plan.archiveArn,
          EventStartTime: options.from,
          EventEndTime: options.to,
          // Back to the archive's own bus (StartReplay refuses another), to the route rules only:
          // FilterArns is "a list of ARNs for rules to replay events to" (StartReplay).
          Destination: { Arn: plan.busArn, FilterArns: plan.rules.map((rule) => rule.arn) },
        }),
      );
      return { name, arn: ReplayArn ?? '' };
    } catch (error) {
      if ((error as Error).name !== 'ResourceAlreadyExistsException' || attempt >= 10) throw error;
    }
  }
}

function describeProgress(replay: DescribeReplayCommandOutput): string {
  const last = replay.EventLastReplayedTime
    ? `, events up to ${replay.EventLastReplayedTime.toISOString()}`
    : '';
  const reason = replay.StateReason ? ` (${replay.StateReason})` : '';
  return `  ${replay.State ?? 'UNKNOWN'}${last}${reason}`;
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameList(value: unknown, expected: readonly string[]): boolean {
  return (
    Array.isArray(value) &&
    value.length === expected.length &&
    value.every((item, index) => item === expected[index])
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runOperatorCommand({
    name: 'replay',
    help: HELP,
    parse: (argv) => parseReplayArgs(argv),
    client: (region) => new EventBridgeClient(region ? { region } : {}),
    run: async (client, options) => {
      const outcome = await replay(client, { ...options, inboundSource: inboundSourceFromConfig() });
      return outcome.kind === 'finished' && outcome.state !== 'COMPLETED' ? 1 : 0;
    },
    usageError: ReplayUsageError,
  });
}
