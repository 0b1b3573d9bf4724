import { writeFile } from 'node:fs/promises';
import { formatMachineDescription, formatRunDate, generatedLine, markdownCell } from '#scripts/provenance.ts';
import { STACK_FLOOR } from './bundle.ts';
import type { ColdStartResult } from './cold-start.ts';
import type { CostPerMillion } from './cost.ts';
import { beyond } from './cpu-profile.ts';
import { DRIFT_DUE_PER_RUN, type DriftWatchScale } from './drift-watch-scale.ts';
import type { FlowLatency } from './latency.ts';
import type { CallCount, FlowOverhead } from './overhead.ts';
import { RECORDED_SYSTEMS, type RecordedSystem, type RequestTimes } from './recorder.ts';
import type { BudgetCost } from './request-budget.ts';
import type { BenchResults } from './run.ts';
import { MIN_JUDGED_RUNS, median, round } from './stats.ts';
import type { Throughput } from './throughput.ts';
import { DUE_PER_RUN, type TrialWatchScale } from './trial-watch-scale.ts';
import type { WarmProfile } from './warm-profile.ts';

/** One row of the single table `npm run bench` prints: a figure, its goal, and whether it holds. */
export interface ResultRow {
  readonly section: string;
  readonly item: string;
  readonly figure: string;
  readonly goal: string;
  /** undefined: informational, no goal. */
  readonly pass: boolean | undefined;
}

export const GOALS = {
  /**
   * One conditional update per call, plus the few retries of contended takes (a failed
   * conditional update still costs a write unit). At 2 a take that always tried the wrong update
   * first, 1.995 per call, passed unnoticed.
   */
  budgetRequestsPerCall: 1.1,
  /**
   * Issue #24: load + first record of a fresh process, against the function's stack floor (the
   * required stack making the same requests), median of the rounds.
   */
  firstInvocationRatio: 1.1,
  /** Issue #24: module load against the function's stack floor's, median of the rounds. */
  moduleLoadRatio: 1.1,
  /** Issue #24: every route, warm, against its requests made raw, median of the runs. */
  overheadRatio: 1.15,
  /** Issue #17: end to end, the time inside the handler at most this × the time of the calls it makes (median of the runs' p50). */
  ownShareOfCalls: 1.1,
  trialWatchTimeRatio: 1.5,
  /** "due + small constant": one empty page per trial shard at most. */
  trialWatchExtraItems: 16,
  driftWatchTimeRatio: 1.5,
  /** "due + small constant": the unconfirmed-signups count and one empty page per drift shard at most. */
  driftWatchExtraItems: 17,
  memoryHeadroom: 1.5,
} as const;

const kb = (bytes: number) => `${round(bytes / 1024, 1)} KB`;

/** min / median / max of the finite values, and how many there were. */
export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
  readonly n: number;
}

function spreadOf(values: readonly number[]): Spread {
  const finite = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  return {
    min: finite[0] ?? Number.NaN,
    median: median(finite),
    max: finite.at(-1) ?? Number.NaN,
    n: finite.length,
  };
}

/**
 * `1.183 (1.121–1.242, n=7)`: the median ratio, its spread over the runs, and how many runs. Three
 * decimals: a goal is judged on the unrounded ratio, and at two a ratio of 1.104 printed as 1.1
 * beside a goal of ≤ 1.1 and a FAIL.
 */
function formatSpread(spread: Spread): string {
  const shown = (value: number) => (Number.isFinite(value) ? value.toFixed(3) : String(value));
  return `${shown(spread.median)} (${shown(spread.min)}–${shown(spread.max)}, n=${spread.n})`;
}

/** Ratios taken within each round (both measured in it), so drift between rounds cancels. */
function perRound(numerators: readonly number[], denominators: readonly number[]): number[] {
  return numerators.map((value, index) => value / (denominators[index] ?? Number.NaN));
}

