import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { getBusiness } from '#functions/store/business.ts';
import { installPartition, POSITION_PREFIX } from '#functions/store/keys.ts';
import { queryAll } from '#functions/store/query-all.ts';
import type { BudgetTake } from '#functions/store/request-budget.ts';
import { listSlots } from '#functions/store/slots.ts';
import { createStore, type Store } from '#functions/store/store.ts';
import { DEFAULT_REDELIVERY_RATE } from '#local/aws/delivery-model.ts';
import { type LocalRuntime, type RuntimeActivity, startLocalRuntime } from '#local/runtime.ts';
import { crashPoints } from './crash-points.ts';
import { resolveUnconfirmedSignups, unconfirmedAccounts } from './resolve-signups.ts';
import {
  type ChaosVerdict,
  type DeniedCall,
  type InstallTables,
  judge,
  runPassed,
  type SandboxBusiness,
  type SandboxRequest,
  type TableBusiness,
  type TablePosition,
} from './verdict.ts';
import { buildWorkload, type ChaosEvent, CORRECTION_RATE, type Workload } from './workload.ts';

/**
 * One chaos run: the local runtime (the connector's synthesized template: rules, intake queues,
 * pipes, FIFO queues with retries and DLQs, the real handlers, dynalite, the sandbox) driven with
 * the real EventBridge client while the sandbox injects faults, processed records are delivered
 * again (deletes lost, as SQS's at-least-once delivery allows) and handlers crash between steps;
 * then the verdict.
 */

export const FAULT_KINDS = ['429', '500', 'timeout', 'drop-after-commit'] as const;
/** 30-day trials seen 24 days on: every trial is inside the 7-day threshold, none has ended. */
const TRIAL_WATCH_ADVANCE_DAYS = 24;

export interface ChaosOptions {
  /** @default 1000 */
  readonly events?: number;
  /** @default 50 */
  readonly accounts?: number;
  /** Share of service calls the sandbox faults. @default 0.2 */
  readonly faultRate?: number;
  readonly faultKinds?: ReadonlyArray<(typeof FAULT_KINDS)[number]>;
  /** Share of processed records delivered again (their SQS delete "lost"). @default 0.1 */
  readonly duplicateRate?: number;
  /** Share of crash points that crash (scripts/chaos/crash-points.ts). @default 0.05 */
  readonly crashRate?: number;
  /** Requests per second the service accepts; undefined: no limit. */
  readonly rateLimit?: number;
  /**
   * Seeds the workload, the sandbox's faults, the crash points, the lost deletes and the local
   * runtime's delivery model (local/aws/delivery-model.ts). @default 1
   */
  readonly seed?: number;
  /**
   * The local runtime delivers everything in send order and nothing twice: an AWS kinder than the
   * real one, for debugging only (and for the order test, whose reordering is made by the
   * workload: `correctionsFirst`). @default false
   */
  readonly orderedDelivery?: boolean;
  /**
   * Share of standard-queue receives that leave a copy to be received again (the local runtime's
   * delivery model). @default the runtime's, 0.02
   */
  readonly redeliveryRate?: number;
  /**
   * Scale of AWS waiting times (local/aws/clock.ts): the routes' visibility timeouts (180-720 s)
   * become 0.1-0.4 s, so a record that exhausts its five receives reaches the DLQ in about a second
   * and a 1000-event run stays within minutes; the order of events is the same as on AWS.
   * @default 1/1800
   */
  readonly timeScale?: number;
  /**
   * Per-attempt timeout of service calls (HTTP_TIMEOUT_MS). A 'timeout' fault holds the request
   * until the client gives up, so this is what each one costs. @default 1000
   */
  readonly httpTimeoutMs?: number;
  /**
   * `false` switches off the connector's last-writer-wins guard in the functions this run hosts
   * (DependencyOptions.lastWriterWins): events apply in the order they arrive. Not a CLI flag: for
   * the test that shows the order check failing without the guard. @default true
   */
  readonly lastWriterWins?: boolean;
  /**
   * Share of the state-setting follow-ups corrected at once (scripts/chaos/workload.ts
   * CORRECTION_RATE). Not a CLI flag: for the order test. @default CORRECTION_RATE
   */
  readonly correctionRate?: number;
  /**
   * Sends each correction just before the event it corrects, so the newer event surely arrives
   * first. Not a CLI flag: with `orderedDelivery`, the order test's reordering does not depend on
   * timing. @default false
   */
  readonly correctionsFirst?: boolean;
  /** Powertools log level of the handlers. @default 'ERROR' */
  readonly logLevel?: string;
  /** @default a random token, so logs can be searched for it */
  readonly token?: string;
  readonly onProgress?: (line: string) => void;
}

