import { createHash, randomUUID } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { App } from 'aws-cdk-lib';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { DEAD_LETTER_ATTRIBUTES } from '#functions/runtime/route-queue.ts';
import type { ConnectorConfig } from '#lib/config.ts';
import type { WorkforceConnectorProps } from '#lib/workforce-connector.ts';
import { startSandbox } from '#sandbox/server.ts';
import type { EventArchive } from './aws/archive.ts';
import { DEFAULT_TIME_SCALE, localClock } from './aws/clock.ts';
import type { BusEvent } from './aws/event-bus.ts';
import { eventsApi } from './aws/events-api.ts';
import { dynamicParameter, withImplicitBodyParsing } from './aws/input-template.ts';
import {
  type BatchInvocation,
  eventTime,
  invokeFunction,
  keptMessageIds,
  LOCAL_ACCOUNT_ID,
  type LocalFunction,
  scheduledEvent,
  toSqsEvent,
} from './aws/lambda.ts';
import type { Replay } from './aws/replay.ts';
import { LocalSecrets } from './aws/secrets-api.ts';
import { sqsApi } from './aws/sqs-api.ts';
import type { StoredMessage } from './aws/sqs-message.ts';
import { type ControlRoute, type Operation, startAwsEndpoint } from './aws-endpoint.ts';
import { TemplateModel } from './cloudformation.ts';
import {
  type DeploymentActivity,
  deployLocally,
  type LocalDeployment,
  type QueueView,
} from './deployment.ts';
import { startDynalite } from './dynalite.ts';
import { type FunctionModules, InProcessFunctionHost } from './function-host.ts';
import { labelFunctions } from './handler-output.ts';
import { mulberry32 } from './random.ts';
import {
  LOCAL_REGION,
  localConnectorConfig,
  SERVICE_PLACEHOLDER,
  synthesizeLocalTemplates,
} from './template.ts';

/**
 * The connector on one machine, run from its own synthesized template: the sandbox, dynalite with
 * the template's table, one endpoint for EventBridge / SQS / Secrets Manager plus `/_local/*`, and
 * every rule, queue, pipe, event source mapping, function and schedule the template declares
 * (deployment.ts). `npm start`, serve mode, `npm run invoke`, the chaos run, the bench and the
 * end-to-end tests all start the connector here, so what passes locally is what `cdk deploy` creates.
 */

export const SERVE_PORTS = { sandbox: 8787, dynamo: 8000, events: 4010 } as const;
export const SANDBOX_TOKEN = 'sandbox-token';

export interface LocalPorts {
  readonly sandbox: number;
  readonly dynamo: number;
  readonly events: number;
}

export type ScheduleMode = 'sandbox-clock' | 'on-request';

