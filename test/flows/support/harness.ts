/**
 * Flow harness: the connector's REAL Lambda handlers, run as the local runtime runs them — from
 * the synthesized template (local/runtime.ts): each function with the environment the template
 * gives it, against the sandbox (the service), dynalite (the template's table) and the local AWS
 * endpoint (EventBridge PutEvents, SQS, Secrets Manager) — every server on a free port.
 *
 *   const flow = useFlowHarness();                    // once per test file (beforeAll/afterAll)
 *   await flow.invoke('provision-business', sqsFifoBatch([inboundEvent('AccountCreated', detail)]));
 *   flow.published('BusinessProvisioned');            // events the connector published
 *   await flow.sandbox('GET', '/_sandbox/businesses'); // the service's state
 *   await getBusiness(flow.store, accountId);         // the table
 *
 * Tests here hand a function its SQS batch directly (as a Lambda console test would), to stage
 * exactly the record they need (a receive count, a crash between steps); the routing in front of
 * the functions (rules, pipes, queues) is tested end to end in test/local/. One harness per test
 * file is one "deployment" (its own servers, table and local runtime, stopped when the file ends,
 * though test files share Vitest's worker processes); tests inside a file share it and keep apart
 * by using their own account ids (`uniqueAccountId`).
 *
 * Event builders: `inboundEvent` (an EventBridge event as a rule delivers it), `sqsFifoBatch`
 * (the SQS FIFO batch Lambda receives, built on the record template of
 * events/inbound/<DetailType>/sqs-fifo-batch.json), `scheduledEvent` (the trial-watch trigger).
 */

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, ScheduledEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll } from 'vitest';
import { PIPE_EVENT_KEY } from '#functions/contracts/envelope.ts';
import { outboundContracts } from '#functions/contracts/registry.ts';
import { INBOUND_DETAIL_TYPES } from '#functions/contracts/route-decoder.ts';
import type { DriftWatchReport } from '#functions/drift-watch/drift-watch.ts';
import { loadConfig } from '#functions/runtime/config.ts';
import { buildDependencies, type Dependencies } from '#functions/runtime/dependencies.ts';
import { driftChecksDueBefore } from '#functions/store/drift-index.ts';
import { requestBudgetKey } from '#functions/store/keys.ts';
import { createRequestBudget } from '#functions/store/request-budget.ts';
import { createStore, type Store } from '#functions/store/store.ts';
import type { TrialWatchReport } from '#functions/trial-watch/trial-watch.ts';
import { invokeFunction } from '#local/aws/lambda.ts';
import type { FunctionModules } from '#local/function-host.ts';
import { type LocalRuntime, SANDBOX_TOKEN, startLocalRuntime } from '#local/runtime.ts';
import { type LenientReading, STRICT_QUERY_MAX_RECORDS } from '#sandbox/mode.ts';
import { lambdaContext } from '#test/support/lambda-context.ts';

export type ProvisioningRegion = 'US' | 'UK' | 'AU';

export interface FlowHarnessOptions {
  /**
   * Regions given a provisioning root. The sandbox runs exactly these (the spec runs only US; the
   * flows that provision UK or AU stand for a deployment whose configured roots all run); a test of
   * REGION_NOT_AVAILABLE passes ['US'].
   * @default ['US', 'UK', 'AU'] (as the local runtime)
   */
  provisioningRegions?: readonly ProvisioningRegion[];
  /** POWERTOOLS_LOG_LEVEL for the handlers. @default 'SILENT' (set FLOW_LOG_LEVEL to see logs) */
  logLevel?: string;
  /** Connector config fields (connector.config.example.json) over the local runtime's. */
  config?: Readonly<Record<string, unknown>>;
  /**
   * Lenient readings of the sandbox (sandbox/README.md), for a test of the client's tolerance of
   * one. @default none: the sandbox answers as the service's spec allows
   */
  sandboxLenient?: readonly LenientReading[];
  /** `shared` for a test that instruments the handlers' own clients (local/function-host.ts). @default 'per-environment' */
  functionModules?: FunctionModules;
}