export interface ChaosReport extends ChaosVerdict {
  readonly options: Required<Omit<ChaosOptions, 'onProgress' | 'rateLimit' | 'token'>> & {
    readonly rateLimit: number | null;
  };
  readonly faultsInjected: number;
  readonly crashes: Record<string, number>;
  readonly wallTimeMs: number;
  /**
   * How late this process's event loop ran timers during the run (perf_hooks
   * monitorEventLoopDelay): the handlers, dynalite and the sandbox share it, so a starved machine
   * shows here, and requests paced by the budget leave late and bunch up on their way.
   */
  readonly eventLoopDelayMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /** Names of environment variables of this (the handlers') process whose value holds the token. */
  readonly tokenInEnvironment: readonly string[];
  /** The AWS calls the template's IAM denied during the run (local/iam/); must be none. */
  readonly deniedCalls: readonly DeniedCall[];
  /**
   * The unconfirmed signups of phase 1, resolved after phase 2 as an operator would (npm run
   * resolve-signup): how many, how many of their events were still waiting for the business then,
   * and how many of those applied after it without a redrive.
   */
  readonly signupsResolved: {
    readonly unconfirmed: number;
    readonly resolved: number;
    readonly waitingEvents: number;
    readonly appliedAfter: number;
    /** Before resolving, each of those accounts had a record received more than the 5 attempts' times. */
    readonly waitedPastBudget: boolean;
  };
  /** The owner e-mails and mobile numbers the run sent (what a log scan looks for). */
  readonly personalData: readonly string[];
  readonly token: string;
  readonly passed: boolean;
}

