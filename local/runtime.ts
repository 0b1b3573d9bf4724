import type { App } from 'aws-cdk-lib';
import type { Region } from '#functions/contracts/fields.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import type { ConnectorConfig } from '#lib/config.ts';
import type { WorkforceConnectorProps } from '#lib/workforce-connector.ts';
import type { LenientReading } from '#sandbox/mode.ts';
import { assemblyConnectorTemplate, prepareAssembly } from './assembly.ts';
import type { EventArchive } from './aws/archive.ts';
import { DEFAULT_TIME_SCALE, localClock } from './aws/clock.ts';
import { type DeliveryCounts, deliveryModel, deliverySeedLine } from './aws/delivery-model.ts';
import type { BusEvent } from './aws/event-bus.ts';
import { LOCAL_ACCOUNT_ID, type LocalFunction } from './aws/lambda.ts';
import { PutEventsFaults } from './aws/put-events-faults.ts';
import type { Replay } from './aws/replay.ts';
import type { LocalSecrets } from './aws/secrets-api.ts';
import type { DeploymentActivity, LocalDeployment, QueueView } from './deployment.ts';
import type { FunctionModules } from './function-host.ts';
import type { AccessDenial } from './iam/authorizer.ts';
import { type IamEnforcement, startIamEnforcement } from './iam/enforcement.ts';
import { deployConnectorTemplate, synthesizeConnectorTemplate } from './runtime/connector-template.ts';
import { controlRoutes } from './runtime/control-routes.ts';
import { deadLetterList, reportDeadLetters } from './runtime/dead-letters.ts';
import { invokeOnce } from './runtime/direct-invocation.ts';
import {
  forgetDeveloperAwsSettings,
  lambdaRuntimeVariables,
  scopeFunctionCredentials,
  useLocalEndpoints,
} from './runtime/lambda-environment.ts';
import { type LocalSchedules, startSchedules } from './runtime/schedules.ts';
import { awsOperations, type LocalServices, resourceNames, startServices } from './runtime/services.ts';
import { createTables, defineSecrets, deploymentTables } from './runtime/tables-and-secrets.ts';
import { LOCAL_REGION, type SynthesizedStack } from './template.ts';

/**
 * The connector on one machine, run from its own synthesized template: the sandbox, dynalite with
 * the template's table, one endpoint for EventBridge / SQS / Secrets Manager plus `/_local/*`, and
 * every rule, queue, pipe, event source mapping, function and schedule the template declares
 * (deployment.ts). `npm start`, serve mode, `npm run invoke`, the chaos run, the bench and the
 * end-to-end tests all start the connector here, so what passes locally is what `cdk deploy` creates.
 * `start` lists the start-up in order; its steps live in runtime/ (the servers, the connector's
 * template, tables and secrets, dead letters, schedules, one-off invocations, the `/_local/*` routes).
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
  /**
   * The seed of the delivery model (aws/delivery-model.ts): standard queues receive in a seeded random
   * order and now and then deliver a message twice, rule deliveries and pipes do not keep publish
   * order, as AWS may. The same seed draws the same choices. @default a random seed, printed at start
   */
  readonly seed?: number;
  /**
   * Every delivery in send order and none repeated: an AWS kinder than the real one, for debugging
   * only. @default false
   */
  readonly orderedDelivery?: boolean;
  /** Share of standard-queue receives that leave a copy to be received again. @default 0.02 */
  readonly redeliveryRate?: number;
  /**
   * Where the runtime prints its delivery seed line at start ("delivery seed N (repeat with --seed N)").
   * @default standard error
   */
  readonly announce?: (line: string) => void;
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
  /** Lenient readings the sandbox starts with (sandbox/README.md). @default none: the spec */
  readonly sandboxLenient?: readonly LenientReading[];
  /**
   * An already synthesized cloud assembly to run (the directory `cdk synth` writes) instead of
   * synthesizing the example: its templates, its functions' own bundles, its service addresses
   * pointed at the sandbox (assembly.ts). `config`, `provisioningRegions`, `connector` and
   * `customize` change a synthesis and are refused with it. @default the example, synthesized
   */
  readonly assembly?: string;
  /** Connector config fields over the example config (e.g. httpTimeoutMs). */
  readonly config?: Readonly<Record<string, unknown>>;
  /** Regions given a provisioning root at the sandbox. @default US, UK and AU */
  readonly provisioningRegions?: readonly Region[];
  /** Construct props over those of the config (test fixtures: other routes and handlers). */
  readonly connector?: Partial<WorkforceConnectorProps>;
  /** Changes the app before synthesis (CDK Aspects, escape hatches): tests that show drift. */
  readonly customize?: (app: App) => void;
  /**
   * Edits the synthesized templates before they are deployed locally, as someone could edit a cloud
   * assembly before `cdk deploy --app cdk.out`: tests that remove a grant or a policy statement.
   */
  readonly editTemplates?: (stacks: SynthesizedStack[]) => void;
  /**
   * A server the functions reach the service through, in front of the sandbox (the bench records
   * requests there); the runtime closes it. @default the sandbox itself
   */
  readonly serviceProxy?: (sandboxUrl: string) => Promise<{ readonly url: string; close(): Promise<void> }>;
  /** `sandbox-clock`: schedules fire as the sandbox clock passes them. @default 'on-request' */
  readonly schedules?: ScheduleMode;
  /**
   * How the functions' modules load (function-host.ts): the deployed bundle afresh per execution
   * environment, as on Lambda, or one `shared` by the process, for a tool that instruments the handlers' own
   * clients. @default 'per-environment'
   */
  readonly functionModules?: FunctionModules;
  /**
   * What this run adds to every function's collaborators (the chaos run's crash points and budget
   * observer), passed to each handler module's `createHandler` (local/function-host.ts).
   */
  readonly dependencyOptions?: DependencyOptions;
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
  /**
   * Enforce the template's IAM (local/iam/): every AWS call a function, rule, pipe, event source
   * mapping or schedule makes is authorized against its roles and resource policies, and each alarm
   * action at start-up; a denied call fails as on AWS. Off only for a test that needs it.
   * @default true
   */
  readonly enforceIam?: boolean;
}

