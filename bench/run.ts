/**
 * `npm run bench` (issues #9, #15, #17, #24): cold start, module load and bundle size against
 * references built in the same run (per function, the required stack making the same requests), per-event overhead against a raw replay, end-to-end latency through the
 * local runtime, service calls per event against the spec's minimum, the trial and drift watches at
 * scale, throughput, the request budget's cost per call, memory, and cost per million events.
 * Prints one table (figure, goal, pass/fail) and writes bench/results.json. Options: BENCH_USAGE
 * below (`--quick` runs every section with smaller sizes; `--only` and `--functions` narrow the
 * run; `--check` exits 1 when a goal is missed; `--markdown` also writes the results page).
 *
 * Every figure that decides a goal is a ratio of two measurements taken in the same run, because
 * absolute times on a shared two-core machine are noise.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseSeed } from '#local/aws/delivery-model.ts';
import { commandLine, type MachineDescription, sourceRevision, thisMachine } from '#scripts/provenance.ts';
import { functionTargets } from './bundle.ts';
import { type ColdStartResult, measureColdStarts } from './cold-start.ts';
import { type CostPerMillion, costPerMillionEvents, PRICES } from './cost.ts';
import { type DriftWatchScale, measureDriftWatchScale } from './drift-watch-scale.ts';
import { startBenchEnvironment } from './environment.ts';
import { type FlowLatency, measureLatency } from './latency.ts';
import {
  type CallCount,
  type FlowOverhead,
  measureCallsPerEvent,
  measureOverhead,
  measureStackFloorOverhead,
} from './overhead.ts';
import {
  callRows,
  coldStartRows,
  costRows,
  driftWatchRows,
  formatMachine,
  formatMarkdown,
  formatTable,
  latencyRows,
  memoryRows,
  overheadRows,
  type ResultRow,
  requestBudgetRows,
  stackFloorOverheadRow,
  throughputRows,
  trialWatchRows,
  warmProfileRows,
  writeResults,
} from './report.ts';
import { type BudgetCost, measureRequestBudgetCost } from './request-budget.ts';
import { MIN_JUDGED_RUNS } from './stats.ts';
import { measureThroughput, type Throughput } from './throughput.ts';
import { measureTrialWatchScale, type TrialWatchScale } from './trial-watch-scale.ts';
import { profileWarmFlows, type WarmProfile } from './warm-profile.ts';
import type { FlowName } from './workload.ts';

export interface BenchSizes {
  /** Rounds of cold starts: every ratio's spread is over these (at least 3). */
  readonly coldStartRepetitions: number;
  /** @default every function of the route table */
  readonly coldStartFunctions?: readonly string[];
  readonly overheadEvents: number;
  readonly overheadWarmup: number;
  /** Independent runs of each flow's overhead measurement: every route's goal is on their median (at least 3). */
  readonly overheadRuns: number;
  /** Events per flow of the profiled warm pass (section 2c: where the CPU goes, no ratio). */
  readonly warmProfileEvents: number;
  /** Events per flow run before the profiled pass (not profiled). @default 10 */
  readonly warmProfileWarmup?: number;
  /** Events per flow and run of the end-to-end latency measurement. */
  readonly latencyEvents: number;
  /** Runs of the latency measurement: its goal is the median of the runs' p50 (at least 3). */
  readonly latencyRuns: number;
  /** Events per flow and run sent before the measured ones. @default 2 */
  readonly latencyWarmup?: number;
  readonly trialWatchSizes: readonly number[];
  readonly trialWatchRuns: number;
  readonly throughputAccounts: number;
  readonly throughputFollowUps: readonly FlowName[];
  readonly budgetDays: readonly number[];
  /** Takes of the request budget measured per worker count. @default 200 */
  readonly budgetTakes?: number;
  /**
   * The flows the overhead, warm-profile and latency sections measure (calls per event always
   * covers every flow). @default every inbound detail-type (FLOWS)
   */
  readonly flows?: readonly FlowName[];
}

