/**
 * `npm run bench` (issue #9): cold start and bundle size against references built in the same run,
 * per-event overhead against a raw replay, service calls per event against the spec's minimum, the
 * trial and drift watches at scale, throughput and memory. Prints one table (figure, goal,
 * pass/fail) and writes bench/results.json. `--quick` runs the same with smaller sizes (under a minute).
 *
 * Every figure that decides a goal is a ratio of two measurements taken in the same run, because
 * absolute times on a shared two-core machine are noise.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type ColdStartResult, measureColdStarts } from './cold-start.ts';
import { type CostPerMillion, costPerMillionEvents, PRICES } from './cost.ts';
import { type DriftWatchScale, measureDriftWatchScale } from './drift-watch-scale.ts';
import { startBenchEnvironment } from './environment.ts';
import { type CallCount, type FlowOverhead, measureCallsPerEvent, measureOverhead } from './overhead.ts';
import {
  callRows,
  coldStartRows,
  costRows,
  driftWatchRows,
  formatTable,
  memoryRows,
  overheadRows,
  type ResultRow,
  requestBudgetRows,
  throughputRows,
  trialWatchRows,
  writeResults,
} from './report.ts';
import { type BudgetCost, measureRequestBudgetCost } from './request-budget.ts';
import { measureThroughput, type Throughput } from './throughput.ts';
import { measureTrialWatchScale, type TrialWatchScale } from './trial-watch-scale.ts';
import type { FlowName } from './workload.ts';

export interface BenchSizes {
  readonly coldStartRepetitions: number;
  /** @default every function of the route table */
  readonly coldStartFunctions?: readonly string[];
  readonly overheadEvents: number;
  readonly overheadWarmup: number;
  readonly trialWatchSizes: readonly number[];
  readonly trialWatchRuns: number;
  readonly throughputAccounts: number;
  readonly throughputFollowUps: readonly FlowName[];
  readonly budgetDays: readonly number[];
  /** Takes of the request budget measured per worker count. @default 200 */
  readonly budgetTakes?: number;
}

export const FULL_SIZES: BenchSizes = {
  coldStartRepetitions: 7,
  overheadEvents: 30,
  overheadWarmup: 3,
  trialWatchSizes: [1_000, 10_000, 100_000],
  trialWatchRuns: 3,
  throughputAccounts: 50,
  throughputFollowUps: [
    'PlanChosen',
    'SubscriptionStatusRequested',
    'EmployeeChanged',
    'LocationCreated',
    'BudgetSet',
    'PayReturnsRequested',
  ],
  budgetDays: [7, 60, 366],
};

export const QUICK_SIZES: BenchSizes = {
  coldStartRepetitions: 3,
  overheadEvents: 12,
  overheadWarmup: 2,
  trialWatchSizes: [1_000, 10_000],
  trialWatchRuns: 2,
  throughputAccounts: 50,
  throughputFollowUps: ['PlanChosen', 'BudgetSet'],
  budgetDays: [7, 60, 366],
};

export type BenchSection =
  | 'cold-start'
  | 'overhead'
  | 'calls'
  | 'trial-watch'
  | 'drift-watch'
  | 'throughput'
  | 'budget';
export const ALL_SECTIONS: readonly BenchSection[] = [
  'cold-start',
  'overhead',
  'calls',
  'trial-watch',
  'drift-watch',
  'throughput',
  'budget',
];

export interface BenchResults {
  readonly mode: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly machine: { node: string; cpus: number; cpuModel: string };
  readonly sizes: BenchSizes;
  readonly sectionMs: Readonly<Record<string, number>>;
  readonly rows: readonly ResultRow[];
  readonly costs?: readonly CostPerMillion[];
  readonly prices?: typeof PRICES;
  readonly coldStarts?: readonly ColdStartResult[];
  readonly overhead?: readonly FlowOverhead[];
  readonly calls?: readonly CallCount[];
  readonly trialWatch?: readonly TrialWatchScale[];
  readonly driftWatch?: readonly DriftWatchScale[];
  readonly throughput?: Throughput;
  readonly requestBudget?: readonly BudgetCost[];
}