export async function runChaos(options: ChaosOptions = {}): Promise<ChaosReport> {
  const settings = {
    events: options.events ?? 1000,
    accounts: options.accounts ?? Math.min(50, options.events ?? 1000),
    faultRate: options.faultRate ?? 0.2,
    faultKinds: options.faultKinds ?? FAULT_KINDS,
    duplicateRate: options.duplicateRate ?? 0.1,
    crashRate: options.crashRate ?? 0.05,
    rateLimit: options.rateLimit ?? null,
    seed: options.seed ?? 1,
    orderedDelivery: options.orderedDelivery ?? false,
    redeliveryRate: options.redeliveryRate ?? DEFAULT_REDELIVERY_RATE,
    timeScale: options.timeScale ?? 1 / 1800,
    httpTimeoutMs: options.httpTimeoutMs ?? 1000,
    lastWriterWins: options.lastWriterWins ?? true,
    correctionRate: options.correctionRate ?? CORRECTION_RATE,
    correctionsFirst: options.correctionsFirst ?? false,
    logLevel: options.logLevel ?? 'ERROR',
  };
  const startedAt = Date.now();
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  loopDelay.enable();
  const token = options.token ?? `chaos-${randomBytes(18).toString('hex')}`;
  const report = options.onProgress ?? (() => undefined);
  const progress = (line: string) => report(`[${((Date.now() - startedAt) / 1000).toFixed(1)} s] ${line}`);
  const workload = buildWorkload(settings);

  // This process hosts the functions (local/function-host.ts): every one of them gets the crash
  // points as its `interruptions` collaborator, and the budget watch as its budget observer.
  const crashes = crashPoints({ rate: settings.crashRate, seed: settings.seed });
  const budgetWatch = settings.rateLimit === null ? undefined : watchBudget();
  const dependencyOptions: DependencyOptions = {
    ...(settings.crashRate > 0 ? { interruptions: crashes } : {}),
    ...(budgetWatch ? { budgetObserver: budgetWatch.observe } : {}),
    ...(settings.lastWriterWins ? {} : { lastWriterWins: false as const }),
  };

  let redeliveries = 0;
  const onActivity = (activity: RuntimeActivity): void => {
    if (activity.kind === 'batch') redeliveries += activity.failed;
  };

  let runtime: LocalRuntime | undefined;
  try {
    runtime = await startLocalRuntime({
      dependencyOptions,
      seed: settings.seed,
      ...(settings.orderedDelivery ? { orderedDelivery: true } : {}),
      redeliveryRate: settings.redeliveryRate,
      announce: progress,
      timeScale: settings.timeScale,
      logLevel: settings.logLevel,
      token,
      ...(settings.rateLimit === null ? {} : { rateLimit: settings.rateLimit }),
      config: {
        httpTimeoutMs: settings.httpTimeoutMs,
        ...(settings.rateLimit === null ? {} : { requestBudget: budgetForLimit(settings.rateLimit) }),
      },
      ...(settings.duplicateRate > 0
        ? { faults: { lostDeleteRate: settings.duplicateRate, seed: settings.seed } }
        : {}),
      onActivity,
    });
    const sandboxUrl = runtime.sandboxUrl;
    if (settings.faultRate > 0) {
      await sandboxJson(sandboxUrl, 'POST', '/_sandbox/faults', {
        rate: settings.faultRate,
        kinds: settings.faultKinds,
        seed: settings.seed,
      });
    }

    const eventBridge = new EventBridgeClient({
      region: runtime.region,
      endpoint: runtime.eventsEndpoint,
      credentials: { accessKeyId: 'AKIACHAOS', secretAccessKey: 'chaos' },
    });
    const sent = new Map<string, ChaosEvent>();
    let resolution: Awaited<ReturnType<typeof resolveUnconfirmedSignups>> | undefined;
    try {
      progress(`phase 1: ${workload.creations.length} AccountCreated`);
      await publish(eventBridge, runtime, workload.creations, sent);
      await runtime.waitForIdle();
      const unconfirmed = await unconfirmedAccounts(runtime, workload);
      progress(`phase 2: ${workload.followUps.length} follow-up events`);
      await publish(eventBridge, runtime, workload.followUps, sent);
      // The events of unconfirmed signups wait for their business (uncounted) until an operator
      // resolves the signup, here once they have waited past their retry budget; then they apply,
      // with no redrive.
      resolution = await resolveUnconfirmedSignups({
        runtime,
        sandboxUrl,
        accounts: unconfirmed,
        sent,
        progress,
      });
      await runtime.waitForIdle();
      progress(
        `phase 3: trial watch ${TRIAL_WATCH_ADVANCE_DAYS} days later, two overlapping runs and a later one`,
      );
      await sandboxJson(sandboxUrl, 'POST', '/_sandbox/clock', { advanceDays: TRIAL_WATCH_ADVANCE_DAYS });
      // Overlapping runs must not both announce; a run that crashed leaves the rest to the next one.
      await Promise.allSettled([runtime.runTrialWatch(), runtime.runTrialWatch()]);
      await runtime.runTrialWatch().catch(() => undefined);
      await runtime.waitForIdle();
    } finally {
      eventBridge.destroy();
    }
    progress('comparing the service, the table and the published events with the expected model');

    const faultPlan = await sandboxJson<{ injected?: number } | null>(sandboxUrl, 'GET', '/_sandbox/faults');
    if (settings.faultRate > 0) await sandboxJson(sandboxUrl, 'DELETE', '/_sandbox/faults');
    const observations = await observe(runtime, sandboxUrl, workload);
    const budgetWaits = budgetWatch?.stop();
    const verdict = judge({
      workload,
      sent,
      outbound: runtime.outbound(),
      deadLetters: runtime.dlq(),
      ...observations,
      redeliveries,
      duplicatesDelivered: runtime.deployment.lostDeletes(),
      delivery: runtime.delivery.counts(),
      ...(budgetWaits ? { budgetWaits } : {}),
    });
    const outbound = runtime.outbound();
    const appliedIds = new Set(
      outbound
        .filter((event) => event['detail-type'] !== 'SyncFailed')
        .map((event) => event.detail['causationId']),
    );
    const waitingIds = resolution?.waitingEventIds ?? [];
    const deniedCalls = runtime.denied().map(({ principal, action, resource, reason }) => ({
      principal,
      action,
      resource,
      reason,
    }));
    const tokenInEnvironment = Object.entries(process.env)
      .filter(([, value]) => value?.includes(token))
      .map(([name]) => name);
    return {
      ...verdict,
      options: settings,
      faultsInjected: faultPlan?.injected ?? 0,
      crashes: crashes.counts(),
      wallTimeMs: Date.now() - startedAt,
      eventLoopDelayMs: {
        p50: lateMs(loopDelay.percentile(50)),
        p99: lateMs(loopDelay.percentile(99)),
        max: lateMs(loopDelay.max),
      },
      tokenInEnvironment,
      deniedCalls,
      signupsResolved: {
        unconfirmed: resolution?.unconfirmed ?? 0,
        resolved: resolution?.resolved ?? 0,
        waitingEvents: waitingIds.length,
        appliedAfter: waitingIds.filter((id) => appliedIds.has(id)).length,
        waitedPastBudget: resolution?.waitedPastBudget ?? false,
      },
      personalData: workload.accounts.flatMap((account) => [account.ownerEmail, account.ownerMobile]),
      token,
      passed: runPassed({ ...verdict, tokenInEnvironment, deniedCalls }, settings.rateLimit),
    };
  } finally {
    budgetWatch?.stop();
    loopDelay.disable();
    await runtime?.close();
  }
}

