import { writeFile } from 'node:fs/promises';
import type { ColdStartResult } from './cold-start.ts';
import type { CostPerMillion } from './cost.ts';
import { DRIFT_DUE_PER_RUN, type DriftWatchScale } from './drift-watch-scale.ts';
import type { CallCount, FlowOverhead } from './overhead.ts';
import type { BudgetCost } from './request-budget.ts';
import { round } from './stats.ts';
import type { Throughput } from './throughput.ts';
import { DUE_PER_RUN, type TrialWatchScale } from './trial-watch-scale.ts';

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
  coldStartRatio: 1.15,
  sizeRatio: 1.15,
  overheadRatio: 1.25,
  trialWatchTimeRatio: 1.5,
  /** "due + small constant": one empty page per trial shard at most. */
  trialWatchExtraItems: 16,
  driftWatchTimeRatio: 1.5,
  /** "due + small constant": the unconfirmed-signups count and one empty page per drift shard at most. */
  driftWatchExtraItems: 17,
  memoryHeadroom: 1.5,
} as const;

const kb = (bytes: number) => `${round(bytes / 1024, 1)} KB`;

export function coldStartRows(results: readonly ColdStartResult[]): ResultRow[] {
  const floor = results.find((result) => result.name === 'floor');
  const floorRequests = results.find((result) => result.name === 'floor-requests');
  const hello = results.find((result) => result.name === 'hello');
  const stackFloor = results.find((result) => result.name === 'stack-floor');
  const rows: ResultRow[] = [];
  for (const reference of [hello, floor, floorRequests, stackFloor]) {
    if (!reference) continue;
    rows.push({
      section: '1 cold start',
      item: `reference ${reference.name}`,
      figure: `${round(reference.readyMsMedian, 0)} ms, ${kb(reference.bytes)} (n=${reference.samples})`,
      goal: '—',
      pass: undefined,
    });
  }
  for (const fn of results.filter((result) => result.kind === 'function')) {
    const timeRatio = fn.readyMsMedian / (floor?.readyMsMedian ?? Number.NaN);
    const realFloorRatio = fn.readyMsMedian / (floorRequests?.readyMsMedian ?? Number.NaN);
    const stackRatio = fn.readyMsMedian / (stackFloor?.readyMsMedian ?? Number.NaN);
    const failed = fn.errors.length > 0 ? `, ${fn.errors.length} failed: ${fn.errors[0]}` : '';
    rows.push({
      section: '1 cold start',
      item: `${fn.name} time/floor`,
      figure: `${round(timeRatio)} (${round(fn.readyMsMedian, 0)} ms; /floor+requests ${round(realFloorRatio)}; /stack-floor ${round(stackRatio)}; n=${fn.samples}${failed})`,
      goal: `≤ ${GOALS.coldStartRatio}`,
      pass: fn.errors.length === 0 && timeRatio <= GOALS.coldStartRatio,
    });
    const sizeRatio = fn.bytes / (floor?.bytes ?? Number.NaN);
    rows.push({
      section: '1 cold start',
      item: `${fn.name} size/floor`,
      figure: `${round(sizeRatio)} (${kb(fn.bytes)}; /stack-floor ${round(fn.bytes / (stackFloor?.bytes ?? Number.NaN))}; map ${kb(fn.mapBytes)})`,
      goal: `≤ ${GOALS.sizeRatio}`,
      pass: sizeRatio <= GOALS.sizeRatio,
    });
  }
  return rows;
}

export function overheadRows(results: readonly FlowOverhead[]): ResultRow[] {
  return results.map((flow) => ({
    section: '2 overhead/event',
    item: flow.flow,
    figure: `${round(flow.ratio)} (${round(flow.handlerMsMedian, 1)} vs raw ${round(flow.baselineMsMedian, 1)} ms, +${round(flow.handlerMsMedian - flow.baselineMsMedian, 1)} ms; n=${flow.events}${flow.failures ? `, ${flow.failures} failed` : ''})`,
    goal: `≤ ${GOALS.overheadRatio}`,
    pass: flow.failures === 0 && flow.ratio <= GOALS.overheadRatio,
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
  const smallest = results[0];
  const largest = results.at(-1);
  if (smallest && largest && largest !== smallest) {
    const ratio = largest.timeMsMedian / smallest.timeMsMedian;
    rows.push({
      section: '4 trial watch',
      item: `time ${largest.tracked}/${smallest.tracked}`,
      figure: `${round(ratio)}`,
      goal: `≤ ${GOALS.trialWatchTimeRatio}`,
      pass: ratio <= GOALS.trialWatchTimeRatio,
    });
  }
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
  const smallest = results[0];
  const largest = results.at(-1);
  if (smallest && largest && largest !== smallest) {
    const ratio = largest.timeMsMedian / smallest.timeMsMedian;
    rows.push({
      section: '4b drift watch',
      item: `time ${largest.tracked}/${smallest.tracked}`,
      figure: `${round(ratio)}`,
      goal: `≤ ${GOALS.driftWatchTimeRatio}`,
      pass: ratio <= GOALS.driftWatchTimeRatio,
    });
  }
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
    const peak = fn.batchOf10?.maxRssMb ?? Number.NaN;
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
      `SQS ${cost.sqs.toFixed(2)}, EventBridge ${cost.eventBridge.toFixed(2)}, DynamoDB ${cost.dynamoDb.toFixed(2)})`,
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