export interface LocalRuntimeOptions {
  /** `free` (tests, `npm start`), `fixed` (8787 / 8000 / 4010) or one port each (0 = free). @default 'free' */
  readonly ports?: 'free' | 'fixed' | LocalPorts;
  /** Scale of AWS waiting times (aws/clock.ts). @default 1/1000 */
  readonly timeScale?: number;
  /** POWERTOOLS_LOG_LEVEL of the handlers, over the template's. @default the template's */
  readonly logLevel?: string;
  /**
   * The bearer token: the sandbox accepts it and the template's secret starts with it. `null`
   * leaves the secret as CloudFormation creates it (a generated value the sandbox refuses), to
   * rehearse "deploy first, set the token later". @default 'sandbox-token'
   */
  readonly token?: string | null;
  /** Requests per second the sandbox accepts. @default no limit */
  readonly rateLimit?: number;
  /** Starts the sandbox in strict mode (sandbox/README.md "Strict mode"). @default false */
  readonly sandboxStrict?: boolean;
  /** Connector config fields over the example config (e.g. httpTimeoutMs). */
  readonly config?: Readonly<Record<string, unknown>>;
  /** Regions given a provisioning root at the sandbox. @default US, UK and AU */
  readonly provisioningRegions?: ReadonlyArray<'US' | 'UK' | 'AU'>;
  /** Construct props over those of the config (test fixtures: other routes and handlers). */
  readonly connector?: Partial<WorkforceConnectorProps>;
  /** Changes the app before synthesis (CDK Aspects, escape hatches): tests that show drift. */
  readonly customize?: (app: App) => void;
  /**
   * A server the functions reach the service through, in front of the sandbox (the bench records
   * requests there); the runtime closes it. @default the sandbox itself
   */
  readonly serviceProxy?: (sandboxUrl: string) => Promise<{ readonly url: string; close(): Promise<void> }>;
  /** `sandbox-clock`: schedules fire as the sandbox clock passes them. @default 'on-request' */
  readonly schedules?: ScheduleMode;
  /**
   * How the functions' modules load (function-host.ts): a module graph per execution environment,
   * as on Lambda, or one `shared` by the process, for a tool that instruments the handlers' own
   * clients. @default 'per-environment'
   */
  readonly functionModules?: FunctionModules;
  /** Variables added to every function's environment (a chaos run's crash rate). */
  readonly extraEnvironment?: Readonly<Record<string, string>>;
  /**
   * Chaos hook: event source mappings "lose" this share of deletes, so processed records are
   * delivered again as SQS's at-least-once delivery allows (aws/poller.ts). @default none
   */
  readonly faults?: { readonly lostDeleteRate: number; readonly seed?: number };
  /**
   * Whether an event replayed from an archive keeps its original `id`. AWS documents that a replay
   * adds `replay-name` ("Archiving and replaying events") but not what happens to the id, so both
   * can be run (aws/archive.ts). @default false: a replayed event gets a new id
   */
  readonly replayKeepsIds?: boolean;
  /**
   * The time of the local AWS services in ms (aws/clock.ts: SQS windows such as the 5-minute FIFO
   * deduplication interval, retry ages, archive retention, replay times); tests move it forward
   * instead of waiting. Handlers, event times and the sandbox keep the real time. @default Date.now
   */
  readonly now?: () => number;
  readonly onActivity?: (activity: RuntimeActivity) => void;
}

export type RuntimeActivity =
  | DeploymentActivity
  | {
      readonly kind: 'schedule';
      readonly rule: string;
      readonly trigger: 'clock' | 'request';
      readonly results: readonly unknown[];
      readonly errors: readonly string[];
    }
  | { readonly kind: 'dead-letter'; readonly deadLetter: DeadLetterView };

export interface OutboundEvent {
  readonly id: string;
  readonly source: string;
  readonly 'detail-type': string;
  readonly time: string;
  readonly detail: Record<string, unknown>;
}

export interface DeadLetterView {
  readonly queue: string;
  readonly body: string;
  /** Counted attempts when the handler kept it (its ATTEMPTS attribute), else the receives. */
  readonly attempts: number;
  /**
   * The last error's code: ERROR_CODE, set by a route handler that gave up (route-queue.ts) and by
   * EventBridge on what it could not deliver; `UNREPORTED` for a message the queue's redrive policy
   * moved (its function never got to decide, so no SyncFailed was sent for it).
   */
  readonly lastErrorCode: string;
  readonly reason: string;
  readonly messageId: string;
}

export interface LocalResources {
  readonly busName: string;
  readonly tokenSecretName: string;
  readonly queues: ReadonlyArray<
    Pick<QueueView, 'name' | 'kind' | 'route' | 'deadLettersOf'> & { readonly url: string }
  >;
}

export interface ScheduleRun {
  readonly rule: string;
  readonly functionName: string;
  readonly results: readonly unknown[];
  readonly errors: readonly string[];
}