const LOOP_DELAY_RESOLUTION_MS = 10;

/** How late the monitor's timer fired, in ms (one decimal): its samples include its own interval. */
function lateMs(sampleNs: number): number {
  return Math.max(0, Math.round((sampleNs / 1e6 - LOOP_DELAY_RESOLUTION_MS) * 10) / 10);
}

/** Publishes in send order, ten entries per PutEvents, one request at a time: per-account order holds. */
async function publish(
  eventBridge: EventBridgeClient,
  runtime: LocalRuntime,
  events: readonly ChaosEvent[],
  sent: Map<string, ChaosEvent>,
): Promise<void> {
  for (let start = 0; start < events.length; start += 10) {
    const chunk = events.slice(start, start + 10);
    const answer = await eventBridge.send(
      new PutEventsCommand({
        Entries: chunk.map((event) => ({
          EventBusName: runtime.busName,
          Source: runtime.inboundSource,
          DetailType: event.detailType,
          Detail: JSON.stringify(event.detail),
        })),
      }),
    );
    if ((answer.FailedEntryCount ?? 0) > 0) {
      throw new Error(
        `PutEvents refused ${answer.FailedEntryCount} entries: ${JSON.stringify(answer.Entries)}`,
      );
    }
    chunk.forEach((event, index) => {
      const eventId = answer.Entries?.[index]?.EventId;
      if (eventId === undefined) throw new Error('PutEvents answered without an EventId');
      sent.set(eventId, event);
    });
  }
}

async function observe(runtime: LocalRuntime, sandboxUrl: string, workload: Workload) {
  const businesses = await sandboxJson<SandboxBusiness[]>(sandboxUrl, 'GET', '/_sandbox/businesses');
  const requests = await sandboxJson<SandboxRequest[]>(sandboxUrl, 'GET', '/_sandbox/requests');
  const ours = new Set(workload.accounts.map((account) => account.accountId));
  const installs = new Map<string, InstallTables>();
  for (const business of businesses) {
    if (!ours.has(business.externalId)) continue;
    installs.set(
      business.hostname,
      await sandboxJson<InstallTables>(
        sandboxUrl,
        'GET',
        `/_sandbox/installs/${encodeURIComponent(business.hostname)}`,
      ),
    );
  }
  const store = createStore({ tableName: runtime.tableName });
  try {
    const tableBusinesses = new Map<string, TableBusiness | undefined>();
    for (const account of workload.accounts) {
      const record = await getBusiness(store, account.accountId);
      tableBusinesses.set(
        account.accountId,
        record && { status: record.status, hostname: record.hostname, edition: record.edition },
      );
    }
    const tableSlots = new Map<string, Array<{ apiName: string; slot: number }>>();
    const tablePositions = new Map<string, Map<string, TablePosition>>();
    for (const hostname of installs.keys()) {
      tableSlots.set(hostname, await listSlots(store, hostname, 'Employee'));
      tablePositions.set(hostname, await listPositions(store, hostname));
    }
    return {
      businesses,
      requests,
      installs,
      tableBusinesses,
      tableSlots,
      tablePositions,
    };
  } finally {
    store.client.destroy();
  }
}