export async function runBench(
  sizes: BenchSizes,
  {
    mode,
    sections = ALL_SECTIONS,
    log = () => undefined,
    bundleDir,
  }: {
    mode: string;
    sections?: readonly BenchSection[];
    log?: (message: string) => void;
    /** @default .tmp/bench-bundles */
    bundleDir?: string;
  },
): Promise<BenchResults> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  // Handlers print Powertools logs and EMF metrics on stdout, as in Lambda; they still cost a
  // write each, but into /dev/null, so the one table stays readable.
  const devNull = openSync('/dev/null', 'w');
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    if (typeof chunk === 'string') writeSync(devNull, chunk);
    else writeSync(devNull, chunk);
    return true;
  }) as typeof process.stdout.write;
  const environment = await startBenchEnvironment();
  const rows: ResultRow[] = [];
  const sectionMs: Record<string, number> = {};
  const timed = async <T>(section: BenchSection, label: string, work: () => Promise<T>) => {
    if (!sections.includes(section)) return undefined;
    log(`${label} ...`);
    const sectionStarted = performance.now();
    const result = await work();
    sectionMs[section] = Math.round(performance.now() - sectionStarted);
    return result;
  };
  let results: Omit<
    BenchResults,
    'mode' | 'startedAt' | 'durationMs' | 'machine' | 'sizes' | 'rows' | 'sectionMs'
  >;
  try {
    const coldStarts = await timed('cold-start', 'cold start and memory (a fresh node per run)', () =>
      measureColdStarts(environment, {
        repetitions: sizes.coldStartRepetitions,
        ...(sizes.coldStartFunctions ? { functions: sizes.coldStartFunctions } : {}),
        ...(bundleDir ? { outDir: bundleDir } : {}),
      }),
    );
    const overhead = await timed('overhead', 'overhead per event', () =>
      measureOverhead(environment, { eventsPerFlow: sizes.overheadEvents, warmup: sizes.overheadWarmup }),
    );
    const calls = await timed('calls', 'calls per event', () =>
      measureCallsPerEvent(environment, { budgetDays: sizes.budgetDays }),
    );
    const trialWatch = await timed('trial-watch', 'trial watch at scale', () =>
      measureTrialWatchScale(environment, {
        sizes: sizes.trialWatchSizes,
        runsPerSize: sizes.trialWatchRuns,
      }),
    );
    // Same sizes as the trial watch (issue #15: reads per run O(due) at 1k/10k/100k tracked).
    const driftWatch = await timed('drift-watch', 'drift watch at scale', () =>
      measureDriftWatchScale(environment, {
        sizes: sizes.trialWatchSizes,
        runsPerSize: sizes.trialWatchRuns,
      }),
    );
    const throughput = await timed('throughput', 'throughput', () =>
      measureThroughput(environment, {
        accounts: sizes.throughputAccounts,
        followUps: sizes.throughputFollowUps,
      }),
    );
    const requestBudget = await timed('budget', 'request budget cost per service call', () =>
      measureRequestBudgetCost(environment, { takes: sizes.budgetTakes ?? 200, workers: [1, 5] }),
    );
    const costs = overhead ? costPerMillionEvents(overhead, trialWatch) : undefined;
    if (coldStarts) rows.push(...coldStartRows(coldStarts));
    if (overhead) rows.push(...overheadRows(overhead));
    if (calls) rows.push(...callRows(calls));
    if (trialWatch) rows.push(...trialWatchRows(trialWatch));
    if (driftWatch) rows.push(...driftWatchRows(driftWatch));
    if (throughput) rows.push(...throughputRows(throughput));
    if (requestBudget) rows.push(...requestBudgetRows(requestBudget));
    if (coldStarts) rows.push(...memoryRows(coldStarts));
    if (costs) rows.push(...costRows(costs));
    results = {
      ...(coldStarts ? { coldStarts } : {}),
      ...(overhead ? { overhead } : {}),
      ...(calls ? { calls } : {}),
      ...(trialWatch ? { trialWatch } : {}),
      ...(driftWatch ? { driftWatch } : {}),
      ...(throughput ? { throughput } : {}),
      ...(requestBudget ? { requestBudget } : {}),
      ...(costs ? { costs, prices: PRICES } : {}),
    };
  } finally {
    await environment.close();
    process.stdout.write = stdoutWrite;
    closeSync(devNull);
  }
  return {
    mode,
    startedAt,
    durationMs: performance.now() - started,
    machine: { node: process.version, cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown' },
    sizes,
    sectionMs,
    rows,
    ...results,
  };
}

async function main(argv: readonly string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const only = argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
  const sections = only ? (only.split(',') as BenchSection[]) : ALL_SECTIONS;
  const out = fileURLToPath(new URL('./results.json', import.meta.url));
  const results = await runBench(quick ? QUICK_SIZES : FULL_SIZES, {
    mode: quick ? 'quick' : 'full',
    sections,
    log: (message) => process.stderr.write(`bench: ${message}\n`),
  });
  await writeResults(out, results);
  const failed = results.rows.filter((row) => row.pass === false).length;
  process.stdout.write(
    `\n${formatTable(results.rows)}\n\n${results.rows.length} figures, ${failed} goal(s) not met; ` +
      `${(results.durationMs / 1000).toFixed(1)} s (${results.mode}); details in bench/results.json\n`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
