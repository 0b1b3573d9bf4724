import { Session } from 'node:inspector/promises';
import type { SQSBatchResponse } from 'aws-lambda';
import { routeFor } from '#functions/routes.ts';
import { consumerOf } from './cpu-profile.ts';
import type { BenchEnvironment } from './environment.ts';
import { replay } from './recorder.ts';
import { round, sum } from './stats.ts';
import { FLOWS, type FlowName, flowEvent, sqsBatch } from './workload.ts';

/**
 * Issue #17 §1–§3 on the warm path: where a warm handler spends its CPU beyond the same requests
 * made raw, by consumer, so the overhead and latency rows can be read against a cause. One extra
 * pass per flow after the measured ones (profiling slows everything, so no ratio is taken from
 * it): events one at a time, each handler invocation followed by its raw replay from the state it
 * met, as in section 2, with V8's sampling profiler running in this process. Each sample goes to the
 * window it fell in (the handler's or the replay's, by the monotonic clock both use) and to what
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

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

export async function profileWarmFlows(
  environment: BenchEnvironment,
  { events, warmup = 10, top = 6 }: { events: number; warmup?: number; top?: number },
): Promise<WarmProfile[]> {
  const results: WarmProfile[] = [];
  for (const flow of FLOWS) {
    const route = routeFor(flow);
    const handler = await environment.handler(route.functionName);
    const [accountId] = await environment.provisionAccounts(1);
    if (!accountId) throw new Error('no bench account');
    for (let index = 0; index < warmup; index++) {
      await handler(
        sqsBatch([flowEvent(flow, accountId, index)]),
        environment.contextFor(route.functionName),
      );
    }
    const met = await environment.readStateMet();
    const handlerWindows: Window[] = [];
    const rawWindows: Window[] = [];
    const session = new Session();
    session.connect();
    try {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
      for (let index = warmup; index < warmup + events; index++) {
        const batch = sqsBatch([flowEvent(flow, accountId, index)]);
        const context = environment.contextFor(route.functionName);
        environment.recorder.start();
        const started = nowUs();
        const response = (await handler(batch, context)) as SQSBatchResponse;
        handlerWindows.push([started, nowUs()]);
        const requests = environment.recorder.stop();
        if (response.batchItemFailures.length > 0) throw new Error(`${flow}: a profiled event failed`);
        await met.replay(requests, async () => {
          environment.recorder.start();
          const replayStarted = nowUs();
          try {
            await replay(requests, environment.serviceProxy.url);
          } finally {
            rawWindows.push([replayStarted, nowUs()]);
            environment.recorder.stop();
          }
        });
      }
      const { profile } = await session.post('Profiler.stop');
      const handlerCpu = cpuByConsumer(profile, handlerWindows);
      const rawCpu = cpuByConsumer(profile, rawWindows);
      const consumers = new Set([...handlerCpu.keys(), ...rawCpu.keys()]);
      results.push({
        flow,
        events,
        handlerCpuMs: round(sum([...handlerCpu.values()]) / events, 2),
        rawCpuMs: round(sum([...rawCpu.values()]) / events, 2),
        beyond: [...consumers]
          .map((what) => ({ what, ms: ((handlerCpu.get(what) ?? 0) - (rawCpu.get(what) ?? 0)) / events }))
          .filter((entry) => entry.ms > 0)
          .sort((a, b) => b.ms - a.ms)
          .slice(0, top)
          .map((entry) => ({ what: entry.what, ms: round(entry.ms, 2) })),
      });
    } finally {
      session.disconnect();
    }
  }
  return results;
}