/**
 * Every thing position the table holds for an install (docs/state.md: `pk = INSTALL#<hostname>`,
 * `sk = POSITION#<thing>`): the thing, and the event last applied to it.
 */
async function listPositions(store: Store, hostname: string): Promise<Map<string, TablePosition>> {
  const items = await queryAll(
    store,
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': installPartition(hostname), ':prefix': POSITION_PREFIX },
      ConsistentRead: true,
    },
    (item) => item,
  );
  return new Map(
    items.map((item) => [
      String(item['sk']).slice(POSITION_PREFIX.length),
      { occurredAt: String(item['occurredAt']), eventId: String(item['eventId']) },
    ]),
  );
}

async function sandboxJson<T = unknown>(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`sandbox ${method} ${path} answered ${response.status}`);
  return (await response.json()) as T;
}

/**
 * The budget's share of the sandbox's limit: as close to the limit as the way to the sandbox allows.
 *
 * GCRA spaces the requests' *departures* 1/rate apart; the sandbox's sliding window counts their
 * *arrivals*, and between the two lie timer lateness, stalls of this one process (the handlers,
 * dynalite and the sandbox share it) and the wait for a socket, which differ from request to
 * request. At rate = limit, request n and request n + limit leave exactly 1 s apart, so the later
 * one is refused whenever it travels faster than the earlier one: there is no slack, and every 429
 * also pauses every caller for its Retry-After. Trial runs of `npm run chaos -- --rate-limit 20
 * --events 500` (2026-11-24, not kept as results) chose 95 %: at the limit the 429 share stayed
 * above the 2 % goal even on a quiet machine; 95 % leaves about 53 ms of slack per window, about
 * the longest stall of a quiet run, and kept the share well under the goal; 90 % (about 111 ms)
 * did no better on 429s and caps the accepted rate at 90 %, too close to the 85 % the acceptance
 * asks. On a machine busy with other jobs stalls outgrow either slack, which is why the chaos
 * report shows the event-loop delay. docs/results/chaos-rate-limit.md has the last committed run.
 */
const BUDGET_SHARE_OF_LIMIT = 0.95;

/**
 * The request budget for a sandbox limited to `limit` requests in any one-second window, across
 * every caller (sandbox/faults.ts RateLimiter): one overall bucket at BUDGET_SHARE_OF_LIMIT of the
 * limit, with a burst of half the requests that share leaves free in a window (at least 1: at a
 * limit of 20, exactly 1), so a burst after an idle spell does not use up the slack. The sandbox's
 * limit is one for every caller, so there are no per-root or per-install buckets.
 */
export function budgetForLimit(limit: number) {
  return {
    provisioning: null,
    install: null,
    overall: {
      ratePerSecond: limit * BUDGET_SHARE_OF_LIMIT,
      burst: Math.max(1, Math.floor((limit * (1 - BUDGET_SHARE_OF_LIMIT)) / 2)),
    },
  };
}

/**
 * Watches the request budget from inside this process (the handlers run here, and each takes from
 * it through its dependencies, which call the local collaborators' observer): every take with how
 * long it slept for its slot (or for a pause), or how long its record was sent back to wait on its
 * queue (THROTTLED). Answers those waits as [from, to) intervals of wall-clock time: when calls
 * were waiting on the budget.
 */
function watchBudget(): { observe(take: BudgetTake): void; stop(): Array<[number, number]> } {
  const waits: Array<[number, number]> = [];
  let watching = true;
  return {
    observe(take) {
      if (!watching) return;
      if (take.waitedMs > 0) waits.push([take.endedAt - take.waitedMs, take.endedAt]);
      if (take.throttledForMs !== undefined) waits.push([take.endedAt, take.endedAt + take.throttledForMs]);
    },
    stop() {
      watching = false;
      return waits;
    },
  };
}