export function coldStartRows(results: readonly ColdStartResult[]): ResultRow[] {
  const byName = new Map(results.map((result) => [result.name, result]));
  const floor = byName.get('floor');
  const rows: ResultRow[] = [];
  // The references built for one function (its raw reference, its stack floor) show in its rows.
  for (const reference of results.filter(
    (result) => result.kind === 'reference' && !result.name.startsWith('raw-') && !result.referenceOf,
  )) {
    rows.push({
      section: '1 cold start',
      item: `reference ${reference.name}`,
      figure: `load ${round(reference.initMsMedian, 0)} ms, ready ${round(reference.readyMsMedian, 0)} ms, ${kb(reference.bytes)} (n=${reference.samples})`,
      goal: '—',
      pass: undefined,
    });
  }
  // The required stack alone (the generic stack-floor) against the bare requests and the bare SDK
  // clients: how much the stack itself costs before any connector code runs (info).
  const stack = byName.get(STACK_FLOOR);
  if (stack) {
    const raw = byName.get(`raw-${STACK_FLOOR}`);
    rows.push(
      firstInvocationRow(stack, raw, 'raw', undefined),
      moduleLoadRow(stack, floor, 'floor', undefined),
    );
  }
  for (const fn of results.filter((result) => result.kind === 'function')) {
    const stackFloor = results.find((result) => result.referenceOf === fn.name);
    rows.push(
      firstInvocationRow(fn, stackFloor, 'stack floor', GOALS.firstInvocationRatio),
      moduleLoadRow(fn, stackFloor, 'stack floor', GOALS.moduleLoadRatio),
      firstInvocationRow(fn, byName.get(`raw-${fn.name}`), 'raw', undefined),
    );
  }
  return rows;
}

/** The same requests, whatever their order: what a function and its stack floor each sent. */
export function sameRequests(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (!a || !b) return false;
  return JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
}

const failedNote = (target: ColdStartResult, reference: ColdStartResult | undefined, label: string) =>
  [
    ...(target.errors.length > 0 ? [`; ${target.errors.length} failed: ${target.errors[0]}`] : []),
    ...(reference && reference.errors.length > 0
      ? [`; its ${label} failed ${reference.errors.length}×: ${reference.errors[0]}`]
      : []),
    ...(reference ? [] : [`; no ${label} measured`]),
  ].join('');

/** Both sides of a cold-start row ran without a failed run: only then is the row judged. */
function bothRan(target: ColdStartResult, reference: ColdStartResult | undefined): boolean {
  return target.errors.length === 0 && reference !== undefined && reference.errors.length === 0;
}

/**
 * A first invocation (process start to the end of the first record) against a reference's, per
 * round: judged against a function's stack floor (which must have sent the same requests as the
 * function), info against a raw reference.
 */
function firstInvocationRow(
  target: ColdStartResult,
  reference: ColdStartResult | undefined,
  label: 'stack floor' | 'raw',
  goal: number | undefined,
): ResultRow {
  const first = spreadOf(perRound(target.readyMs, reference?.readyMs ?? []));
  const requests = target.firstInvocationRequests;
  // A stack floor sends its replay and its own idempotency records: compared as it sent them.
  const same = label === 'raw' || sameRequests(requests, reference?.firstInvocationRequests);
  const what = same
    ? `the same ${requests?.length ?? '?'} requests`
    : `${requests?.length ?? '?'} requests, its ${label} sent ${reference?.firstInvocationRequests?.length ?? '?'} others`;
  const otherwise = reference?.answeredDifferently
    ? ` (${reference.answeredDifferently} answered otherwise when replayed)`
    : '';
  return {
    section: '1 cold start',
    item: `${target.name} first invocation / ${label}`,
    figure: `${formatSpread(first)}: ${round(target.readyMsMedian, 0)} vs ${round(reference?.readyMsMedian ?? Number.NaN, 0)} ms for ${what}${otherwise}${failedNote(target, reference, label)}`,
    goal:
      goal === undefined
        ? label === 'raw'
          ? '— (the same requests, nothing else around them)'
          : '—'
        : `≤ ${goal} (median of rounds)`,
    pass: goal === undefined ? undefined : bothRan(target, reference) && same && first.median <= goal,
  };
}

/** A module load (process start to the end of the import) against a reference's, per round. */
function moduleLoadRow(
  target: ColdStartResult,
  reference: ColdStartResult | undefined,
  label: 'stack floor' | 'floor',
  goal: number | undefined,
): ResultRow {
  const load = spreadOf(perRound(target.initMs, reference?.initMs ?? []));
  return {
    section: '1 cold start',
    item: `${target.name} module load / ${label}`,
    figure: `${formatSpread(load)}: ${round(target.initMsMedian, 0)} vs ${round(reference?.initMsMedian ?? Number.NaN, 0)} ms; bundle ${kb(target.bytes)} = ${round(target.bytes / (reference?.bytes ?? Number.NaN))} × its ${label}'s${failedNote(target, reference, label)}`,
    goal: goal === undefined ? '— (the SDK clients alone)' : `≤ ${goal} (median of rounds)`,
    pass: goal === undefined ? undefined : bothRan(target, reference) && load.median <= goal,
  };
}