const FULL_SIZES: BenchSizes = {
  coldStartRepetitions: 7,
  overheadEvents: 40,
  overheadWarmup: 3,
  overheadRuns: 5,
  warmProfileEvents: 60,
  latencyEvents: 40,
  latencyRuns: MIN_JUDGED_RUNS,
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

const QUICK_SIZES: BenchSizes = {
  coldStartRepetitions: 3,
  overheadEvents: 8,
  overheadWarmup: 2,
  overheadRuns: 3,
  warmProfileEvents: 10,
  latencyEvents: 10,
  latencyRuns: MIN_JUDGED_RUNS,
  trialWatchSizes: [1_000, 10_000],
  trialWatchRuns: 2,
  throughputAccounts: 50,
  throughputFollowUps: ['PlanChosen', 'BudgetSet'],
  budgetDays: [7, 60, 366],
};

export type BenchSection =
  | 'cold-start'
  | 'overhead'
  | 'warm-profile'
  | 'calls'
  | 'trial-watch'
  | 'drift-watch'
  | 'throughput'
  | 'budget'
  | 'latency';
export const ALL_SECTIONS: readonly BenchSection[] = [
  'cold-start',
  'overhead',
  'warm-profile',
  'latency',
  'calls',
  'trial-watch',
  'drift-watch',
  'throughput',
  'budget',
];

/** Where the figures were measured: ratios travel between machines, absolute times do not. */
export interface BenchMachine extends MachineDescription {
  /** The code measured (scripts/provenance.ts). */
  readonly revision: string;
  /** 1-minute load average when the run started and when it ended: a busy machine spreads the ratios. */
  readonly loadAverage: { readonly start: number; readonly end: number };
}

export interface BenchResults {
  readonly mode: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly machine: BenchMachine;
  readonly sizes: BenchSizes;
  readonly sectionMs: Readonly<Record<string, number>>;
  readonly rows: readonly ResultRow[];
  readonly costs?: readonly CostPerMillion[];
  readonly prices?: typeof PRICES;
  readonly coldStarts?: readonly ColdStartResult[];
  readonly overhead?: readonly FlowOverhead[];
  /** The required stack alone on the warm path (bench/stack-floor-warm.ts), measured as a flow is. */
  readonly stackFloorOverhead?: Omit<FlowOverhead, 'flow'>;
  readonly warmProfile?: readonly WarmProfile[];
  readonly calls?: readonly CallCount[];
  readonly trialWatch?: readonly TrialWatchScale[];
  readonly driftWatch?: readonly DriftWatchScale[];
  readonly throughput?: Throughput;
  readonly requestBudget?: readonly BudgetCost[];
  readonly latency?: readonly FlowLatency[];
}

export async function runBench(
  sizes: BenchSizes,
  {
    mode,
    sections = ALL_SECTIONS,
    log = () => undefined,
    bundleDir,
    delivery = {},
  }: {
    mode: string;
    sections?: readonly BenchSection[];
    log?: (message: string) => void;
    /** The local runtime's delivery seed and ordering (local/aws/delivery-model.ts). @default a random seed */
    delivery?: { readonly seed?: number; readonly orderedDelivery?: boolean };
    /** @default .tmp/bench-bundles */
    bundleDir?: string;
  },
): Promise<BenchResults> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const revision = sourceRevision();
  // Handlers print Powertools logs and EMF metrics on stdout, as in Lambda; they still cost a
  // write each, but into /dev/null, so the one table stays readable.
  const devNull = openSync('/dev/null', 'w');
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    if (typeof chunk === 'string') writeSync(devNull, chunk);
    else writeSync(devNull, chunk);
    return true;
  }) as typeof process.stdout.write;
  const environment = await startBenchEnvironment({ ...delivery, announce: log });
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
    const overheadSizes = {
      eventsPerFlow: sizes.overheadEvents,
      warmup: sizes.overheadWarmup,
      runs: sizes.overheadRuns,
      ...(sizes.flows ? { flows: sizes.flows } : {}),
    };
    const measured = await timed('overhead', 'overhead per event (and the stack alone)', async () => ({
      flows: await measureOverhead(environment, overheadSizes),
      // After the flows: their handlers have set the functions' variables the shared clients read.
      stackFloor: await measureStackFloorOverhead(environment, overheadSizes),
    }));
    const overhead = measured?.flows;
    const stackFloorOverhead = measured?.stackFloor;
    const warmProfile = await timed('warm-profile', 'where a warm handler spends its CPU (profiled)', () =>
      profileWarmFlows(environment, {
        events: sizes.warmProfileEvents,
        ...(sizes.flows ? { flows: sizes.flows } : {}),
        ...(sizes.warmProfileWarmup === undefined ? {} : { warmup: sizes.warmProfileWarmup }),
      }),
    );
    const latency = await timed('latency', 'end-to-end latency through the local runtime', () =>
      measureLatency(environment, {
        eventsPerFlow: sizes.latencyEvents,
        runs: sizes.latencyRuns,
        ...(sizes.flows ? { flows: sizes.flows } : {}),
        ...(sizes.latencyWarmup === undefined ? {} : { warmup: sizes.latencyWarmup }),
      }),
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
    if (stackFloorOverhead) rows.push(stackFloorOverheadRow(stackFloorOverhead));
    if (warmProfile) rows.push(...warmProfileRows(warmProfile));
    if (latency) rows.push(...latencyRows(latency));
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
      ...(stackFloorOverhead ? { stackFloorOverhead } : {}),
      ...(warmProfile ? { warmProfile } : {}),
      ...(latency ? { latency } : {}),
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
    machine: {
      revision,
      ...thisMachine(),
      loadAverage: { start: loadAtStart, end: loadavg()[0] ?? Number.NaN },
    },
    sizes,
    sectionMs,
    rows,
    ...results,
  };
}