export interface PublishedEvent {
  id: string;
  source: string;
  detailType: string;
  time: string;
  detail: Record<string, unknown>;
}

export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;
export type TestStore = Store;

export interface FlowHarness {
  sandboxUrl: string;
  /** The sandbox's lenient readings (none: the spec). */
  lenient: readonly LenientReading[];
  /** The connector's table (the same one the handlers write), for reads in assertions. */
  store: TestStore;
  /** The environment the template gives the functions (route functions share it). */
  env: Readonly<Record<string, string>>;
  /** The running local runtime, for what the helpers do not cover. */
  runtime: LocalRuntime;
  /** Events published to the bus so far, optionally of one detail-type only. */
  published(detailType?: string): PublishedEvent[];
  /** Events published for one account (detail.accountId), optionally of one detail-type. */
  publishedFor(accountId: string, detailType?: string): PublishedEvent[];
  /** Runs the template's function for `functions/<functionName>` once, as Lambda would. */
  invoke(functionName: string, event: unknown, context?: Context): Promise<unknown>;
  /** Like invoke, for queue-fed handlers: returns the partial batch response. */
  invokeBatch(functionName: string, batch: SQSEvent): Promise<SQSBatchResponse>;
  /** A JSON call to the sandbox (its control API, or the service API with the sandbox token). */
  sandbox<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

export interface SandboxBusiness {
  hostname: string;
  partner: string;
  externalId: string;
  portfolioName: string;
  email: string;
  edition: string;
  trialEndDate: string;
  conversionDate: string;
}

export interface SandboxRequest {
  time: string;
  method: string;
  path: string;
  status: number;
}

export async function startFlowHarness(options: FlowHarnessOptions = {}): Promise<FlowHarness> {
  const lenient = options.sandboxLenient ?? [];
  // Unless the sandbox answers every record, the deployment knows its QUERY maximum, as one against
  // the real service would once it is known (serviceAssumptions.queryMaxRecords).
  const capped = !lenient.includes('all-records');
  const runtime = await startLocalRuntime({
    logLevel: options.logLevel ?? process.env['FLOW_LOG_LEVEL'] ?? 'SILENT',
    ...(options.provisioningRegions ? { provisioningRegions: options.provisioningRegions } : {}),
    ...(options.functionModules ? { functionModules: options.functionModules } : {}),
    ...(capped || options.config
      ? {
          config: {
            ...options.config,
            // A file's own assumptions are taken over the QUERY maximum, not instead of it.
            ...(capped
              ? {
                  serviceAssumptions: {
                    queryMaxRecords: STRICT_QUERY_MAX_RECORDS,
                    ...(options.config?.['serviceAssumptions'] as Record<string, unknown> | undefined),
                  },
                }
              : {}),
          },
        }
      : {}),
    ...(lenient.length > 0 ? { sandboxLenient: lenient } : {}),
  });
  // The spec runs the US provisioning root only. The flows that provision UK or AU stand for a
  // deployment whose configured roots all run, so the sandbox runs exactly those (the answer of a
  // root that is not running is tested in test/sandbox/spec-readings.test.ts).
  try {
    const regions = await fetch(`${runtime.sandboxUrl}/_sandbox/mode`, {
      method: 'POST',
      body: JSON.stringify({ regions: options.provisioningRegions ?? ['US', 'UK', 'AU'] }),
    });
    if (!regions.ok) throw new Error(`the sandbox refused its regions: ${await regions.text()}`);
  } catch (error) {
    // Nothing outlives a harness that failed to start: a runtime left running would refuse the
    // next file's in this worker process.
    await runtime.close();
    throw error;
  }
  const client = new DynamoDBClient({
    endpoint: runtime.dynamoEndpoint,
    region: runtime.region,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const store: TestStore = createStore({ tableName: runtime.tableName, client });
  const close = async () => {
    client.destroy();
    await runtime.close();
  };
  const published = (): PublishedEvent[] =>
    runtime.outbound().map((event) => ({
      id: event.id,
      source: event.source,
      detailType: event['detail-type'],
      time: event.time,
      detail: event.detail,
    }));
  const invoke = async (functionName: string, event: unknown, context?: Context) => {
    const fn = runtime.functionNamed(functionName);
    const handler = await fn.handler();
    return context ? handler(event, context) : invokeFunction(handler, event, fn.settings);
  };
  const sandboxUrl = runtime.sandboxUrl;
  return {
    sandboxUrl,
    lenient,
    store,
    env: runtime.functionEnvironment('provision-business'),
    runtime,
    published: (detailType) =>
      published().filter((event) => detailType === undefined || event.detailType === detailType),
    publishedFor: (accountId, detailType) =>
      published().filter(
        (event) =>
          event.detail['accountId'] === accountId &&
          (detailType === undefined || event.detailType === detailType),
      ),
    invoke,
    invokeBatch: async (functionName, batch) => (await invoke(functionName, batch)) as SQSBatchResponse,
    async sandbox<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${sandboxUrl}${path}`, {
        method,
        headers: {
          'content-type': 'application/json',
          ...(path.startsWith('/_sandbox') ? {} : { authorization: `Bearer ${SANDBOX_TOKEN}` }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return (text === '' ? undefined : JSON.parse(text)) as T;
    },
    close,
  };
}

/**
 * Starts a harness before the calling file's tests and closes it after them. The returned
 * harness is a view that forwards to the live one: it only exists once beforeAll has run, yet
 * helpers and tests keep taking `flow` as the harness itself. Hooks the file registers after
 * this call (seeding accounts, say) already see the live harness.
 */
export function useFlowHarness(options: FlowHarnessOptions = {}): FlowHarness {
  let live: FlowHarness | undefined;
  let starting: Promise<FlowHarness> | undefined;
  beforeAll(async () => {
    starting = startFlowHarness(options);
    live = await starting;
  });
  // Also when beforeAll gave up waiting (its timeout): the start still ends, and what it started is
  // closed, so the next file in this worker process can start its own runtime.
  afterAll(async () => (live ?? (await starting?.catch(() => undefined)))?.close());

  const current = (): FlowHarness => {
    if (!live) throw new Error('the flow harness is only available inside tests and hooks');
    return live;
  };
  return {
    get sandboxUrl() {
      return current().sandboxUrl;
    },
    lenient: options.sandboxLenient ?? [],
    get store() {
      return current().store;
    },
    get env() {
      return current().env;
    },
    get runtime() {
      return current().runtime;
    },
    published: (detailType) => current().published(detailType),
    publishedFor: (accountId, detailType) => current().publishedFor(accountId, detailType),
    invoke: (functionName, event, context) => current().invoke(functionName, event, context),
    invokeBatch: (functionName, batch) => current().invokeBatch(functionName, batch),
    sandbox: <T>(method: string, path: string, body?: unknown) => current().sandbox<T>(method, path, body),
    close: () => current().close(),
  };
}

export interface InboundEvent {
  version: string;
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: Record<string, unknown>;
}

let lastEventSecond = 0;

/**
 * The envelope `time` of the next event a test makes: now to the second, as EventBridge writes it,
 * and strictly later than the previous one, as a publisher that sets PutEvents `Time` from its
 * clock gives it. An event without `occurredAt` is ordered by this time (then its id) against the
 * other events on the same thing, so events a test makes one after the other are newer in that
 * order, as a partner's would be (two in one real second would otherwise be ordered by their
 * random ids).
 */
function nextEventTime(): string {
  lastEventSecond = Math.max(Math.floor(Date.now() / 1000), lastEventSecond + 1);
  return new Date(lastEventSecond * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** An inbound event as the EventBridge rule hands it to the queue. */
export function inboundEvent(
  detailType: string,
  detail: Record<string, unknown>,
  overrides: { id?: string; time?: string; source?: string } = {},
): InboundEvent {
  return {
    version: '0',
    id: overrides.id ?? randomUUID(),
    'detail-type': detailType,
    source: overrides.source ?? 'partner.app',
    account: '123456789012',
    time: overrides.time ?? nextEventTime(),
    region: 'us-east-1',
    resources: [],
    detail,
  };
}

const templates = new Map<string, SQSRecord>();

/** The record of events/inbound/<detailType>/sqs-fifo-batch.json: the shape Lambda receives. */
function recordTemplate(detailType: string): SQSRecord {
  let template = templates.get(detailType);
  if (!template) {
    const url = new URL(`../../../events/inbound/${detailType}/sqs-fifo-batch.json`, import.meta.url);
    const batch = JSON.parse(readFileSync(url, 'utf8')) as SQSEvent;
    const first = batch.Records[0];
    if (!first) throw new Error(`events/inbound/${detailType}/sqs-fifo-batch.json has no record`);
    template = first;
    templates.set(detailType, template);
  }
  return template;
}

/**
 * An SQS FIFO batch for these events, in order, as the intake pipe writes them: the body wraps
 * the event (`{"event": ...}`, see functions/contracts/envelope.ts), MessageGroupId =
 * detail.accountId, MessageDeduplicationId = event id. A raw string body stands for a message
 * that is not even JSON.
 */
export function sqsFifoBatch(
  events: ReadonlyArray<InboundEvent | { rawBody: string; detailType: string; groupId: string }>,
  options: { receiveCount?: number } = {},
): SQSEvent {
  return {
    Records: events.map((event, index) => {
      const isRaw = 'rawBody' in event;
      const detailType = isRaw ? event.detailType : event['detail-type'];
      const template = recordTemplate(knownDetailType(detailType));
      const groupId = isRaw ? event.groupId : String(event.detail['accountId'] ?? 'unknown');
      const deduplicationId = isRaw ? randomUUID() : event.id;
      return {
        ...template,
        messageId: randomUUID(),
        body: isRaw ? event.rawBody : JSON.stringify({ [PIPE_EVENT_KEY]: event }),
        attributes: {
          ...template.attributes,
          ApproximateReceiveCount: String(options.receiveCount ?? 1),
          SentTimestamp: String(Date.now()),
          SequenceNumber: String(18849496460467696002n + BigInt(index)),
          MessageGroupId: groupId,
          MessageDeduplicationId: deduplicationId,
        },
      };
    }),
  };
}

/**
 * A batch of a standard queue the refusal function reads: the refusal rule's queue
 * (`refusalQueueArn`) or a route's intake dead-letter queue, told apart by `queueArn`. The body is
 * the event itself, as a rule target sends it; a string is any other body, as it is. String
 * `messageAttributes` are those EventBridge adds to a dead letter (RULE_ARN, ERROR_CODE, ...).
 */
export function refusalBatch(
  events: readonly (InboundEvent | string)[],
  queueArn: string,
  messageAttributes: Readonly<Record<string, string>> = {},
): SQSEvent {
  return {
    Records: events.map((event) => ({
      ...recordTemplate('AccountCreated'),
      messageId: randomUUID(),
      body: typeof event === 'string' ? event : JSON.stringify(event),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: 'AIDAEXAMPLE',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: Object.fromEntries(
        Object.entries(messageAttributes).map(([name, value]) => [
          name,
          { stringValue: value, stringListValues: [], binaryListValues: [], dataType: 'String' },
        ]),
      ),
      // The queue the batch comes from: the refusal queue's ARN (refusalQueueArn), or any other for
      // an intake dead letter, as the function tells them apart.
      eventSourceARN: queueArn,
    })),
  };
}

/** The ARN of the refusal rule's queue, as the template gives it to the refusal function. */
export function refusalQueueArn(flow: FlowHarness): string {
  const arn = flow.runtime.functionEnvironment('refuse-unroutable')['REFUSAL_QUEUE_ARN'];
  if (!arn) throw new Error('the template gives refuse-unroutable no REFUSAL_QUEUE_ARN');
  return arn;
}

const SAMPLE_DETAIL_TYPES: ReadonlySet<string> = new Set(INBOUND_DETAIL_TYPES);

// An unknown or misspelt detail-type still needs a record shape; the AccountCreated one serves.
function knownDetailType(detailType: string): string {
  return SAMPLE_DETAIL_TYPES.has(detailType) ? detailType : 'AccountCreated';
}

/** The EventBridge Scheduled Event that triggers the trial watch, timed at `at`. */
export function scheduledEvent(at: Date | string, id: string = randomUUID()): ScheduledEvent {
  const time = typeof at === 'string' ? at : at.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    version: '0',
    id,
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time,
    region: 'us-east-1',
    resources: ['arn:aws:events:us-east-1:123456789012:rule/trial-watch-schedule'],
    detail: {},
  };
}

let lastOccurredMs = 0;

/**
 * The `occurredAt` a partner's clock gives a change made now (RFC 3339, to the millisecond),
 * strictly later than the previous one: events a test sends on one thing are newer in the order
 * it makes them. Without it two events made in one second would be ordered by their random event
 * ids (the envelope time has whole seconds), as the connector documents.
 */
export function occurredNow(): string {
  lastOccurredMs = Math.max(Date.now(), lastOccurredMs + 1);
  return new Date(lastOccurredMs).toISOString();
}

/** An account id no other test of the file uses (tests share one sandbox and one table). */
export function uniqueAccountId(label: string): string {
  return `acct-${label}-${randomUUID().slice(0, 8)}`;
}

/** An owner e-mail no other test uses: the sandbox refuses an e-mail it has seen. */
export function uniqueEmail(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}@example.com`;
}

/** The AccountCreated detail of the sample account, made unique for one test. */
export function accountCreatedDetail(
  accountId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    accountId,
    businessName: 'Harbor Cafe',
    owner: {
      firstName: 'Avery',
      lastName: 'Stone',
      email: uniqueEmail('owner'),
      mobileNumber: '+1 415 555 0134',
    },
    estimatedEmployeeCount: 12,
    region: 'US',
    ...overrides,
  };
}

export const US_BILLING_ADDRESS = {
  address1: '100 Embarcadero',
  suburb: 'San Francisco',
  state: 'CA',
  postcode: '94105',
  country: 'United States',
} as const;

/** Sandbox service calls to one provisioning operation so far (signup, change-plan, subscription-status). */
export async function provisioningCalls(
  flow: FlowHarness,
  operation: 'signup' | 'change-plan' | 'subscription-status',
): Promise<SandboxRequest[]> {
  const requests = await flow.sandbox<SandboxRequest[]>('GET', '/_sandbox/requests');
  return requests.filter((request) => request.path.endsWith(`/${operation}`));
}

/** The sandbox commits the next call below `pathPrefix`, then drops the connection before answering. */
export async function dropNextAnswerAfterCommit(flow: FlowHarness, pathPrefix: string): Promise<void> {
  await flow.sandbox('POST', '/_sandbox/faults', {
    rate: 1,
    kinds: ['drop-after-commit'],
    count: 1,
    pathPrefix,
  });
}

export async function sandboxBusinessOf(flow: FlowHarness, accountId: string): Promise<SandboxBusiness[]> {
  const businesses = await flow.sandbox<SandboxBusiness[]>('GET', '/_sandbox/businesses');
  return businesses.filter((business) => business.externalId === accountId);
}

/** Runs AccountCreated through the real handler and returns the hostname the service gave. */
export async function provisionAccount(
  flow: FlowHarness,
  accountId: string,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const event = inboundEvent('AccountCreated', accountCreatedDetail(accountId, overrides));
  const response = await flow.invokeBatch('provision-business', sqsFifoBatch([event]));
  const provisioned = flow
    .publishedFor(accountId, 'BusinessProvisioned')
    .find((published) => published.detail['causationId'] === event.id);
  if (response.batchItemFailures.length > 0 || !provisioned) {
    throw new Error(`provisioning ${accountId} failed: ${JSON.stringify(flow.publishedFor(accountId))}`);
  }
  return String(provisioned.detail['hostname']);
}

const PROVISIONING_REGIONS = ['US', 'UK', 'AU'] as const;

/**
 * Every provisioning root's bucket of the shared request budget paused for 10 minutes, as after a
 * 429 with a long Retry-After: no service call can take a request within the in-process wait.
 */
async function pauseProvisioningBudget(flow: FlowHarness): Promise<void> {
  const settings = loadConfig(flow.env).requestBudget;
  if (!settings) throw new Error('the flow harness runs with the request budget');
  const budget = createRequestBudget({ store: flow.store, settings });
  for (const region of PROVISIONING_REGIONS) {
    await budget.pause({ kind: 'provisioning', region }, Date.now() + 600_000);
  }
}

async function clearProvisioningBudget(flow: FlowHarness): Promise<void> {
  for (const region of PROVISIONING_REGIONS) {
    await flow.store.doc.send(
      new DeleteCommand({ TableName: flow.store.tableName, Key: requestBudgetKey(`root#${region}`) }),
    );
  }
}

/** Runs the provisioning calls of `act` with the request budget paused (pauseProvisioningBudget), cleared after whatever happened. */
export async function withProvisioningBudgetPaused<T>(flow: FlowHarness, act: () => Promise<T>): Promise<T> {
  await pauseProvisioningBudget(flow);
  try {
    return await act();
  } finally {
    await clearProvisioningBudget(flow);
  }
}

/** The sandbox clock's "now" (the service's time, which the local runtime gives scheduled events). */
export async function sandboxNow(flow: FlowHarness): Promise<string> {
  return (await flow.sandbox<{ now: string }>('GET', '/_sandbox/clock')).now;
}

/**
 * Runs a scheduled function once as its schedule does: a scheduled event at `now`, and the 300 s
 * the route table gives the watches.
 */
async function runScheduled<Report>(
  flow: FlowHarness,
  functionName: 'trial-watch' | 'drift-watch',
  now: Date | string,
): Promise<Report> {
  return (await flow.invoke(
    functionName,
    scheduledEvent(now),
    lambdaContext(functionName, { timeoutMs: 300_000 }),
  )) as Report;
}

export function runDriftWatch(flow: FlowHarness, now: Date | string): Promise<DriftWatchReport> {
  return runScheduled<DriftWatchReport>(flow, 'drift-watch', now);
}

export function runTrialWatch(flow: FlowHarness, now: Date | string): Promise<TrialWatchReport> {
  return runScheduled<TrialWatchReport>(flow, 'trial-watch', now);
}

/** The accounts whose drift check is due before `now` (every page of the drift index). */
export async function driftChecksDue(store: Store, now = '2999-01-01T00:00:00Z'): Promise<string[]> {
  const due: string[] = [];
  for await (const page of driftChecksDueBefore(store, now)) {
    due.push(...page.items.map((item) => item.accountId));
  }
  return due;
}

/**
 * The collaborators the handlers use (same env, table, sandbox), for running a use case directly:
 * its SDK clients are those of the runtime's endpoints (functions/runtime/clients/: one per
 * endpoint, and the running local runtime's endpoints are the process's).
 */
export async function flowDependencies(): Promise<Dependencies> {
  return buildDependencies(loadConfig(process.env), outboundContracts);
}
