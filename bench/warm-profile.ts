import { Session } from 'node:inspector/promises';
import { beyond, consumerOf } from './cpu-profile.ts';
import type { BenchEnvironment } from './environment.ts';
import { flowSubject, runOne } from './overhead.ts';
import { timedReplay } from './recorder.ts';
import { round, sum } from './stats.ts';
import { FLOWS, type FlowName } from './workload.ts';

/**
 * Issue #17 §1–§3 on the warm path: where a warm handler spends its CPU beyond the same requests
 * made raw, by consumer, so the overhead and latency rows can be read against a cause. One extra
 * pass per flow after the measured ones (profiling slows everything, so no ratio is taken from
 * it): events one at a time, each handler invocation followed by its raw replay from the state it
 * met, as in section 2, with V8's sampling profiler running in this process. Each sample goes to the
 * window it fell in (the handler's or the replay's, as section 2 times them, moved onto the
 * profiler's clock, which is `process.hrtime`'s; the tiny-run test fails if no sample lands) and to what
 * its frame belongs to: a package, the connector's functions/ folder, Node itself, or the bench's
 * own process (the local runtime, the sandbox and dynalite run here too, on both sides).
 */

export interface WarmProfile {
  readonly flow: FlowName;
  readonly events: number;
  /** Sampled CPU per event, ms, inside the handler's invocations and inside the replays. */
  readonly handlerCpuMs: number;
  readonly rawCpuMs: number;
  /** The largest consumers the handler spends more on than the replay, ms per event, largest first. */
  readonly beyond: readonly { what: string; ms: number }[];
}

/** A V8 CPU profile as `Profiler.stop` returns it (the fields used here). */
export interface SampledProfile {
  readonly nodes: readonly { id: number; callFrame: { url: string; functionName: string } }[];
  /** Microseconds, on the clock `process.hrtime` reads. */
  readonly startTime: number;
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

/** A span of the monotonic clock, in microseconds. */
export type Window = readonly [startUs: number, endUs: number];

/** What an in-process frame belongs to (cf. `areaOf` for a bundle's frames). */
function consumerOfFrame(frame: { url: string; functionName: string }): string {
  if (frame.url === '') {
    return frame.functionName === '(garbage collector)' ? 'gc' : `v8: ${frame.functionName || 'native'}`;
  }
  if (frame.url.startsWith('node:')) return 'node';
  const path = frame.url.replace(/^file:\/\//, '');
  if (path.includes('node_modules/') || path.includes('/functions/')) return consumerOf(path);
  // bench/, local/, sandbox/: the bench's own process, on both sides.
  return 'bench process (local runtime, sandbox)';
}

/** ms of self time per consumer inside `windows` (each sample counts in the window it ends in). */
export function cpuByConsumer(profile: SampledProfile, windows: readonly Window[]): Map<string, number> {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const sorted = [...windows].sort((a, b) => a[0] - b[0]);
  const spent = new Map<string, number>();
  let time = profile.startTime;
  let at = 0;
  for (const [index, sample] of (profile.samples ?? []).entries()) {
    const delta = profile.timeDeltas?.[index] ?? 0;
    time += delta;
    while (at < sorted.length && (sorted[at]?.[1] ?? 0) < time) at++;
    const window = sorted[at];
    if (!window || time < window[0]) continue;
    const node = nodes.get(sample);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    const what = consumerOfFrame(node.callFrame);
    spent.set(what, (spent.get(what) ?? 0) + delta / 1000);
  }
  return spent;
}

/** The profiler's clock (microseconds, as `process.hrtime`) less `performance.now()`'s, in µs. */
function profilerClockOffsetUs(): number {
  return Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;
}

export async function profileWarmFlows(
  environment: BenchEnvironment,
  {
    events,
    warmup = 10,
    top = 6,
    flows = FLOWS,
  }: { events: number; warmup?: number; top?: number; flows?: readonly FlowName[] },
): Promise<WarmProfile[]> {
  const results: WarmProfile[] = [];
  for (const flow of flows) {
    // The same steps as section 2 (bench/overhead.ts), under the profiler.
    const subject = flowSubject(environment, flow);
    const [accountId] = await environment.provisionAccounts(1);
    if (!accountId) throw new Error('no bench account');
    for (let index = 0; index < warmup; index++) {
      await runOne(environment, subject, subject.entry(accountId, index));
    }
    const met = await environment.readStateMet();
    const offsetUs = profilerClockOffsetUs();
    const window = (startedAt: number, ms: number): Window => [
      startedAt * 1000 + offsetUs,
      (startedAt + ms) * 1000 + offsetUs,
    ];
    const handlerWindows: Window[] = [];
    const rawWindows: Window[] = [];
    const session = new Session();
    session.connect();
    try {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
      for (let index = warmup; index < warmup + events; index++) {
        const measured = await runOne(environment, subject, subject.entry(accountId, index));
        if (measured.failed > 0) throw new Error(`${flow}: a profiled event failed`);
        handlerWindows.push(window(measured.startedAt, measured.elapsedMs));
        const replayed = await timedReplay(
          environment.recorder,
          measured.requests,
          environment.serviceProxy.url,
          met,
        );
        rawWindows.push(window(replayed.startedAt, replayed.ms));
      }
      const { profile } = await session.post('Profiler.stop');
      const perEvent = (spent: Map<string, number>) =>
        Object.fromEntries([...spent].map(([what, ms]) => [what, ms / events]));
      const handlerCpu = perEvent(cpuByConsumer(profile, handlerWindows));
      const rawCpu = perEvent(cpuByConsumer(profile, rawWindows));
      results.push({
        flow,
        events,
        handlerCpuMs: round(sum(Object.values(handlerCpu)), 2),
        rawCpuMs: round(sum(Object.values(rawCpu)), 2),
        beyond: beyond(handlerCpu, rawCpu, { top, digits: 2 }).largest,
      });
    } finally {
      session.disconnect();
    }
  }
  return results;
}