export type RuntimeActivity =
  | DeploymentActivity
  | { readonly kind: 'access-denied'; readonly denial: AccessDenial }
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
  /**
   * The delivery model: its seed (repeat a run with it), whether it is ordered, and how many
   * deliveries it has reordered and repeated so far.
   */
  readonly delivery: RuntimeDelivery;
  /** The IAM enforcement (local/iam/), unless the runtime was started with `enforceIam: false`. */
  readonly iam: IamEnforcement | undefined;
  /** PutEvents entries failed on purpose, as EventBridge may (aws/put-events-faults.ts). */
  readonly putEventsFaults: PutEventsFaults;
  /** Every AWS call denied so far (`GET /_local/denied`): principal, action, resource, reason, when. */
  denied(): readonly AccessDenial[];
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

export interface RuntimeDelivery {
  readonly seed: number;
  readonly ordered: boolean;
  counts(): DeliveryCounts;
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

/**
 * Start-up, in order; each step that starts something pushes its stop onto `cleanup`, which
 * `close()` (or a failed start) runs in reverse.
 */
async function start(
  options: LocalRuntimeOptions,
  cleanup: Array<() => Promise<void>>,
): Promise<LocalRuntime> {
  const clock = localClock(options.timeScale ?? DEFAULT_TIME_SCALE, options.now);
  const delivery = deliveryModel({
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.orderedDelivery === undefined ? {} : { ordered: options.orderedDelivery }),
    ...(options.redeliveryRate === undefined ? {} : { redeliveryRate: options.redeliveryRate }),
  });
  const announce = options.announce ?? ((line: string) => process.stderr.write(`${line}\n`));
  announce(deliverySeedLine(delivery));
  const sandboxToken = options.token ?? SANDBOX_TOKEN;
  // An assembly is read first: the sandbox announces its partner.
  const assembly = await prepareAssembly(options);
  const services = await startServices(
    portsOf(options),
    sandboxToken,
    assembly ? { ...options, config: { partnerName: assembly.local.settings.partnerName } } : options,
    cleanup,
  );
  const template = assembly
    ? assemblyConnectorTemplate(assembly, services)
    : await synthesizeConnectorTemplate(services, options);
  for (const line of template.notes ?? []) announce(line);
  const iam =
    options.enforceIam === false
      ? undefined
      : startIamEnforcement(
          template.model,
          { region: LOCAL_REGION, account: LOCAL_ACCOUNT_ID },
          { config: template.config },
        );
  // Each alarm's actions, checked while the rest starts (awaited before the runtime is handed out).
  const alarmsChecked = iam?.checkAlarms();
  alarmsChecked?.catch(() => undefined);
  if (iam) {
    cleanup.push(async () => iam.saveDecisions());
    announce(iam.startupLine());
    const onActivity = options.onActivity;
    if (onActivity) iam.iam.onDenied((denial) => onActivity({ kind: 'access-denied', denial }));
  }
  // Shared function modules share their SDK clients between functions: no credentials of their own.
  const credentialsOf =
    iam && options.functionModules !== 'shared' ? (name: string) => iam.credentialsOf(name) : undefined;
  const runtimeVariables = lambdaRuntimeVariables(services, options, credentialsOf);
  forgetDeveloperAwsSettings();
  const forgetEndpoints = useLocalEndpoints(services);
  cleanup.push(async () => forgetEndpoints());
  if (credentialsOf) {
    const unscope = scopeFunctionCredentials(credentialsOf);
    cleanup.push(async () => unscope());
  }
  const deployed = deployConnectorTemplate(
    template.model,
    {
      clock,
      delivery,
      serviceUrl: services.serviceUrl,
      runtimeVariables,
      ...(template.ownBundle ? { ownBundle: template.ownBundle } : {}),
      ...(iam ? { access: iam.deploymentAccess() } : {}),
    },
    options,
    cleanup,
  );
  await createTables(deploymentTables(deployed), services.dynamo.endpoint);
  const { secrets, tokenSecretName } = defineSecrets(deployed, options.token === null ? null : sandboxToken);
  const published: BusEvent[] = [];
  const putEventsFaults = new PutEventsFaults();
  services.serve(
    awsOperations(deployed, secrets, (event) => published.push(event), putEventsFaults),
    iam?.endpointGuard(resourceNames(deployed, secrets, iam, template.config)),
  );
  if (iam) {
    services.dynamo.guard((request) => iam.dynamoGuard(request));
    cleanup.push(async () => services.dynamo.guard(undefined));
  }
  if (options.onActivity) reportDeadLetters(deployed, options.onActivity);
  const schedules = await startSchedules(deployed, services.sandbox.url, options, cleanup);
  await alarmsChecked;
  const runtime = localRuntime({
    services,
    config: template.config,
    deployed,
    secrets,
    tokenSecretName,
    published,
    schedules,
    runtimeVariables,
    iam,
    putEventsFaults,
    close: async () => {
      for (const close of cleanup.reverse()) await close().catch(() => undefined);
      running = false;
    },
  });
  services.addControl(controlRoutes(runtime));
  return runtime;
}