export interface LocalRuntime {
  readonly sandboxUrl: string;
  readonly dynamoEndpoint: string;
  /** The AWS endpoint: EventBridge PutEvents, SQS, Secrets Manager and `/_local/*`. */
  readonly eventsEndpoint: string;
  readonly tableName: string;
  readonly busName: string;
  readonly tokenSecretName: string;
  readonly inboundSource: string;
  readonly outboundSource: string;
  readonly region: string;
  readonly config: ConnectorConfig;
  readonly deployment: LocalDeployment;
  readonly secrets: LocalSecrets;
  /** The variables a function runs with (template + runtime), by its POWERTOOLS_SERVICE_NAME. */
  functionEnvironment(serviceName: string): Record<string, string>;
  /** The function whose POWERTOOLS_SERVICE_NAME is `serviceName` (the route table's function name). */
  functionNamed(serviceName: string): LocalFunction;
  resources(): LocalResources;
  outbound(): readonly OutboundEvent[];
  dlq(): readonly DeadLetterView[];
  /** Every event accepted by PutEvents, whatever its source, in arrival order (not replayed ones). */
  published(): readonly BusEvent[];
  /** The template's archives (AWS::Events::Archive), with the events they keep. */
  archives(): readonly EventArchive[];
  /** Replays started from them (StartReplay), with their state and the events they sent. */
  replays(): readonly Replay[];
  /** Fires every schedule rule once, at the sandbox clock's time; resolves when its targets are done. */
  runSchedules(): Promise<ScheduleRun[]>;
  /** Fires the trial watch's schedule; resolves with the function's result. */
  runTrialWatch(): Promise<unknown>;
  /**
   * Runs one function once, as `npm run invoke` does: `event` may be the SQS batch the function
   * receives, an EventBridge event or a PutEvents entry (wrapped as the template's rule, pipe and
   * event source would wrap it), or nothing for a scheduled function.
   */
  invoke(serviceName: string, event?: unknown): Promise<InvocationReport>;
  /** Resolves once nothing is queued, in flight, being retried or being replayed. */
  waitForIdle(): Promise<void>;
  close(): Promise<void>;
}

export interface InvocationReport {
  readonly functionName: string;
  /** The event the handler received. */
  readonly event: unknown;
  readonly result?: unknown;
  readonly error?: string;
  readonly durationMs: number;
  /** Events the function published during the invocation. */
  readonly published: readonly OutboundEvent[];
  /**
   * Records of an SQS batch the function did not finish (its batchItemFailures, or all of them when
   * it failed): on AWS the event source mapping leaves them on the queue, visible again after this
   * many seconds. The invocation runs once; nothing is retried.
   */
  readonly retried?: ReadonlyArray<{ readonly messageId: string; readonly visibleAgainInSeconds: number }>;
}

let running = false;

export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  if (running)
    throw new Error('a local runtime is already running in this process (handlers read process.env once)');
  running = true;
  const cleanup: Array<() => Promise<void>> = [];
  try {
    return await start(options, cleanup);
  } catch (error) {
    for (const close of cleanup.reverse()) await close().catch(() => undefined);
    running = false;
    throw error;
  }
}