/** Said when a replay was answered otherwise than the handler's requests: it did other work. */
function replayNote(flow: { replayed: number; replayedDifferently: number }): string {
  return flow.replayedDifferently > 0
    ? `; ${flow.replayedDifferently} of ${flow.replayed} replayed requests answered otherwise than the first time`
    : '';
}

/** A difference with its sign: `+0.6`, `-1.9`. */
function signed(value: number): string {
  const rounded = round(value, 1);
  return rounded > 0 ? `+${rounded}` : `${rounded}`;
}

/** Where the handler's time in requests and the raw replay's differ (FlowOverhead.requestMs). */
function requestTimeNote(requestMs: RequestTimes): string {
  const label: Record<RecordedSystem, string> = {
    dynamodb: 'DynamoDB',
    service: 'service',
    eventbridge: 'EventBridge',
  };
  if (RECORDED_SYSTEMS.every((system) => Number.isNaN(requestMs.handler[system])))
    return 'time in requests per event, handler vs raw (ms): n/a (no event measured)';
  const parts = RECORDED_SYSTEMS.filter(
    (system) => requestMs.handler[system] > 0 || requestMs.raw[system] > 0,
  ).map(
    (system) =>
      `${label[system]} ${round(requestMs.handler[system], 1)} vs ${round(requestMs.raw[system], 1)}`,
  );
  return `time in requests per event, handler vs raw (ms): ${parts.join(', ')}`;
}

/** A section-2 figure: the ratio over runs, both medians and their difference, replay and request-time notes. */
function overheadFigure(flow: Omit<FlowOverhead, 'flow'>, runs: Spread): string {
  return `${formatSpread(runs)} over runs: ${round(flow.handlerMsMedian, 1)} vs raw ${round(flow.baselineMsMedian, 1)} ms, ${signed(flow.handlerMsMedian - flow.baselineMsMedian)} ms; ${flow.events} events per run${flow.failures ? `, ${flow.failures} failed` : ''}${replayNote(flow)}; ${requestTimeNote(flow.requestMs)}`;
}

/** Issue #24: every route's warm overhead, judged on the median of its runs' ratios. */
export function overheadRows(results: readonly FlowOverhead[]): ResultRow[] {
  return results.map((flow) => {
    const runs = spreadOf(flow.runRatios);
    return {
      section: '2 overhead/event',
      item: flow.flow,
      figure: overheadFigure(flow, runs),
      goal: `≤ ${GOALS.overheadRatio} (median of runs)`,
      pass: flow.failures === 0 && runs.median <= GOALS.overheadRatio,
    };
  });
}

/** The required stack alone, warm: its difference in ms beside the flows' (info, no goal of its own). */
export function stackFloorOverheadRow(result: Omit<FlowOverhead, 'flow'>): ResultRow {
  const runs = spreadOf(result.runRatios);
  return {
    section: '2 overhead/event',
    item: 'stack-floor (the required stack alone)',
    figure: overheadFigure(result, runs),
    goal: "— (the stack alone: compare its difference in ms with the flows')",
    pass: undefined,
  };
}

export function warmProfileRows(results: readonly WarmProfile[]): ResultRow[] {
  return results.map((flow) => ({
    section: '2c warm profile',
    item: flow.flow,
    figure: `CPU per event beyond the raw ${round(flow.handlerCpuMs - flow.rawCpuMs, 2)} ms (handler ${flow.handlerCpuMs}, its replay ${flow.rawCpuMs}; ${flow.events} profiled events), most in: ${flow.beyond.map((entry) => `${entry.what} ${entry.ms}`).join(', ') || 'nothing'}`,
    goal: "— (where the overhead rows' difference goes)",
    pass: undefined,
  }));
}

export function callRows(results: readonly CallCount[]): ResultRow[] {
  return results.map((result) => ({
    section: '3 calls/event',
    item: result.case,
    figure: `${result.calls}${result.failed ? ' (record failed)' : ''}`,
    goal: `= ${result.minimum} (spec minimum)`,
    pass: result.failed === 0 && result.calls <= result.minimum,
  }));
}

