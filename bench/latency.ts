import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { routeFor } from '#functions/routes.ts';
import type { RuntimeActivity } from '#local/runtime.ts';
import type { BenchEnvironment, StateMet } from './environment.ts';
import {
  medianBySystem,
  type RequestTimes,
  requestTimeBySystem,
  timedReplay,
  UNMEASURED,
} from './recorder.ts';
import { MIN_JUDGED_RUNS, median, sum } from './stats.ts';
import { FLOWS, type FlowName, flowEvent } from './workload.ts';

/**
 * Issue #17 §3: what a partner waits for, PutEvents → result event on the bus, through the local
 * runtime built from the synthesized template (rule → intake queue → pipe → FIFO queue → function
 * → PutEvents), with the local delays at zero (the bench environment's time scale is 0 and its
 * pollers wake when a message arrives), in several runs that go round the flows (each run on its
 * own account, after its own warm-up). One event at a time, so every figure belongs to one event:
 *
 * - total: from just before the partner's PutEvents to the moment the result event is put on the
 *   bus (the runtime's own activity report);
 * - handler: the part of that time inside the function's invocation (up to the result event: the
 *   invocation goes on a little after it, recording its idempotency record); transport: the rest
 *   (the partner's PutEvents request, the local EventBridge, SQS and pipe);
 * - calls: the same requests the handler made (DynamoDB, EventBridge, the service), sent again
 *   raw with the same clients, in the recorded order (bench/recorder.ts `replay`), right after
 *   the event, from the table and service state the event met (bench/environment.ts `StateMet`): what any client must
 *   spend to make them. The connector's own share is the whole invocation ÷ that.
 */

export interface Percentiles {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
}

export interface FlowLatency {
  readonly flow: FlowName;
  /** Events measured in each run; the percentiles below pool every run's events. */
  readonly events: number;
  /** Runs (each on its own account, after its own warm-up; runs interleave the flows). */
  readonly runs: number;
  readonly totalMs: Percentiles;
  readonly handlerMs: Percentiles;
  readonly transportMs: Percentiles;
  readonly callsMs: Percentiles;
  /** Per event, the invocation ÷ its calls made raw, over every run's events. */
  readonly ownShare: Percentiles;
  /** Per run, the p50 of that run's events' invocation ÷ calls: the goal's figure is their median. */
  readonly runOwnShareP50: readonly number[];
  /** Events whose result never came within the timeout. */
  readonly failures: number;
  /** Replayed requests answered otherwise than the first time, of all replayed (bench/recorder.ts). */
  readonly replayedDifferently: number;
  readonly replayed: number;
  /** Time inside requests per event, per system, the handler's and the replay's (medians; bench/recorder.ts). */
  readonly requestMs: RequestTimes;
}

function percentiles(values: readonly number[]): Percentiles {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return { p50: median(sorted), p95: at(0.95), p99: at(0.99) };
}

const RESULT_TIMEOUT_MS = 30_000;