function portsOf(options: Pick<LocalRuntimeOptions, 'ports'>): LocalPorts {
  if (options.ports === 'fixed') return SERVE_PORTS;
  if (options.ports === undefined || options.ports === 'free') return { sandbox: 0, dynamo: 0, events: 0 };
  return options.ports;
}

/** The runtime's interface over what `start` set up. */
function localRuntime(parts: {
  readonly services: LocalServices;
  readonly config: ConnectorConfig;
  readonly deployed: LocalDeployment;
  readonly secrets: LocalSecrets;
  readonly tokenSecretName: string;
  /** Every event accepted by PutEvents, in arrival order. */
  readonly published: readonly BusEvent[];
  readonly schedules: LocalSchedules;
  readonly runtimeVariables: (fn: Omit<LocalFunction, 'handler'>) => Record<string, string>;
  readonly iam: IamEnforcement | undefined;
  readonly putEventsFaults: PutEventsFaults;
  readonly close: () => Promise<void>;
}): LocalRuntime {
  const { services, config, deployed, published, schedules, runtimeVariables } = parts;
  const region = LOCAL_REGION;
  const busName = deployed.connectorBus.name;
  const outboundSource = config.outboundSource;

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

  const waitForIdle = async (): Promise<void> => {
    // Idle twice in a row: a handler may publish an event that a rule routes on the next turn.
    let quiet = 0;
    while (quiet < 2) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      quiet = deployed.busy() || schedules.busy() ? 0 : quiet + 1;
    }
  };

  let closed = false;
  return {
    sandboxUrl: services.sandbox.url,
    dynamoEndpoint: services.dynamo.endpoint,
    eventsEndpoint: services.endpoint.url,
    tableName: deploymentTables(deployed)[0]?.input.TableName ?? '',
    busName,
    tokenSecretName: parts.tokenSecretName,
    inboundSource: config.inboundSource,
    outboundSource,
    region,
    config,
    deployment: deployed,
    secrets: parts.secrets,
    delivery: {
      seed: deployed.delivery.seed,
      ordered: deployed.delivery.ordered,
      counts: () => deployed.delivery.counts(),
    },
    iam: parts.iam,
    putEventsFaults: parts.putEventsFaults,
    denied: () => parts.iam?.iam.denied() ?? [],
    functionEnvironment: (serviceName) => {
      const fn = functionNamed(serviceName);
      return { ...fn.environment, ...runtimeVariables(fn) };
    },
    functionNamed,
    resources: () => ({
      busName,
      tokenSecretName: parts.tokenSecretName,
      queues: deployed.queueViews.map(({ name, kind, route, url, deadLettersOf }) => ({
        name,
        kind,
        route,
        url,
        ...(deadLettersOf ? { deadLettersOf } : {}),
      })),
    }),
    outbound,
    dlq: deadLetterList(deployed),
    published: () => [...published],
    archives: () => deployed.archives.archives(),
    replays: () => deployed.archives.replays(),
    runSchedules: () => schedules.fire('request'),
    runTrialWatch: async () => schedules.runTrialWatch(functionNamed('trial-watch')),
    invoke: async (serviceName, event) =>
      invokeOnce(
        { deployed, sandboxUrl: services.sandbox.url, published, outbound },
        functionNamed(serviceName),
        event,
      ),
    waitForIdle,
    close: async () => {
      if (closed) return;
      closed = true;
      await parts.close();
    },
  };
}