/**
 * A watch's time at its largest size ÷ at its smallest. The sizes run one after another (all runs
 * of one size, then the next), not interleaved, so a run of one size has no partner run in the
 * other: the ratio is of the two medians, with each size's range beside it.
 */
function watchTimeRow(
  section: string,
  results: readonly { tracked: number; timesMs: readonly number[] }[],
  goal: number,
): ResultRow | undefined {
  const smallest = results[0];
  const largest = results.at(-1);
  if (!smallest || !largest || largest === smallest) return undefined;
  const small = spreadOf(smallest.timesMs);
  const large = spreadOf(largest.timesMs);
  const ratio = large.median / small.median;
  const times = (spread: Spread) =>
    `${round(spread.median, 0)} (${round(spread.min, 0)}–${round(spread.max, 0)}, n=${spread.n})`;
  return {
    section,
    item: `time ${largest.tracked}/${smallest.tracked}`,
    figure: `${round(ratio)} (ratio of medians): ${times(large)} vs ${times(small)} ms`,
    goal: `≤ ${goal}`,
    pass: ratio <= goal,
  };
}

export function trialWatchRows(results: readonly TrialWatchScale[]): ResultRow[] {
  const rows: ResultRow[] = results.map((result) => ({
    section: '4 trial watch',
    item: `${result.tracked} tracked, ${DUE_PER_RUN} due`,
    figure: `${round(result.timeMsMedian, 0)} ms, ${result.itemsReadReported} items read (recorded ${result.itemsReadRecorded}), ${result.announced} announced`,
    goal: `items ≤ ${DUE_PER_RUN}+${GOALS.trialWatchExtraItems}`,
    pass:
      result.itemsReadReported <= DUE_PER_RUN + GOALS.trialWatchExtraItems &&
      result.itemsReadRecorded <= DUE_PER_RUN + GOALS.trialWatchExtraItems &&
      result.announced === DUE_PER_RUN,
  }));
  const timeRow = watchTimeRow('4 trial watch', results, GOALS.trialWatchTimeRatio);
  if (timeRow) rows.push(timeRow);
  return rows;
}

/** Issue #15: the drift watch reads only the businesses due, however many are tracked. */
export function driftWatchRows(results: readonly DriftWatchScale[]): ResultRow[] {
  const limit = DRIFT_DUE_PER_RUN + GOALS.driftWatchExtraItems;
  const rows: ResultRow[] = results.map((result) => ({
    section: '4b drift watch',
    item: `${result.tracked} tracked, ${DRIFT_DUE_PER_RUN} due`,
    figure: `${round(result.timeMsMedian, 0)} ms, ${result.itemsReadReported} items read (recorded ${result.itemsReadRecorded}), ${result.checked} checked, ${result.failed} failed, ${result.serviceCalls} service calls`,
    goal: `items ≤ ${DRIFT_DUE_PER_RUN}+${GOALS.driftWatchExtraItems}, all due checked`,
    pass:
      result.itemsReadReported <= limit &&
      result.itemsReadRecorded <= limit &&
      result.checked === DRIFT_DUE_PER_RUN &&
      result.failed === 0,
  }));
  const timeRow = watchTimeRow('4b drift watch', results, GOALS.driftWatchTimeRatio);
  if (timeRow) rows.push(timeRow);
  return rows;
}

export function throughputRows(result: Throughput): ResultRow[] {
  return [
    {
      section: '5 throughput',
      item: `${result.accounts} accounts in parallel`,
      figure: `${round(result.eventsPerSecond, 1)} events/s (${result.events} events, ${round(result.elapsedMs / 1000, 1)} s; ${result.syncFailed} SyncFailed, ${result.deadLetters} DLQ)`,
      goal: 'all delivered, 0 SyncFailed, 0 DLQ',
      pass: result.syncFailed === 0 && result.deadLetters === 0 && result.outbound >= result.events,
    },
  ];
}