async function start(
  options: LocalRuntimeOptions,
  cleanup: Array<() => Promise<void>>,
): Promise<LocalRuntime> {
  const ports =
    options.ports === 'fixed'
      ? SERVE_PORTS
      : options.ports === undefined || options.ports === 'free'
        ? { sandbox: 0, dynamo: 0, events: 0 }
        : options.ports;
  const region = LOCAL_REGION;
  const clock = localClock(options.timeScale ?? DEFAULT_TIME_SCALE, options.now);
  const sandboxToken = options.token ?? SANDBOX_TOKEN;

  const sandbox = await startSandbox({
    port: ports.sandbox,
    token: sandboxToken,
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.sandboxStrict ? { strict: true } : {}),
    ...(typeof options.config?.['partnerName'] === 'string'
      ? { partner: options.config['partnerName'] }
      : {}),
  });
  cleanup.push(() => sandbox.close());
  const dynamo = await startDynalite({ port: ports.dynamo });
  cleanup.push(() => dynamo.close());

  // The endpoint listens first (queue URLs are made on its address); its operations exist once the
  // template is deployed.
  let operations: Record<string, Operation> = {};
  const published: BusEvent[] = [];
  const control: ControlRoute[] = [];
  const endpoint = await startAwsEndpoint({
    port: ports.events,
    operations: () => operations,
    control: () => control,
  });
  cleanup.push(() => endpoint.close());

  // The app, synthesized for this machine: the example config with the service at the sandbox.
  const proxy = options.serviceProxy ? await options.serviceProxy(sandbox.url) : undefined;
  if (proxy) cleanup.push(() => proxy.close());
  const serviceUrl = proxy?.url ?? sandbox.url;
  const configFor = (url: string) =>
    localConnectorConfig({
      sandboxUrl: url,
      ...(options.provisioningRegions ? { regions: options.provisioningRegions } : {}),
      ...(options.config ? { overrides: options.config } : {}),
    });
  const config = configFor(serviceUrl);
  const stacks = await synthesizeLocalTemplates(
    configFor(SERVICE_PLACEHOLDER),
    options.connector,
    options.customize,
  );
  const model = new TemplateModel(stacks, {
    region,
    account: LOCAL_ACCOUNT_ID,
    sqsEndpoint: endpoint.url,
  });

  const runtimeVariables = (fn: Omit<LocalFunction, 'handler'>): Record<string, string> => ({
    // What the Lambda runtime sets ("Defined runtime environment variables").
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    // Fake credentials: the SDK signs every request; the local endpoints never check signatures.
    AWS_ACCESS_KEY_ID: 'AKIALOCALRUNTIME0000',
    AWS_SECRET_ACCESS_KEY: 'local-runtime-secret-access-key',
    // The local stand-ins for AWS's endpoints (AWS SDK "Service-specific endpoints").
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: endpoint.url,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint.url,
    AWS_ENDPOINT_URL_SQS: endpoint.url,
    ...(options.logLevel ? { POWERTOOLS_LOG_LEVEL: options.logLevel } : {}),
    ...options.extraEnvironment,
  });
  // A developer's own AWS profile must never leak into a local run.
  for (const name of ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_ENDPOINT_URL']) delete process.env[name];

  const host = new InProcessFunctionHost(runtimeVariables, options.functionModules);
  const deployment = deployLocally(model, {
    region,
    clock,
    host,
    environmentSubstitutions: [[SERVICE_PLACEHOLDER, serviceUrl]],
    ...(options.replayKeepsIds === undefined ? {} : { replayKeepsIds: options.replayKeepsIds }),
    ...(options.onActivity ? { onActivity: options.onActivity } : {}),
    ...(options.faults
      ? {
          faults: {
            lostDeleteRate: options.faults.lostDeleteRate,
            random: mulberry32(options.faults.seed ?? 1),
          },
        }
      : {}),
  });
  const deployed = deployment;
  cleanup.push(() => deployed.stop());
  // Log lines name a function as a reader knows it (local/handler-output.ts).
  labelFunctions(
    [...deployed.functions.values()].map(
      (fn) => [fn.name, fn.environment['POWERTOOLS_SERVICE_NAME'] ?? fn.logicalId] as const,
    ),
  );

  // Tables as the template defines them.
  const dynamoClient = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    for (const table of deployed.tables) await dynamoClient.send(new CreateTableCommand(table.input));
  } finally {
    dynamoClient.destroy();
  }

  // Secrets as CloudFormation creates them; the one the functions read starts with the token.
  const tokenSecretIds = new Set(
    [...deployed.functions.values()]
      .map((fn) => fn.environment['TOKEN_SECRET_ID'])
      .filter((id): id is string => !!id),
  );
  const secrets = new LocalSecrets({
    region,
    account: LOCAL_ACCOUNT_ID,
    knownNames: [...tokenSecretIds].map(secretName),
  });
  for (const secret of deployed.secrets) {
    const isToken = tokenSecretIds.has(secret.arn) || tokenSecretIds.has(secret.name);
    const initial =
      isToken && options.token !== null
        ? sandboxToken
        : secret.generated
          ? LocalSecrets.placeholder()
          : undefined;
    secrets.define(secret.name, secret.arn, initial);
  }
  operations = {
    ...eventsApi({
      region,
      buses: deployed.buses,
      archives: deployed.archives,
      onAccepted: (event) => published.push(event),
    }),
    ...sqsApi({ queues: () => deployed.queues.values() }),
    ...secrets.operations(),
  };

  const tableName = deployed.tables[0]?.input.TableName ?? '';
  const tokenSecretName = deployed.secrets[0]?.name ?? secretName([...tokenSecretIds][0] ?? '');
  const busName = deployed.connectorBus.name;

  const functionNamed = (serviceName: string): LocalFunction => {
    const found = [...deployed.functions.values()].find(
      (fn) => fn.environment['POWERTOOLS_SERVICE_NAME'] === serviceName,
    );
    if (!found) {
      const known = [...deployed.functions.values()].map((fn) => fn.environment['POWERTOOLS_SERVICE_NAME']);
      throw new Error(`the template has no function for ${serviceName} (it has ${known.join(', ')})`);
    }
    return found;
  };

  // Dead letters, for the /_local/dlq view and progress lines.
  const deadLetterQueues = deployed.queueViews.filter((view) => view.kind === 'dead-letter');
  const deadLetterOf = (queue: string, message: StoredMessage): DeadLetterView => {
    const attributes = message.messageAttributes;
    const attempts = Number(attributes[DEAD_LETTER_ATTRIBUTES.attempts]);
    return {
      queue,
      body: message.body,
      attempts: Number.isInteger(attempts) && attempts > 0 ? attempts : message.receiveCount,
      lastErrorCode: attributes[DEAD_LETTER_ATTRIBUTES.errorCode] ?? 'UNREPORTED',
      reason: attributes[DEAD_LETTER_ATTRIBUTES.errorMessage] ?? message.lastFailure ?? 'no reason recorded',
      messageId: message.messageId,
    };
  };
  const dlq = (): DeadLetterView[] =>
    deadLetterQueues.flatMap((view) =>
      (deployed.queues.get(view.name)?.messages() ?? []).map((message) => deadLetterOf(view.name, message)),
    );
  if (options.onActivity) {
    const onActivity = options.onActivity;
    for (const view of deadLetterQueues) {
      const queue = deployed.queues.get(view.name);
      if (!queue) continue;
      let seen = new Set(queue.messages().map((message) => message.messageId));
      queue.subscribe(() => {
        const now = queue.messages();
        for (const message of now) {
          if (seen.has(message.messageId)) continue;
          onActivity({ kind: 'dead-letter', deadLetter: deadLetterOf(view.name, message) });
        }
        seen = new Set(now.map((message) => message.messageId));
      });
    }
  }

  // Schedules follow the sandbox clock.
  const scheduleRuns = new Set<Promise<unknown>>();
  const nextFiring = new Map<string, number>();
  const fire = async (
    trigger: 'clock' | 'request',
    only?: (fn: LocalFunction) => boolean,
  ): Promise<ScheduleRun[]> => {
    const at = await sandboxNow(sandbox.url);
    const runs = deployed.scheduledRules
      .filter(
        ({ rule }) =>
          !only || rule.targets.some((target) => target.kind === 'lambda' && only(target.function)),
      )
      .map(async ({ rule, schedule }) => {
        nextFiring.set(rule.name, schedule.next(at).getTime());
        const bus = deployed.buses.get(rule.busName);
        const outcomes = (await bus?.deliverToTargets(rule, scheduledEvent(rule.arn, region, at))) ?? [];
        const run: ScheduleRun = {
          rule: rule.name,
          functionName: rule.targets
            .map((target) => (target.kind === 'lambda' ? target.function.name : target.id))
            .join(','),
          results: outcomes.map((outcome) => outcome.result),
          errors: outcomes.flatMap((outcome) => outcome.errors),
        };
        options.onActivity?.({
          kind: 'schedule',
          rule: rule.name,
          trigger,
          results: run.results,
          errors: run.errors,
        });
        return run;
      });
    const all = Promise.all(runs);
    scheduleRuns.add(all);
    try {
      return await all;
    } finally {
      scheduleRuns.delete(all);
    }
  };
  if (options.schedules === 'sandbox-clock') {
    const startedAt = await sandboxNow(sandbox.url);
    for (const { rule, schedule } of deployed.scheduledRules)
      nextFiring.set(rule.name, schedule.next(startedAt).getTime());
    let ticking = false;
    const timer = setInterval(() => {
      if (ticking) return;
      ticking = true;
      sandboxNow(sandbox.url)
        .then((now) => {
          const due = deployed.scheduledRules.some(
            ({ rule }) => (nextFiring.get(rule.name) ?? 0) <= now.getTime(),
          );
          return due ? fire('clock') : [];
        })
        .catch(() => undefined)
        .finally(() => {
          ticking = false;
        });
    }, 1000);
    timer.unref();
    cleanup.push(async () => clearInterval(timer));
  }

  const runTrialWatch = async (): Promise<unknown> => {
    const trialWatch = functionNamed('trial-watch');
    const [run] = await fire('request', (fn) => fn === trialWatch);
    if (!run) throw new Error('no schedule targets the trial watch');
    if (run.results[0] === undefined && run.errors.length > 0) throw new Error(run.errors.at(-1));
    return run.results[0];
  };

  const outboundSource = config.outboundSource;
  const outbound = (): OutboundEvent[] =>
    published
      .filter((event) => event.source === outboundSource)
      .map((event) => ({
        id: event.id,
        source: event.source,
        'detail-type': event['detail-type'],
        time: event.time,
        detail: event.detail,
      }));
  const resources = (): LocalResources => ({
    busName,
    tokenSecretName,
    queues: deployed.queueViews.map(({ name, kind, route, url, deadLettersOf }) => ({
      name,
      kind,
      route,
      url,
      ...(deadLettersOf ? { deadLettersOf } : {}),
    })),
  });

  const waitForIdle = async (): Promise<void> => {
    // Idle twice in a row: a handler may publish an event that a rule routes on the next turn.
    let quiet = 0;
    while (quiet < 2) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      quiet = deployed.busy() || scheduleRuns.size > 0 ? 0 : quiet + 1;
    }
  };

  const invoke = async (serviceName: string, input?: unknown): Promise<InvocationReport> => {
    const fn = functionNamed(serviceName);
    const built = await invocationEvent(fn, input);
    // An SQS batch's records become real messages of the function's queue, held for this one
    // invocation as the event source mapping holds what it receives: the function's own calls on
    // them (ChangeMessageVisibility for a record that waits) act on a message the queue knows.
    const held = heldRecords(fn, built);
    const event = held ? held.event : built;
    const before = published.length;
    const started = Date.now();
    let result: unknown;
    let error: string | undefined;
    try {
      result = await invokeFunction(await fn.handler(), event, fn.settings);
    } catch (failure) {
      error = failure instanceof Error ? (failure.stack ?? failure.message) : String(failure);
    }
    const durationMs = Date.now() - started;
    const during = new Set(published.slice(before).map((item) => item.id));
    const retried = held?.release(
      error === undefined ? { failed: false, response: result } : { failed: true },
    );
    return {
      functionName: fn.name,
      event,
      ...(error === undefined ? { result } : { error }),
      durationMs,
      published: outbound().filter((item) => during.has(item.id)),
      ...(retried && retried.length > 0 ? { retried } : {}),
    };
  };

  /** The mapping that feeds `fn`: its own queue first (the refusal function also reads dead-letter queues). */
  const mappingOf = (fn: LocalFunction) => {
    const kindOf = (queue: string) => deployed.queueViews.find((view) => view.name === queue)?.kind;
    const fed = deployed.mappings.filter((candidate) => candidate.function === fn);
    return fed.find((mapping) => kindOf(mapping.queue.name) !== 'dead-letter') ?? fed[0];
  };

  const heldRecords = (
    fn: LocalFunction,
    event: unknown,
  ):
    | {
        event: SQSEvent;
        release: (invocation: BatchInvocation) => Array<{ messageId: string; visibleAgainInSeconds: number }>;
      }
    | undefined => {
    const mapping = mappingOf(fn);
    if (!mapping || !isRecord(event) || !Array.isArray(event['Records'])) return undefined;
    const records = event['Records'] as SQSRecord[];
    const adopted = records.map((record) => {
      const queue =
        [...deployed.queues.values()].find((candidate) => candidate.arn === record.eventSourceARN) ??
        mapping.queue;
      const attributes = record.attributes ?? {};
      const message = queue.adoptHeld({
        body: String(record.body),
        ...(queue.fifo
          ? {
              groupId: attributes.MessageGroupId ?? 'invoke',
              deduplicationId: attributes.MessageDeduplicationId ?? record.messageId,
            }
          : {}),
      });
      // The record names the queue it was adopted into, as the event source would: a sample's own
      // ARN (another account, another stack) would otherwise tell the function it came elsewhere.
      return {
        queue,
        record: { ...record, receiptHandle: message.receiptHandle, eventSourceARN: queue.arn },
      };
    });
    return {
      event: { Records: adopted.map(({ record }) => record) },
      release: (invocation) => {
        // What the event source mapping does with the invocation's answer.
        const failures = new Set(
          keptMessageIds(
            invocation,
            adopted.map(({ record }) => record.messageId),
            mapping.reportBatchItemFailures,
          ),
        );
        return adopted.flatMap(({ queue, record }) => {
          const dropped = queue.dropHeld(record.receiptHandle);
          if (!failures.has(record.messageId) || 'deleted' in dropped) return [];
          return [{ messageId: record.messageId, visibleAgainInSeconds: dropped.visibleAgainInSeconds }];
        });
      },
    };
  };

  /** The event `fn` would receive for `input`, wrapped as the template wraps it. */
  const invocationEvent = async (fn: LocalFunction, input: unknown): Promise<unknown> => {
    const scheduled = deployed.scheduledRules.find(({ rule }) =>
      rule.targets.some((target) => target.kind === 'lambda' && target.function === fn),
    );
    if (input === undefined) {
      if (!scheduled) throw new Error(`${fn.name} is fed by a queue: give it an event file`);
      return scheduledEvent(scheduled.rule.arn, region, await sandboxNow(sandbox.url));
    }
    if (isRecord(input) && Array.isArray(input['Records'])) return input;
    const busEvent = asBusEvent(input, region);
    if (!busEvent) {
      throw new Error(
        'the event must be an SQS batch ({"Records": [...]}), an EventBridge event or a PutEvents entry (events/inbound/*/)',
      );
    }
    if (scheduled) return busEvent;
    const mapping = mappingOf(fn);
    if (!mapping) throw new Error(`${fn.name} has no event source in the template`);
    const pipe = deployed.pipes.find((candidate) => candidate.target === mapping.queue);
    let body = JSON.stringify(busEvent);
    let groupId: string | undefined;
    let deduplicationId: string | undefined;
    if (pipe) {
      const record = withImplicitBodyParsing({ body, attributes: {}, messageAttributes: {} });
      body = pipe.inputTemplate.evaluate(record, {
        pipeArn: pipe.arn,
        pipeName: pipe.name,
        sourceArn: pipe.source.arn,
        targetArn: pipe.target.arn,
        ingestionTime: new Date().toISOString(),
      });
      if (pipe.messageGroupIdPath) groupId = String(dynamicParameter(pipe.messageGroupIdPath)(record));
      if (pipe.messageDeduplicationIdPath) {
        deduplicationId = String(dynamicParameter(pipe.messageDeduplicationIdPath)(record));
      }
    }
    const sentAt = Date.now();
    return toSqsEvent(
      [
        {
          messageId: randomUUID(),
          receiptHandle: randomUUID(),
          body,
          md5OfBody: createHash('md5').update(body).digest('hex'),
          attributes: {
            ApproximateReceiveCount: '1',
            SentTimestamp: String(sentAt),
            SenderId: 'AROA000000000000LOCAL:invoke',
            ApproximateFirstReceiveTimestamp: String(sentAt),
            ...(groupId === undefined
              ? {}
              : { MessageGroupId: groupId, SequenceNumber: '10000000000000000001' }),
            ...(deduplicationId === undefined ? {} : { MessageDeduplicationId: deduplicationId }),
          },
          messageAttributes: {},
        },
      ],
      mapping.queue.arn,
      region,
    );
  };

  control.push(
    {
      method: 'POST',
      path: '/_local/invoke',
      handle: async (body) => {
        const request = isRecord(body) ? body : {};
        if (typeof request['function'] !== 'string')
          throw new Error('expected {"function": name, "event"?: ...}');
        return invoke(request['function'], request['event']);
      },
    },
    {
      method: 'GET',
      path: '/_local/health',
      handle: () => ({
        status: 'ok',
        sandbox: sandbox.url,
        dynamodb: dynamo.endpoint,
        events: endpoint.url,
        tableName,
        busName,
        tokenSecretName,
        deadLetters: dlq().length,
      }),
    },
    { method: 'GET', path: '/_local/outbound', handle: () => outbound() },
    // What the operator commands (npm run signups / resolve-signup -- --local) run with: the drift
    // watch's environment as the template gives it, local endpoints and credentials included.
    {
      method: 'GET',
      path: '/_local/environment',
      handle: () => {
        const fn = functionNamed('drift-watch');
        return { function: fn.name, environment: { ...fn.environment, ...runtimeVariables(fn) } };
      },
    },
    { method: 'GET', path: '/_local/dlq', handle: () => dlq() },
    // Answers once nothing is queued, in flight, retried or replayed (what waitForIdle waits for):
    // a client that published something can then read settled outbound events and dead letters.
    {
      method: 'GET',
      path: '/_local/idle',
      handle: async () => {
        await waitForIdle();
        return { idle: true };
      },
    },
    { method: 'GET', path: '/_local/resources', handle: () => resources() },
    {
      method: 'POST',
      path: '/_local/trial-watch',
      handle: async () => ({ status: 'done', result: (await runTrialWatch()) ?? null }),
    },
    {
      method: 'POST',
      path: '/_local/scheduled',
      handle: async () => ({ status: 'done', runs: await fire('request') }),
    },
  );

  let closed = false;
  return {
    sandboxUrl: sandbox.url,
    dynamoEndpoint: dynamo.endpoint,
    eventsEndpoint: endpoint.url,
    tableName,
    busName,
    tokenSecretName,
    inboundSource: config.inboundSource,
    outboundSource,
    region,
    config,
    deployment: deployed,
    secrets,
    functionEnvironment: (serviceName) => {
      const fn = functionNamed(serviceName);
      return { ...fn.environment, ...runtimeVariables(fn) };
    },
    functionNamed,
    resources,
    outbound,
    dlq,
    published: () => [...published],
    archives: () => deployed.archives.archives(),
    replays: () => deployed.archives.replays(),
    runSchedules: () => fire('request'),
    runTrialWatch,
    invoke,
    waitForIdle,
    close: async () => {
      if (closed) return;
      closed = true;
      for (const close of cleanup.reverse()) await close().catch(() => undefined);
      running = false;
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An EventBridge event from an event or a PutEvents entry (as EventBridge would make it). */
function asBusEvent(input: unknown, region: string): BusEvent | undefined {
  if (!isRecord(input)) return undefined;
  if (typeof input['detail-type'] === 'string' && isRecord(input['detail']))
    return input as unknown as BusEvent;
  if (typeof input['DetailType'] !== 'string' || typeof input['Detail'] !== 'string') return undefined;
  let detail: unknown;
  try {
    detail = JSON.parse(input['Detail']);
  } catch {
    return undefined;
  }
  if (!isRecord(detail)) return undefined;
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': input['DetailType'],
    source: typeof input['Source'] === 'string' ? input['Source'] : '',
    account: LOCAL_ACCOUNT_ID,
    time: eventTime(new Date()),
    region,
    resources: [],
    detail,
  };
}

/** A secret's name from what a function is given: its name, or its ARN (name-suffix). */
function secretName(idOrArn: string): string {
  const match = /:secret:(.+)-[A-Za-z0-9]{6}$/.exec(idOrArn);
  return match ? (match[1] as string) : idOrArn;
}

/** Scheduled events carry the sandbox's time, so a moved sandbox clock moves the schedules too. */
async function sandboxNow(sandboxUrl: string): Promise<Date> {
  const response = await fetch(`${sandboxUrl}/_sandbox/clock`);
  if (!response.ok) throw new Error(`sandbox clock answered ${response.status}`);
  const { now } = (await response.json()) as { now?: unknown };
  const at = typeof now === 'string' ? new Date(now) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime())) throw new Error('sandbox clock answered without a valid "now"');
  return at;
}
