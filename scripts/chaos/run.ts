import { randomBytes } from 'node:crypto';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { useLocalCollaborators } from '#functions/commons/local-collaborators.ts';
import { getBusiness } from '#functions/commons/store/business.ts';
import { requestBudgetKey } from '#functions/commons/store/keys.ts';
import { listSlots } from '#functions/commons/store/slots.ts';
import { createStore } from '#functions/commons/store/store.ts';
import { type LocalRuntime, type RuntimeActivity, startLocalRuntime } from '#local/runtime.ts';
import { crashPoints } from './crash-points.ts';
import {
  type ChaosVerdict,
  type InstallTables,
  judge,
  type SandboxBusiness,
  type SandboxRequest,
  type TableBusiness,
} from './verdict.ts';
import { buildWorkload, type ChaosEvent, type Workload } from './workload.ts';

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
  /** @default 1 */
  readonly seed?: number;
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
  /** Names of environment variables of this (the handlers') process whose value holds the token. */
  readonly tokenInEnvironment: readonly string[];
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
    timeScale: options.timeScale ?? 1 / 1800,
    httpTimeoutMs: options.httpTimeoutMs ?? 1000,
    logLevel: options.logLevel ?? 'ERROR',
  };
  const startedAt = Date.now();
  const token = options.token ?? `chaos-${randomBytes(18).toString('hex')}`;
  const report = options.onProgress ?? (() => undefined);
  const progress = (line: string) => report(`[${((Date.now() - startedAt) / 1000).toFixed(1)} s] ${line}`);
  const workload = buildWorkload(settings);

  // This process hosts the functions (local/function-host.ts): every one of them gets the crash
  // points as its `interruptions` collaborator, set before anything is sent.
  const crashes = crashPoints({ rate: settings.crashRate, seed: settings.seed });
  useLocalCollaborators(settings.crashRate > 0 ? { interruptions: crashes } : {});

  let redeliveries = 0;
  const onActivity = (activity: RuntimeActivity): void => {
    if (activity.kind === 'batch') redeliveries += activity.failed;
  };

  let runtime: LocalRuntime | undefined;
  let budgetWatch: { stop(): Promise<Set<number>> } | undefined;
  try {
    runtime = await startLocalRuntime({
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
    budgetWatch = settings.rateLimit === null ? undefined : watchBudget(runtime, settings.rateLimit);
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
    try {
      progress(`phase 1: ${workload.creations.length} AccountCreated`);
      await publish(eventBridge, runtime, workload.creations, sent);
      await runtime.waitForIdle();
      progress(`phase 2: ${workload.followUps.length} follow-up events`);
      await publish(eventBridge, runtime, workload.followUps, sent);
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
    const budgetSaturatedSeconds = await budgetWatch?.stop();
    const verdict = judge({
      workload,
      sent,
      outbound: runtime.outbound(),
      deadLetters: runtime.dlq(),
      ...observations,
      redeliveries,
      duplicatesDelivered: runtime.deployment.lostDeletes(),
      ...(budgetSaturatedSeconds ? { budgetSaturatedSeconds } : {}),
    });
    return {
      ...verdict,
      options: settings,
      faultsInjected: faultPlan?.injected ?? 0,
      crashes: crashes.counts(),
      wallTimeMs: Date.now() - startedAt,
      tokenInEnvironment: Object.entries(process.env)
        .filter(([, value]) => value?.includes(token))
        .map(([name]) => name),
      personalData: workload.accounts.flatMap((account) => [account.ownerEmail, account.ownerMobile]),
      token,
      passed: verdict.duplicates.total === 0 && verdict.lost === 0 && verdict.gaveUpWithoutSyncFailed === 0,
    };
  } finally {
    await budgetWatch?.stop();
    await runtime?.close();
    useLocalCollaborators({});
  }
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
    for (const hostname of installs.keys())
      tableSlots.set(hostname, await listSlots(store, hostname, 'Employee'));
    return {
      businesses,
      requests,
      installs,
      tableBusinesses,
      tableSlots,
    };
  } finally {
    store.doc.destroy();
  }
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
 * The request budget for a sandbox limited to `limit` requests in any one-second window, across
 * every caller (sandbox/faults.ts RateLimiter): one overall bucket at 90% of the limit with a
 * burst of one, so that no window holds more than the limit even when requests bunch up on their
 * way. The sandbox's limit is one for every caller, so there are no per-root or per-install buckets.
 */
export function budgetForLimit(limit: number) {
  return {
    provisioning: null,
    install: null,
    overall: { ratePerSecond: limit * 0.9, burst: Math.max(1, Math.floor(limit * 0.05)) },
  };
}

/**
 * Samples the overall request-budget bucket in the table every 100 ms, from outside the handlers:
 * a second is saturated when every sample in it (at least 5) showed a slot reserved beyond the
 * next interval (`tat` more than one interval ahead: a call was sleeping for its slot), i.e. the
 * budget was booked ahead for the whole second. Those seconds are the busy period the accepted
 * rate is judged over; in the others the connector had less work than the budget allows.
 */
function watchBudget(runtime: LocalRuntime, limit: number): { stop(): Promise<Set<number>> } {
  const intervalMs = 1000 / budgetForLimit(limit).overall.ratePerSecond;
  const client = new DynamoDBClient({
    region: runtime.region,
    endpoint: runtime.dynamoEndpoint,
    credentials: { accessKeyId: 'AKIACHAOSBUDGET', secretAccessKey: 'chaos' },
  });
  const samples = new Map<number, { all: number; booked: number }>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = Date.now();
      const { Item } = await client
        .send(
          new GetItemCommand({
            TableName: runtime.tableName,
            Key: { pk: { S: requestBudgetKey('all').pk }, sk: { S: requestBudgetKey('all').sk } },
          }),
        )
        .catch(() => ({ Item: undefined }));
      const tat = Number(Item?.['tat']?.N);
      const second = samples.get(Math.floor(at / 1000)) ?? { all: 0, booked: 0 };
      second.all += 1;
      if (Number.isFinite(tat) && tat > at + intervalMs) second.booked += 1;
      samples.set(Math.floor(at / 1000), second);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      client.destroy();
      return new Set(
        [...samples].filter(([, { all, booked }]) => all >= 5 && booked === all).map(([second]) => second),
      );
    },
  };
}