export async function measureLatency(
  environment: BenchEnvironment,
  {
    eventsPerFlow,
    runs = MIN_JUDGED_RUNS,
    warmup = 2,
    resultTimeoutMs = RESULT_TIMEOUT_MS,
    flows = FLOWS,
  }: {
    eventsPerFlow: number;
    runs?: number;
    warmup?: number;
    resultTimeoutMs?: number;
    flows?: readonly FlowName[];
  },
): Promise<FlowLatency[]> {
  const { runtime } = environment;
  const client = new EventBridgeClient({
    region: runtime.region,
    endpoint: runtime.eventsEndpoint,
    credentials: { accessKeyId: 'AKIABENCHLATENCY0000', secretAccessKey: 'bench' },
  });
  // Result events by causationId, and the invocations that ran, as the runtime reports them.
  const waiting = new Map<string, (at: number) => void>();
  let batches: { startedAt: number; durationMs: number }[] = [];
  // Only the route's own function: the refusal function sees every inbound event too (and lets a
  // routable one pass), which is no part of this event's path to its result.
  let routeFunction = '';
  // The table as the event being sent finds it (read at the start of each run).
  let state: StateMet | undefined;
  // The inbound event being sent: its id is taken from the bus's own put activity, which the local
  // EventBridge reports while it handles PutEvents, before it answers and before any target runs.
  // Waiting for the PutEvents answer instead let a fast result arrive before its id was known.
  let sending: { detailType: string; detail: string; accept: (eventId: string) => void } | undefined;
  const stopListening = environment.onActivity((activity: RuntimeActivity) => {
    if (activity.kind === 'batch' && activity.functionName === routeFunction) batches.push(activity);
    if (activity.kind !== 'put') return;
    if (activity.event.source === runtime.inboundSource) {
      if (
        sending &&
        activity.event['detail-type'] === sending.detailType &&
        JSON.stringify(activity.event.detail) === sending.detail
      ) {
        sending.accept(activity.event.id);
      }
      return;
    }
    const causation = activity.event.detail['causationId'];
    if (typeof causation === 'string') waiting.get(causation)?.(performance.now());
  });

  const sendOne = async (flow: FlowName, accountId: string, index: number) => {
    const entry = flowEvent(flow, accountId, index);
    batches = [];
    environment.recorder.start();
    const startedAt = performance.now();
    let eventId: string | undefined;
    const detail = JSON.stringify(entry.detail);
    const resulted = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no result for ${flow}`)), resultTimeoutMs);
      const fail = (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      };
      sending = {
        detailType: entry.detailType,
        detail,
        accept: (id) => {
          eventId = id;
          waiting.set(id, (at) => {
            clearTimeout(timer);
            resolve(at);
          });
        },
      };
      void client
        .send(
          new PutEventsCommand({
            Entries: [
              {
                EventBusName: runtime.busName,
                Source: runtime.inboundSource,
                DetailType: entry.detailType,
                Detail: detail,
              },
            ],
          }),
        )
        .then((answer) => {
          if (!answer.Entries?.[0]?.EventId) fail(new Error(`PutEvents refused ${flow}`));
        }, fail);
    });
    try {
      const endedAt = await resulted;
      // The invocation finishes its bookkeeping after publishing: wait for it before replaying.
      await environment.runtime.waitForIdle();
      const requests = environment.recorder.stop();
      const insideWindow = sum(
        batches.map((batch) =>
          Math.max(0, Math.min(endedAt, batch.startedAt + batch.durationMs) - batch.startedAt),
        ),
      );
      const invocationMs = sum(batches.map((batch) => batch.durationMs));
      if (!state) throw new Error('no table state to replay from');
      const outcome = await timedReplay(environment.recorder, requests, environment.serviceProxy.url, state);
      const callsMs = outcome.ms;
      return {
        totalMs: endedAt - startedAt,
        handlerMs: insideWindow,
        invocationMs,
        callsMs,
        replayed: outcome.sent,
        replayedDifferently: outcome.different,
        handlerRequestMs: requestTimeBySystem(requests),
        rawRequestMs: requestTimeBySystem(outcome.requests),
        failed: false,
      };
    } catch {
      // No replay for a failed event, but what its handler wrote is the table's state from now on.
      const requests = environment.recorder.stop();
      if (state) state.table.remember(await state.table.current(state.table.keysWrittenBy(requests)));
      return {
        totalMs: Number.NaN,
        handlerMs: Number.NaN,
        invocationMs: Number.NaN,
        callsMs: Number.NaN,
        replayed: 0,
        replayedDifferently: 0,
        handlerRequestMs: UNMEASURED,
        rawRequestMs: UNMEASURED,
        failed: true,
      };
    } finally {
      sending = undefined;
      if (eventId) waiting.delete(eventId);
    }
  };

  type Measured = Awaited<ReturnType<typeof sendOne>>;
  // Per flow, each run's measured events. Runs go round the flows, so a slow spell of the shared
  // machine falls on every flow alike, and the spread over runs shows how far one run can stray.
  const byFlow = new Map<FlowName, Measured[][]>(flows.map((flow) => [flow, []]));
  const results: FlowLatency[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      for (const flow of flows) {
        routeFunction = runtime.functionNamed(routeFor(flow).functionName).name;
        const [accountId] = await environment.provisionAccounts(1);
        if (!accountId) throw new Error('no bench account');
        // The table as the run's first event finds it; each replay keeps it up to date.
        state = await environment.readStateMet();
        for (let index = 0; index < warmup; index++) await sendOne(flow, accountId, index);
        const measured: Measured[] = [];
        for (let index = 0; index < eventsPerFlow; index++) {
          measured.push(await sendOne(flow, accountId, warmup + index));
        }
        byFlow.get(flow)?.push(measured);
      }
    }
    for (const [flow, perRun] of byFlow) {
      const all = perRun.flat();
      const ok = all.filter((one) => !one.failed);
      const ownShareOf = (one: Measured) => one.invocationMs / one.callsMs;
      results.push({
        flow,
        events: eventsPerFlow,
        runs: perRun.length,
        totalMs: percentiles(ok.map((one) => one.totalMs)),
        handlerMs: percentiles(ok.map((one) => one.handlerMs)),
        transportMs: percentiles(ok.map((one) => one.totalMs - one.handlerMs)),
        callsMs: percentiles(ok.map((one) => one.callsMs)),
        ownShare: percentiles(ok.map(ownShareOf)),
        runOwnShareP50: perRun.map((measured) =>
          median(measured.filter((one) => !one.failed).map(ownShareOf)),
        ),
        failures: all.length - ok.length,
        replayed: sum(ok.map((one) => one.replayed)),
        replayedDifferently: sum(ok.map((one) => one.replayedDifferently)),
        requestMs: {
          handler: medianBySystem(ok.map((one) => one.handlerRequestMs)),
          raw: medianBySystem(ok.map((one) => one.rawRequestMs)),
        },
      });
    }
  } finally {
    stopListening();
    client.destroy();
  }
  return results;
}
