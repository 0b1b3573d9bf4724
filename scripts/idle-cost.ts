import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { queueRoutes } from '#functions/routes.ts';
import { EXAMPLE_CONFIG_FILE, parseConnectorConfig } from '#lib/config.ts';
import { type CfnResource, type SynthesizedStack, synthesizeLocalTemplates } from '#local/template.ts';

/**
 * The idle monthly cost of one deployment (docs/performance.md, "Idle cost"): what it costs with no
 * event at all, counted from the template synthesized from the example config, so no count is typed
 * by hand. `npm run idle-cost` prints the section; `-- --write` puts it into docs/performance.md
 * between its markers; test/infra/idle-cost.test.ts keeps the page and the template in step.
 */

/** us-east-1 list prices, read 2026-11-28 (each source in the page's table). */
export const IDLE_PRICES = {
  alarmMetric: 0.1,
  compositeAlarm: 0.5,
  dashboard: 3,
  kmsKey: 1,
  secret: 0.4,
  customMetric: 0.3,
  sqsFifoRequest: 0.5 / 1e6,
  sqsStandardRequest: 0.4 / 1e6,
  lambdaRequest: 0.2 / 1e6,
  lambdaGbSecond: 0.0000133334,
  eventBridgeEvent: 1 / 1e6,
} as const;

/** A month as the prices count it: 30 days. */
export const MONTH_SECONDS = 30 * 24 * 3600;
/**
 * Lambda's pollers of an SQS event source at low traffic: five, "and can optimize to as few as 2
 * ... not available when you enable the maximum concurrency setting", which every event source
 * here sets (Lambda Developer Guide, "Configuring scaling behavior for SQS event source
 * mappings"). Pipes publish no figure: counted as Lambda's.
 */
export const IDLE_POLLERS = 5;
/** Each poller's long poll waits at most 20 s (ReceiveMessage WaitTimeSeconds ≤ 20): fewest requests. */
export const LONG_POLL_SECONDS = 20;
/** An idle watch run (nothing due) billed as at most this long. */
export const IDLE_RUN_MS = 1000;
/** The watches whose metrics are published on every run, nothing due or not. */
const WATCH_MODULES = ['functions/trial-watch/trial-watch.ts', 'functions/drift-watch/drift-watch.ts'];

export interface IdleLine {
  readonly what: string;
  readonly count: number;
  readonly unit: string;
  readonly monthly: number;
}

type Resources = Record<string, CfnResource>;

const props = (resource: CfnResource) => (resource.Properties ?? {}) as Record<string, unknown>;

function all(stacks: readonly SynthesizedStack[]): Resources {
  return Object.assign({}, ...stacks.map((stack) => stack.template.Resources)) as Resources;
}