export function memoryRows(coldStarts: readonly ColdStartResult[]): ResultRow[] {
  const rows: ResultRow[] = [];
  for (const fn of coldStarts.filter((result) => result.kind === 'function' && result.batchOf10)) {
    const peak = fn.batchOf10?.peakRssMb ?? Number.NaN;
    const configured = fn.memorySizeMb ?? Number.NaN;
    rows.push({
      section: '5 memory',
      item: `${fn.name} batch of 10`,
      figure: `${round(peak, 0)} MB peak RSS of ${configured} MB configured${(fn.batchOf10?.failedRecords ?? 0) > 0 ? ` (${fn.batchOf10?.failedRecords} failed)` : ''}`,
      goal: `peak × ${GOALS.memoryHeadroom} ≤ configured`,
      pass: peak * GOALS.memoryHeadroom <= configured && !fn.batchOf10?.error,
    });
  }
  return rows;
}

export function formatTable(rows: readonly ResultRow[]): string {
  const header: ResultRow = {
    section: 'section',
    item: 'item',
    figure: 'figure',
    goal: 'goal',
    pass: undefined,
  };
  const cells = (row: ResultRow, isHeader = false) => [
    row.section,
    row.item,
    row.figure,
    row.goal,
    isHeader ? 'result' : row.pass === undefined ? 'info' : row.pass ? 'PASS' : 'FAIL',
  ];
  const all = [cells(header, true), ...rows.map((row) => cells(row))];
  const widths =
    all[0]?.map((_, column) => Math.max(...all.map((line) => (line[column] ?? '').length))) ?? [];
  const line = (values: string[]) =>
    `| ${values.map((value, column) => value.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  const rule = `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`;
  const [first, ...rest] = all;
  return [line(first ?? []), rule, ...rest.map(line)].join('\n');
}

export async function writeResults(file: string, content: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(content, null, 2)}\n`);
}

export function costRows(costs: readonly CostPerMillion[]): ResultRow[] {
  return costs.map((cost) => ({
    section: '6 cost',
    item: `${cost.flow} per 1M`,
    figure:
      `$${cost.total.toFixed(2)} (Lambda ${cost.lambdaCompute.toFixed(2)}+${cost.lambdaRequests.toFixed(2)}, ` +
      `SQS ${cost.sqs.toFixed(2)}, intake ${cost.intake.toFixed(2)}, EventBridge ${cost.eventBridge.toFixed(2)}, DynamoDB ${cost.dynamoDb.toFixed(2)})`,
    goal: '—',
    pass: undefined,
  }));
}

/** Issue #15: the shared request budget's bookkeeping per service call (no waits). */
export function requestBudgetRows(results: readonly BudgetCost[]): ResultRow[] {
  return results.map((result) => ({
    section: '7 request budget',
    item: `${result.workers} worker${result.workers === 1 ? '' : 's'} on one bucket, ${result.takes} calls`,
    figure: `${round(result.requestsPerTake)} DynamoDB requests per call, ${round(result.msPerTakeMedian)} ms median (dynalite)`,
    goal: `≤ ${GOALS.budgetRequestsPerCall} requests per call`,
    pass: result.requestsPerTake <= GOALS.budgetRequestsPerCall,
  }));
}

/**
 * Issue #17 §3: PutEvents → result event through the local runtime, and the part the connector
 * owns. The goal is judged on the median over runs of each run's p50 (issue #17 §4: every ratio
 * with its spread over at least 3 runs): the p50 of one run of 40 events strays from run to run.
 */
export function latencyRows(results: readonly FlowLatency[]): ResultRow[] {
  return results.flatMap((flow) => {
    const runs = spreadOf(flow.runOwnShareP50);
    const measured = flow.events * flow.runs;
    return [
      {
        section: '8 latency (local)',
        item: `${flow.flow} end to end`,
        figure: `p50 ${round(flow.totalMs.p50, 1)} / p95 ${round(flow.totalMs.p95, 1)} / p99 ${round(flow.totalMs.p99, 1)} ms: in the handler p50 ${round(flow.handlerMs.p50, 1)} ms, local transport p50 ${round(flow.transportMs.p50, 1)} ms; n=${measured} (${flow.runs} runs of ${flow.events})${flow.failures ? `, ${flow.failures} without a result` : ''}`,
        goal: '—',
        pass: undefined,
      },
      {
        section: '8 latency (local)',
        item: `${flow.flow} handler / its calls made raw`,
        figure: `p50 ${formatSpread(runs)} over runs (p95 ${round(flow.ownShare.p95)} over all events); the calls alone p50 ${round(flow.callsMs.p50, 1)} ms${replayNote(flow)}; ${requestTimeNote(flow.requestMs)}${runs.n < MIN_JUDGED_RUNS ? `; ${runs.n} run(s): not judged, the goal needs ${MIN_JUDGED_RUNS}` : ''}`,
        goal: `p50 ≤ ${GOALS.ownShareOfCalls} (median of runs)`,
        pass: flow.failures === 0 && runs.n >= MIN_JUDGED_RUNS && runs.median <= GOALS.ownShareOfCalls,
      },
    ];
  });
}