export const BENCH_USAGE = `usage: npm run bench [-- [--quick] [--only=<section>,...] [--functions=<name>,...] [--check] [--markdown <file>]
                       [--seed <n>] [--ordered-delivery] [--help]]

  --quick             smaller sizes; same sections
  --only=<sections>   only these sections: ${ALL_SECTIONS.join(', ')}
  --functions=<names> the cold-start section for these functions only (route table names)
  --check             exit 1 when a figure misses its goal (for people and release checks)
  --markdown <file>   also write the results as Markdown: the table, where it ran, and the command
  --seed <n>          the local runtime's delivery seed (default: a random one, printed at start)
  --ordered-delivery  the local runtime delivers in send order and nothing twice: for debugging only,
                      AWS gives no such order (docs/local.md)
  -h, --help          this text`;

export interface BenchArguments {
  readonly quick: boolean;
  readonly sections: readonly BenchSection[];
  /** Cold starts of these functions only. */
  readonly functions?: readonly string[];
  readonly check: boolean;
  readonly markdown?: string;
  /** The local runtime's delivery seed; undefined: a random one. */
  readonly seed?: number;
  readonly orderedDelivery: boolean;
  readonly help: boolean;
}

export function parseBenchArgs(argv: readonly string[]): BenchArguments {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      functions: { type: 'string' },
      check: { type: 'boolean', default: false },
      markdown: { type: 'string' },
      seed: { type: 'string' },
      'ordered-delivery': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  const seed = values.seed === undefined ? undefined : parseSeed(values.seed);
  const sections = values.only ? values.only.split(',').map((name) => name.trim()) : [...ALL_SECTIONS];
  const unknown = sections.filter((name) => !(ALL_SECTIONS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`unknown section ${unknown.join(', ')}`);
  const functions = values.functions?.split(',').map((name) => name.trim());
  const known = functionTargets().map((target) => target.name);
  const unknownFunctions = (functions ?? []).filter((name) => !known.includes(name));
  if (unknownFunctions.length > 0) {
    throw new Error(`unknown function ${unknownFunctions.join(', ')} (known: ${known.join(', ')})`);
  }
  return {
    quick: values.quick,
    sections: sections as BenchSection[],
    ...(functions ? { functions } : {}),
    check: values.check,
    ...(values.markdown ? { markdown: values.markdown } : {}),
    ...(seed === undefined ? {} : { seed }),
    orderedDelivery: values['ordered-delivery'],
    help: values.help,
  };
}

/** The exit code of a run: with --check, 1 when a figure missed its goal. */
export function exitCodeOf(results: Pick<BenchResults, 'rows'>, check: boolean): number {
  return check && results.rows.some((row) => row.pass === false) ? 1 : 0;
}

async function main(argv: readonly string[]): Promise<number> {
  let args: BenchArguments;
  try {
    args = parseBenchArgs(argv);
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n${BENCH_USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${BENCH_USAGE}\n`);
    return 0;
  }
  const out = fileURLToPath(new URL('./results.json', import.meta.url));
  const sizes = args.quick ? QUICK_SIZES : FULL_SIZES;
  const results = await runBench(args.functions ? { ...sizes, coldStartFunctions: args.functions } : sizes, {
    mode: args.quick ? 'quick' : 'full',
    sections: args.sections,
    log: (message) => process.stderr.write(`bench: ${message}\n`),
    delivery: {
      ...(args.seed === undefined ? {} : { seed: args.seed }),
      ...(args.orderedDelivery ? { orderedDelivery: true } : {}),
    },
  });
  await writeResults(out, results);
  const command = commandLine('bench', argv);
  if (args.markdown) await writeFile(args.markdown, formatMarkdown(results, command));
  const failed = results.rows.filter((row) => row.pass === false).length;
  process.stdout.write(
    `\n${formatMachine(results)}\n\n${formatTable(results.rows)}\n\n${results.rows.length} figures, ${failed} goal(s) not met; ` +
      `${(results.durationMs / 1000).toFixed(1)} s (${results.mode}); details in bench/results.json` +
      `${args.markdown ? ` and ${args.markdown}` : ''}\n`,
  );
  return exitCodeOf(results, args.check);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(
        `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