function ofType(resources: Resources, type: string): [string, CfnResource][] {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

/** The queue a `Fn::GetAtt [queue, Arn]` names, FIFO or not. */
function queueIsFifo(resources: Resources, arn: unknown): boolean {
  const target = (arn as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
  const queue = target === undefined ? undefined : resources[target];
  if (queue?.Type !== 'AWS::SQS::Queue')
    throw new Error(`idle cost: ${JSON.stringify(arn)} is not a queue of the template`);
  return props(queue)['FifoQueue'] === true;
}

/** Runs per month of `rate(n unit)`; a cron expression is not counted (none is by default). */
function runsPerMonth(expression: string): number {
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (!rate) throw new Error(`idle cost: cannot count the runs of ${expression}`);
  const seconds = { minute: 60, hour: 3600, day: 86_400 }[
    rate[2]!.replace(/s$/, '') as 'minute' | 'hour' | 'day'
  ];
  return MONTH_SECONDS / (Number(rate[1]) * seconds);
}

/** Metric names each watch adds on every run (its `metrics.addMetric` calls). */
export function watchMetricsPerRun(root: URL): number {
  return WATCH_MODULES.reduce(
    (sum, file) =>
      sum + (readFileSync(new URL(file, root), 'utf8').match(/metrics\.addMetric\(/g) ?? []).length,
    0,
  );
}

export function idleCost(stacks: readonly SynthesizedStack[], watchMetrics: number): IdleLine[] {
  const resources = all(stacks);
  const alarms = ofType(resources, 'AWS::CloudWatch::Alarm');
  // A metric math alarm is billed per metric it reads; a plain alarm is one metric.
  const alarmMetrics = alarms.reduce((sum, [, alarm]) => {
    const metrics = props(alarm)['Metrics'] as { MetricStat?: unknown }[] | undefined;
    return sum + (metrics ? metrics.filter((metric) => metric.MetricStat !== undefined).length : 1);
  }, 0);
  const pollers = [
    ...ofType(resources, 'AWS::Lambda::EventSourceMapping').map(
      ([, mapping]) => props(mapping)['EventSourceArn'],
    ),
    ...ofType(resources, 'AWS::Pipes::Pipe').map(([, pipe]) => props(pipe)['Source']),
  ].map((arn) => queueIsFifo(resources, arn));
  const receivesPerSource = IDLE_POLLERS * (MONTH_SECONDS / LONG_POLL_SECONDS);
  const fifoSources = pollers.filter(Boolean).length;
  const standardSources = pollers.length - fifoSources;
  const schedules = ofType(resources, 'AWS::Events::Rule').filter(
    ([, rule]) => typeof props(rule)['ScheduleExpression'] === 'string',
  );
  const scheduledRuns = schedules.reduce(
    (sum, [, rule]) => sum + runsPerMonth(String(props(rule)['ScheduleExpression'])),
    0,
  );
  const memoryOf = (rule: CfnResource) => {
    const targets = props(rule)['Targets'] as { Arn?: { 'Fn::GetAtt'?: [string, string] } }[];
    const fn = resources[targets[0]?.Arn?.['Fn::GetAtt']?.[0] ?? ''];
    return Number(props(fn ?? { Type: '' })['MemorySize'] ?? 128);
  };
  const gbSeconds = schedules.reduce(
    (sum, [, rule]) =>
      sum +
      runsPerMonth(String(props(rule)['ScheduleExpression'])) *
        (IDLE_RUN_MS / 1000) *
        (memoryOf(rule) / 1024),
    0,
  );
  const priced = (what: string, count: number, unit: string, price: number): IdleLine => ({
    what,
    count,
    unit,
    monthly: count * price,
  });
  const counted = (type: string) => ofType(resources, type).length;
  const poll = `${IDLE_POLLERS} pollers × a ${LONG_POLL_SECONDS} s long poll`;
  return [
    priced(
      'CloudWatch alarms (standard resolution)',
      alarmMetrics,
      `alarm metrics (${alarms.length} alarms; a metric math alarm counts each metric it reads)`,
      IDLE_PRICES.alarmMetric,
    ),
    priced(
      'CloudWatch composite alarms',
      counted('AWS::CloudWatch::CompositeAlarm'),
      'composite alarms',
      IDLE_PRICES.compositeAlarm,
    ),
    priced(
      'CloudWatch dashboard',
      counted('AWS::CloudWatch::Dashboard'),
      'dashboards',
      IDLE_PRICES.dashboard,
    ),
    priced(
      'custom metrics the watches publish every run',
      watchMetrics,
      'metrics (trial and drift watch)',
      IDLE_PRICES.customMetric,
    ),
    priced('KMS customer managed keys', counted('AWS::KMS::Key'), 'keys', IDLE_PRICES.kmsKey),
    priced(
      'Secrets Manager (the token; read only when a function calls the service)',
      counted('AWS::SecretsManager::Secret'),
      'secrets',
      IDLE_PRICES.secret,
    ),
    priced(
      'SQS receives of empty FIFO queues',
      fifoSources * receivesPerSource,
      `requests (${fifoSources} event sources × ${poll})`,
      IDLE_PRICES.sqsFifoRequest,
    ),
    priced(
      'SQS receives of empty standard queues',
      standardSources * receivesPerSource,
      `requests (${standardSources} event sources and pipes × ${poll})`,
      IDLE_PRICES.sqsStandardRequest,
    ),
    priced(
      'scheduled watch runs: Lambda requests',
      scheduledRuns,
      `invocations (${schedules.length} schedules)`,
      IDLE_PRICES.lambdaRequest,
    ),
    priced(
      'scheduled watch runs: Lambda compute',
      gbSeconds,
      `GB-s (≤ ${IDLE_RUN_MS} ms a run at the function's memory)`,
      IDLE_PRICES.lambdaGbSecond,
    ),
    priced(
      'scheduled watch runs: their schedule events',
      scheduledRuns,
      'events (priced as custom events, at most)',
      IDLE_PRICES.eventBridgeEvent,
    ),
  ];
}

const dollars = (value: number) => (value === 0 ? '$0' : value >= 0.01 ? `$${value.toFixed(2)}` : '< $0.01');
const amount = (value: number) =>
  Number.isInteger(value) ? value.toLocaleString('en-US') : value.toFixed(1);

export const START_MARKER = '<!-- idle-cost:start (npm run idle-cost -- --write) -->';
export const END_MARKER = '<!-- idle-cost:end -->';

export function idleCostSection(lines: readonly IdleLine[]): string {
  const total = lines.reduce((sum, entry) => sum + entry.monthly, 0);
  return [
    START_MARKER,
    '| what | count per month | of | monthly |',
    '|---|---:|---|---:|',
    ...lines.map(
      (entry) => `| ${entry.what} | ${amount(entry.count)} | ${entry.unit} | ${dollars(entry.monthly)} |`,
    ),
    `| **total, idle** | | | **${dollars(total)}** |`,
    END_MARKER,
  ].join('\n');
}

const ROOT = new URL('../', import.meta.url);
export const PAGE = 'docs/performance.md';

export async function currentIdleCostSection(): Promise<string> {
  const example = JSON.parse(readFileSync(new URL(EXAMPLE_CONFIG_FILE, ROOT), 'utf8')) as unknown;
  const config = parseConnectorConfig(example, { knownRoutes: queueRoutes, origin: EXAMPLE_CONFIG_FILE });
  return idleCostSection(idleCost(await synthesizeLocalTemplates(config), watchMetricsPerRun(ROOT)));
}

/** The page with its section between the markers replaced. */
export function withSection(page: string, section: string): string {
  const start = page.indexOf(START_MARKER);
  const end = page.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`${PAGE} has no ${START_MARKER} ... ${END_MARKER}`);
  return `${page.slice(0, start)}${section}${page.slice(end + END_MARKER.length)}`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const section = await currentIdleCostSection();
  if (process.argv.includes('--write')) {
    const file = new URL(PAGE, ROOT);
    writeFileSync(file, withSection(readFileSync(file, 'utf8'), section));
    console.log(`${PAGE}: idle cost section written`);
  } else {
    console.log(section);
  }
}