/** One line: where and when the figures were measured. */
export function formatMachine(
  results: Pick<BenchResults, 'machine' | 'startedAt' | 'mode' | 'durationMs'>,
): string {
  const { machine } = results;
  return `${formatRunDate(results.startedAt)}, ${machine.revision}, ${results.mode} run of ${Math.round(results.durationMs / 1000)} s on ${formatMachineDescription(machine)}; load average ${round(machine.loadAverage.start, 1)} at the start, ${round(machine.loadAverage.end, 1)} at the end`;
}

/**
 * The run as a Markdown page for the docs (issue #16: figures come from a committed run, with its
 * command and date): the table of figures and goals, where it ran, and each function's CPU profile.
 */
export function formatMarkdown(results: BenchResults, command: string): string {
  const lines = [
    '# Benchmark results',
    '',
    generatedLine(command, formatMachine(results)),
    `Every ratio compares two measurements taken in the same run; \`a (b–c, n=N)\` is the median and`,
    'the range over N runs. The trial and drift watch time ratios are ratios of medians (their sizes',
    'run one after another, not interleaved). How each figure is measured: [performance.md](../performance.md).',
    '',
    '| section | item | figure | goal | result |',
    '|---|---|---|---|---|',
    ...results.rows.map(
      (row) =>
        `| ${markdownCell(row.section)} | ${markdownCell(row.item)} | ${markdownCell(row.figure)} | ${markdownCell(row.goal)} | ${row.pass === undefined ? 'info' : row.pass ? 'PASS' : '**FAIL**'} |`,
    ),
    '',
    `${results.rows.filter((row) => row.pass === false).length} of ${results.rows.filter((row) => row.pass !== undefined).length} goals missed.`,
  ];
  const byName = new Map((results.coldStarts ?? []).map((result) => [result.name, result]));
  // The functions and the stack-floor; each beside the reference it is judged against or shown with.
  const profiled = (results.coldStarts ?? []).filter(
    (result) => result.profile && (result.kind === 'function' || result.name === STACK_FLOOR),
  );
  const referenceOf = (result: ColdStartResult) =>
    result.kind === 'function'
      ? (results.coldStarts ?? []).find((candidate) => candidate.referenceOf === result.name)
      : byName.get(`raw-${result.name}`);
  if (profiled.length > 0) {
    const part = (phase: readonly { what: string; ms: number }[]) =>
      phase
        .slice(0, 4)
        .map((entry) => `${entry.what} ${entry.ms}`)
        .join(', ');
    lines.push(
      '',
      '## Where a cold start spends its CPU',
      '',
      "One more cold start per function, per function's stack floor, and of the stack-floor and its raw",
      "reference under `node --cpu-prof` (self time by what a frame belongs to, through the bundle's",
      'source map; profiling slows everything down, so compare shares, not ms). "Beyond its reference":',
      "load and first invocation together, each consumer's time in the profile less its time in the",
      "reference's — a function's stack floor (what the connector's own code costs), the stack-floor's",
      'raw reference (what the stack costs) — one profiled run each: a few ms either way are noise.',
      '',
      '| function | module load (ms): largest shares | first invocation (ms): largest shares | beyond its reference (ms): largest differences |',
      '|---|---|---|---|',
      ...profiled.map((result) => {
        const profile = result.profile;
        const referenceProfile = referenceOf(result)?.profile;
        const extra = profile && referenceProfile ? beyond(profile.total, referenceProfile.total) : undefined;
        const extraCell = extra ? `${extra.totalMs}: ${markdownCell(part(extra.largest))}` : '—';
        return `| ${result.name} | ${profile?.loadMs}: ${markdownCell(part(profile?.load ?? []))} | ${profile?.invokeMs}: ${markdownCell(part(profile?.invoke ?? []))} | ${extraCell} |`;
      }),
    );
  }
  return `${lines.join('\n')}\n`;
}
