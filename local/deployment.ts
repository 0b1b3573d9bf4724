import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { HANDLER_SOURCE_METADATA, type HandlerSource } from '#lib/handler-source.ts';
import { LocalArchives } from './aws/archive.ts';
import type { LocalClock } from './aws/clock.ts';
import {
  type BusActivity,
  DEFAULT_RETRY_POLICY,
  EventBus,
  type RuleDefinition,
  type TargetDefinition,
} from './aws/event-bus.ts';
import { compileEventPattern } from './aws/event-pattern.ts';
import { type CompiledTemplate, compileInputTemplate } from './aws/input-template.ts';
import {
  type BatchActivity,
  type LambdaHandler,
  type LocalFunction,
  startEventSourceMapping,
} from './aws/lambda.ts';
import { type PipeActivity, startPipe } from './aws/pipe.ts';
import type { QueuePoller } from './aws/poller.ts';
import type { ReplayActivity } from './aws/replay.ts';
import { parseSchedule, type Schedule } from './aws/schedule.ts';
import { SqsQueue } from './aws/sqs.ts';
import { type TemplateModel, TemplateModelError, type TemplateResource } from './cloudformation.ts';

/**
 * The synthesized templates brought to life: every modeled resource of `cloudformation.ts` turned
 * into its local counterpart (aws/*), wired exactly as the template wires it. Nothing here knows
 * the connector's routes: a rule, queue, pipe or function exists locally because it is in the
 * template, with the properties the template gives it.
 */

export const DEFAULT_BUS = 'default';

export interface ScheduledRule {
  readonly rule: RuleDefinition;
  readonly schedule: Schedule;
}

export interface TableDefinition {
  readonly logicalId: string;
  readonly input: CreateTableCommandInput;
}

export interface SecretDefinition {
  readonly name: string;
  readonly arn: string;
  /** GenerateSecretString: the secret starts with a generated value, as CloudFormation creates it. */
  readonly generated: boolean;
}

export type QueueKind = 'intake' | 'route' | 'dead-letter' | 'refusal' | 'other';

export interface QueueView {
  readonly name: string;
  readonly url: string;
  readonly arn: string;
  readonly kind: QueueKind;
  /** The inbound detail-type the queue carries, when it belongs to one route. */
  readonly route: string | null;
  /**
   * For a dead-letter queue, whose dead letters it holds: a route queue's, an intake queue's (and
   * its rule's), the refusal queue's, or a schedule's (its rule target's).
   */
  readonly deadLettersOf?: 'route' | 'intake' | 'refusal' | 'schedule';
}

export interface FunctionHost {
  load(fn: Omit<LocalFunction, 'handler'>): Promise<LambdaHandler>;
}

export type DeploymentActivity = BusActivity | BatchActivity | PipeActivity | ReplayActivity;

/** A pipe as the template defines it (for tools that build what it would send). */
export interface PipeView {
  readonly name: string;
  readonly arn: string;
  readonly source: SqsQueue;
  readonly target: SqsQueue;
  readonly inputTemplate: CompiledTemplate;
  readonly messageGroupIdPath?: string;
  readonly messageDeduplicationIdPath?: string;
}

/** An event source mapping: which queue feeds which function. */
export interface MappingView {
  readonly queue: SqsQueue;
  readonly function: LocalFunction;
  readonly batchSize: number;
  readonly reportBatchItemFailures: boolean;
}

export interface LocalDeployment {
  readonly buses: ReadonlyMap<string, EventBus>;
  readonly queues: ReadonlyMap<string, SqsQueue>;
  readonly functions: ReadonlyMap<string, LocalFunction>;
  readonly scheduledRules: readonly ScheduledRule[];
  readonly tables: readonly TableDefinition[];
  readonly secrets: readonly SecretDefinition[];
  readonly queueViews: readonly QueueView[];
  readonly pipes: readonly PipeView[];
  readonly mappings: readonly MappingView[];
  /** The template's archives (AWS::Events::Archive) and the replays started from them. */
  readonly archives: LocalArchives;
  /** The bus the connector's rules listen on (the one bus of the template). */
  readonly connectorBus: EventBus;
  queueByUrlOrName(urlOrName: string): SqsQueue | undefined;
  /** Messages held by pollers or waiting for a pipe, a function, a retry or a replay: false when idle. */
  busy(): boolean;
  /** Successful records the chaos hook delivered again. */
  lostDeletes(): number;
  stop(): Promise<void>;
}

export interface DeployOptions {
  readonly region: string;
  readonly clock: LocalClock;
  readonly host: FunctionHost;
  readonly onActivity?: (activity: DeploymentActivity) => void;
  /**
   * Text replaced in the functions' environment values: the address the template was synthesized
   * with for the service, by the sandbox's (template.ts, SERVICE_PLACEHOLDER).
   */
  readonly environmentSubstitutions?: ReadonlyArray<readonly [string, string]>;
  /** Chaos hook: event source mappings "lose" this share of deletes (poller.ts). */
  readonly faults?: { readonly lostDeleteRate: number; readonly random: () => number };
  /**
   * A replayed event keeps its original id; AWS does not document whether it does (aws/archive.ts).
   * @default false: a replayed event gets a new id
   */
  readonly replayKeepsIds?: boolean;
}

export function deployLocally(model: TemplateModel, options: DeployOptions): LocalDeployment {
  const problems: string[] = [];
  const fail = (resource: TemplateResource, message: string) =>
    problems.push(`${resource.stackName}/${resource.logicalId} (${resource.type}): ${message}`);
  const resolved = (resource: TemplateResource, property: string): unknown =>
    model.resolve(resource.properties[property], resource.stackName);

  // Queues, dead-letter queues first so the queues redriving to them can name them.
  const queues = new Map<string, SqsQueue>();
  const queueResources = model.ofType('AWS::SQS::Queue');
  const redriveTarget = (resource: TemplateResource) =>
    (resolved(resource, 'RedrivePolicy') as { deadLetterTargetArn?: string } | undefined)
      ?.deadLetterTargetArn;
  const dlqArns = new Set(
    queueResources.map(redriveTarget).filter((arn): arn is string => arn !== undefined),
  );
  const ordered = [
    ...queueResources.filter((resource) => dlqArns.has(resource.arn)),
    ...queueResources.filter((resource) => !dlqArns.has(resource.arn)),
  ];
  for (const resource of ordered) {
    const policy = resolved(resource, 'RedrivePolicy') as
      | { deadLetterTargetArn?: string; maxReceiveCount?: number }
      | undefined;
    let redrive: { deadLetterQueue: SqsQueue; maxReceiveCount: number } | undefined;
    if (policy) {
      const deadLetterQueue = [...queues.values()].find((queue) => queue.arn === policy.deadLetterTargetArn);
      if (!deadLetterQueue || typeof policy.maxReceiveCount !== 'number') {
        fail(
          resource,
          'RedrivePolicy needs deadLetterTargetArn of a queue of the template and maxReceiveCount',
        );
        continue;
      }
      redrive = { deadLetterQueue, maxReceiveCount: policy.maxReceiveCount };
    }
    const scope = resolved(resource, 'DeduplicationScope');
    const visibility = resolved(resource, 'VisibilityTimeout');
    const retention = resolved(resource, 'MessageRetentionPeriod');
    try {
      queues.set(
        resource.name,
        new SqsQueue(
          {
            name: resource.name,
            arn: resource.arn,
            url: model.queueUrl(resource.name),
            fifo: resolved(resource, 'FifoQueue') === true,
            contentBasedDeduplication: resolved(resource, 'ContentBasedDeduplication') === true,
            deduplicationScope: scope === 'messageGroup' ? 'messageGroup' : 'queue',
            ...(typeof visibility === 'number' ? { visibilityTimeoutSeconds: visibility } : {}),
            ...(typeof retention === 'number' ? { retentionSeconds: retention } : {}),
            ...(redrive ? { redrive } : {}),
          },
          options.clock,
        ),
      );
    } catch (error) {
      fail(resource, (error as Error).message);
    }
  }
  const queueByArn = (arn: unknown) => [...queues.values()].find((queue) => queue.arn === arn);

  // Functions: the source module named in the template's metadata, run with the template's settings.
  const functions = new Map<string, LocalFunction>();
  for (const resource of model.ofType('AWS::Lambda::Function')) {
    const source = resource.metadata[HANDLER_SOURCE_METADATA] as HandlerSource | undefined;
    const handler = resolved(resource, 'Handler');
    const runtime = resolved(resource, 'Runtime');
    if (!source) {
      fail(
        resource,
        `no ${HANDLER_SOURCE_METADATA} metadata: the local runtime cannot tell which module to run`,
      );
      continue;
    }
    if (typeof handler !== 'string' || handler.split('.').pop() !== source.handlerExport) {
      fail(
        resource,
        `Handler ${String(handler)} does not name the export ${source.handlerExport} of ${source.entry}`,
      );
      continue;
    }
    if (typeof runtime !== 'string' || !runtime.startsWith('nodejs')) {
      fail(resource, `Runtime ${String(runtime)} is not a Node.js runtime`);
      continue;
    }
    const variables = (
      resolved(resource, 'Environment') as { Variables?: Record<string, unknown> } | undefined
    )?.Variables;
    const environment = Object.fromEntries(
      Object.entries(variables ?? {}).map(([key, value]) => [
        key,
        (options.environmentSubstitutions ?? []).reduce(
          (text, [from, to]) => text.replaceAll(from, to),
          String(value),
        ),
      ]),
    );
    const timeoutSeconds = numberOr(resolved(resource, 'Timeout'), 3);
    const memoryMb = numberOr(resolved(resource, 'MemorySize'), 128);
    const definition: Omit<LocalFunction, 'handler'> = {
      logicalId: resource.logicalId,
      name: resource.name,
      arn: resource.arn,
      entry: source.entry,
      handlerExport: source.handlerExport,
      timeoutSeconds,
      memoryMb,
      environment,
      settings: {
        functionName: resource.name,
        region: options.region,
        timeoutMs: timeoutSeconds * 1000,
        memoryMb,
      },
    };
    functions.set(resource.name, { ...definition, handler: () => options.host.load(definition) });
  }
  const functionByRef = (value: unknown) =>
    [...functions.values()].find((fn) => fn.name === value || fn.arn === value);

  // Buses: the default bus always exists; custom ones come from the template.
  const account = model.resources[0]?.arn.split(':')[4] || '000000000000';
  const buses = new Map<string, EventBus>();
  const addBus = (name: string) => {
    const bus = new EventBus({
      name,
      arn: `arn:aws:events:${options.region}:${account}:event-bus/${name}`,
      clock: options.clock,
      ...(options.onActivity ? { onActivity: options.onActivity } : {}),
    });
    buses.set(name, bus);
    return bus;
  };
  addBus(DEFAULT_BUS);
  for (const resource of model.ofType('AWS::Events::EventBus')) addBus(resource.name);

  // Rules and their targets.
  const scheduledRules: ScheduledRule[] = [];
  const ruleTargets = new Map<string, { rule: TemplateResource; detailTypes: string[] | null }>();
  // Dead-letter queues of rule targets that are functions (schedules): no queue redrives to them.
  const scheduleDeadLetters = new Set<string>();
  for (const resource of model.ofType('AWS::Events::Rule')) {
    const busRef = resolved(resource, 'EventBusName');
    const busName = typeof busRef === 'string' ? busRef.slice(busRef.lastIndexOf('/') + 1) : DEFAULT_BUS;
    const bus = buses.get(busName);
    if (!bus) {
      fail(resource, `EventBusName ${busName} is not a bus of the template`);
      continue;
    }
    const patternValue = resolved(resource, 'EventPattern');
    const scheduleExpression = resolved(resource, 'ScheduleExpression');
    let matches: ((event: unknown) => boolean) | undefined;
    let schedule: Schedule | undefined;
    try {
      if (patternValue !== undefined) {
        matches = compileEventPattern(
          typeof patternValue === 'string' ? JSON.parse(patternValue) : patternValue,
        );
      }
      if (typeof scheduleExpression === 'string') {
        if (busName !== DEFAULT_BUS) throw new Error('scheduled rules run on the default bus only');
        schedule = parseSchedule(scheduleExpression);
      }
    } catch (error) {
      fail(resource, (error as Error).message);
      continue;
    }
    const targets: TargetDefinition[] = [];
    for (const raw of (resolved(resource, 'Targets') as Array<Record<string, unknown>> | undefined) ?? []) {
      const unknownKeys = Object.keys(raw).filter(
        (key) => !['Id', 'Arn', 'DeadLetterConfig', 'RetryPolicy'].includes(key),
      );
      if (unknownKeys.length > 0) {
        fail(resource, `target property ${unknownKeys.join(', ')} is not modeled by the local runtime`);
        continue;
      }
      const retry = raw['RetryPolicy'] as
        | { MaximumRetryAttempts?: number; MaximumEventAgeInSeconds?: number }
        | undefined;
      const retryPolicy = {
        maximumRetryAttempts: retry?.MaximumRetryAttempts ?? DEFAULT_RETRY_POLICY.maximumRetryAttempts,
        maximumEventAgeSeconds:
          retry?.MaximumEventAgeInSeconds ?? DEFAULT_RETRY_POLICY.maximumEventAgeSeconds,
      };
      const dlqArn = (raw['DeadLetterConfig'] as { Arn?: string } | undefined)?.Arn;
      const deadLetterQueue = dlqArn === undefined ? undefined : queueByArn(dlqArn);
      if (dlqArn !== undefined && (!deadLetterQueue || deadLetterQueue.fifo)) {
        fail(resource, 'a rule dead-letter queue must be a standard queue of the template');
        continue;
      }
      const base = { id: String(raw['Id']), retryPolicy, ...(deadLetterQueue ? { deadLetterQueue } : {}) };
      const queue = queueByArn(raw['Arn']);
      const fn = functionByRef(raw['Arn']);
      if (queue) {
        if (queue.fifo) {
          fail(resource, 'an SQS FIFO target needs SqsParameters, which the local runtime does not model');
          continue;
        }
        targets.push({ ...base, kind: 'sqs', queue });
      } else if (fn) targets.push({ ...base, kind: 'lambda', function: fn });
      else fail(resource, `target ${String(raw['Arn'])} is not a queue or function of the template`);
    }
    const description = resolved(resource, 'Description');
    const rule: RuleDefinition = {
      name: resource.name,
      arn: resource.arn,
      busName,
      enabled: resolved(resource, 'State') !== 'DISABLED',
      ...(matches ? { matches } : {}),
      ...(patternValue === undefined
        ? {}
        : {
            eventPattern: typeof patternValue === 'string' ? patternValue : JSON.stringify(patternValue),
          }),
      ...(typeof description === 'string' ? { description } : {}),
      ...(typeof scheduleExpression === 'string' ? { scheduleExpression } : {}),
      targets,
    };
    bus.addRule(rule);
    if (schedule) scheduledRules.push({ rule, schedule });
    const pattern = (typeof patternValue === 'string' ? JSON.parse(patternValue) : patternValue) as
      | { 'detail-type'?: unknown }
      | undefined;
    const detailTypes = Array.isArray(pattern?.['detail-type']) ? (pattern['detail-type'] as string[]) : null;
    for (const target of targets) {
      if (target.kind === 'sqs') ruleTargets.set(target.queue.name, { rule: resource, detailTypes });
      if (target.deadLetterQueue && target.kind === 'lambda') {
        scheduleDeadLetters.add(target.deadLetterQueue.name);
      }
    }
  }

  // Archives: each records the events put on its bus that match its pattern (aws/archive.ts).
  const archives = new LocalArchives({
    region: options.region,
    account,
    clock: options.clock,
    keepIds: options.replayKeepsIds ?? false,
    ...(options.onActivity ? { onActivity: options.onActivity } : {}),
  });
  for (const resource of model.ofType('AWS::Events::Archive')) {
    const sourceArn = resolved(resource, 'SourceArn');
    const bus = [...buses.values()].find((candidate) => candidate.arn === sourceArn);
    if (!bus) {
      fail(resource, `SourceArn ${String(sourceArn)} is not a bus of the template`);
      continue;
    }
    const pattern = resolved(resource, 'EventPattern');
    const retention = resolved(resource, 'RetentionDays');
    const description = resolved(resource, 'Description');
    try {
      archives.add({
        name: resource.name,
        arn: resource.arn,
        bus,
        ...(pattern === undefined
          ? {}
          : { eventPattern: typeof pattern === 'string' ? JSON.parse(pattern) : pattern }),
        // "If set to 0, events are retained indefinitely" (CreateArchive, RetentionDays).
        retentionDays: numberOr(retention, 0),
        ...(typeof description === 'string' ? { description } : {}),
      });
    } catch (error) {
      fail(resource, (error as Error).message);
    }
  }

  // Pipes.
  const pollers: QueuePoller[] = [];
  const pipes: PipeView[] = [];
  const mappings: MappingView[] = [];
  const pipeTargets = new Map<string, string>(); // FIFO queue name → intake queue name
  for (const resource of model.ofType('AWS::Pipes::Pipe')) {
    const source = queueByArn(resolved(resource, 'Source'));
    const target = queueByArn(resolved(resource, 'Target'));
    if (!source || !target) {
      fail(resource, 'Source and Target must be SQS queues of the template (the only pipe kind modeled)');
      continue;
    }
    const sourceParameters = (resolved(resource, 'SourceParameters') ?? {}) as Record<string, unknown>;
    const targetParameters = (resolved(resource, 'TargetParameters') ?? {}) as Record<string, unknown>;
    const extraSource = Object.keys(sourceParameters).filter((key) => key !== 'SqsQueueParameters');
    const extraTarget = Object.keys(targetParameters).filter(
      (key) => key !== 'InputTemplate' && key !== 'SqsQueueParameters',
    );
    if (extraSource.length + extraTarget.length > 0) {
      fail(
        resource,
        `pipe parameter ${[...extraSource, ...extraTarget].join(', ')} is not modeled by the local runtime`,
      );
      continue;
    }
    const sqsSource = (sourceParameters['SqsQueueParameters'] ?? {}) as {
      BatchSize?: number;
      MaximumBatchingWindowInSeconds?: number;
    };
    const sqsTarget = (targetParameters['SqsQueueParameters'] ?? {}) as {
      MessageGroupId?: string;
      MessageDeduplicationId?: string;
    };
    const template = targetParameters['InputTemplate'];
    if (typeof template !== 'string') {
      fail(resource, 'a pipe without an InputTemplate is not modeled (the connector always sets one)');
      continue;
    }
    if (resolved(resource, 'DesiredState') === 'STOPPED') continue;
    try {
      const view: PipeView = {
        name: resource.name,
        arn: resource.arn,
        source,
        target,
        inputTemplate: compileInputTemplate(template),
        ...(sqsTarget.MessageGroupId ? { messageGroupIdPath: sqsTarget.MessageGroupId } : {}),
        ...(sqsTarget.MessageDeduplicationId
          ? { messageDeduplicationIdPath: sqsTarget.MessageDeduplicationId }
          : {}),
      };
      pollers.push(
        startPipe(
          { ...view, batchSize: sqsSource.BatchSize ?? 10, region: options.region },
          options.clock,
          options.onActivity,
        ),
      );
      pipes.push(view);
      pipeTargets.set(target.name, source.name);
    } catch (error) {
      fail(resource, (error as Error).message);
    }
  }

  // Event source mappings.
  const functionPollers: QueuePoller[] = [];
  for (const resource of model.ofType('AWS::Lambda::EventSourceMapping')) {
    const queue = queueByArn(resolved(resource, 'EventSourceArn'));
    const fn = functionByRef(resolved(resource, 'FunctionName'));
    if (!queue || !fn) {
      fail(resource, 'EventSourceArn must be a queue and FunctionName a function of the template');
      continue;
    }
    if (resolved(resource, 'Enabled') === false) continue;
    const scaling = resolved(resource, 'ScalingConfig') as { MaximumConcurrency?: number } | undefined;
    const responseTypes = resolved(resource, 'FunctionResponseTypes');
    const batchSize = numberOr(resolved(resource, 'BatchSize'), 10);
    const reportBatchItemFailures =
      Array.isArray(responseTypes) && responseTypes.includes('ReportBatchItemFailures');
    mappings.push({ queue, function: fn, batchSize, reportBatchItemFailures });
    const poller = startEventSourceMapping(
      {
        queue,
        function: fn,
        batchSize,
        // Without MaximumConcurrency Lambda scales to the account's concurrency; locally, ten at once.
        maxConcurrency: scaling?.MaximumConcurrency ?? 10,
        reportBatchItemFailures,
        region: options.region,
        ...(options.faults
          ? { lostDeleteRate: options.faults.lostDeleteRate, random: options.faults.random }
          : {}),
      },
      options.onActivity,
    );
    pollers.push(poller);
    functionPollers.push(poller);
  }

  const tables = model.ofType('AWS::DynamoDB::Table').map((resource) => tableDefinitionOf(model, resource));
  const secrets = model.ofType('AWS::SecretsManager::Secret').map((resource) => ({
    name: resource.name,
    arn: resource.arn,
    generated: resource.properties['GenerateSecretString'] !== undefined,
  }));

  if (problems.length > 0) {
    for (const poller of pollers) void poller.stop();
    for (const queue of queues.values()) queue.close();
    throw new TemplateModelError(`\n  - ${problems.join('\n  - ')}`);
  }

  const customBuses = [...buses.values()].filter((bus) => bus.name !== DEFAULT_BUS);
  if (customBuses.length !== 1) {
    throw new TemplateModelError(
      `expected exactly one event bus in the templates, found ${customBuses.length}`,
    );
  }
  const queueViews = [...queues.values()].map((queue) =>
    queueView(queue, queues, ruleTargets, pipeTargets, scheduleDeadLetters),
  );
  // Queues a pipe or an event source mapping reads: a message waiting there will be taken (a
  // dead-letter queue can be one, e.g. an intake DLQ the refusal function answers); the others
  // are only read on request.
  const polled = new Set([
    ...pipes.map((pipe) => pipe.source.name),
    ...mappings.map((mapping) => mapping.queue.name),
  ]);

  return {
    buses,
    queues,
    functions,
    scheduledRules,
    tables,
    secrets,
    queueViews,
    pipes,
    mappings,
    archives,
    connectorBus: customBuses[0] as EventBus,
    queueByUrlOrName: (value) =>
      [...queues.values()].find(
        (queue) => queue.url === value || queue.name === value || queue.arn === value,
      ),
    busy: () =>
      archives.busy() ||
      [...buses.values()].some((bus) => bus.pending > 0) ||
      pollers.some((poller) => poller.busy > 0) ||
      [...queues.values()].some(
        (queue) =>
          queue.heldCount() > 0 ||
          (polled.has(queue.name) &&
            // A queue with a redrive policy ends every message's receives itself.
            queue.nextVisibleAt(queue.redrive ? undefined : IDLE_RECEIVE_LIMIT) !== undefined),
      ),
    lostDeletes: () => functionPollers.reduce((sum, poller) => sum + poller.lostDeletes, 0),
    stop: async () => {
      await archives.stop();
      await Promise.allSettled(pollers.map((poller) => poller.stop()));
      await Promise.allSettled([...buses.values()].map((bus) => bus.settle()));
      for (const queue of queues.values()) queue.close();
    },
  };
}

/**
 * On a queue without a redrive policy (an intake DLQ whose message the refusal function cannot
 * answer), a message a poller has received this often is no longer pending work for
 * `waitForIdle`: nothing would end its receives before its retention does. It stays on its queue;
 * only the wait for idleness stops counting it. Queues with a redrive policy are left to it (SQS
 * moves a message to the dead-letter queue at maxReceiveCount).
 */
export const IDLE_RECEIVE_LIMIT = 100;

function queueView(
  queue: SqsQueue,
  queues: ReadonlyMap<string, SqsQueue>,
  ruleTargets: ReadonlyMap<string, { detailTypes: string[] | null }>,
  pipeTargets: ReadonlyMap<string, string>,
  scheduleDeadLetters: ReadonlySet<string>,
): QueueView {
  const routeOf = (name: string): string | null => {
    const intake = pipeTargets.get(name) ?? name;
    const types = ruleTargets.get(intake)?.detailTypes;
    return types && types.length === 1 ? (types[0] as string) : null;
  };
  const base = { name: queue.name, url: queue.url, arn: queue.arn };
  const sources = [...queues.values()].filter((other) => other.redrive?.deadLetterQueue === queue);
  if (sources.length > 0) {
    const routes = [...new Set(sources.map((source) => routeOf(source.name)))];
    const source = sources[0] as SqsQueue;
    const deadLettersOf = pipeTargets.has(source.name)
      ? 'route'
      : ruleTargets.get(source.name)?.detailTypes
        ? 'intake'
        : 'refusal';
    return {
      ...base,
      kind: 'dead-letter',
      route: routes.length === 1 ? (routes[0] ?? null) : null,
      deadLettersOf,
    };
  }
  if (scheduleDeadLetters.has(queue.name)) {
    return { ...base, kind: 'dead-letter', route: null, deadLettersOf: 'schedule' };
  }
  if (pipeTargets.has(queue.name)) return { ...base, kind: 'route', route: routeOf(queue.name) };
  const fed = ruleTargets.get(queue.name);
  if (fed) return { ...base, kind: fed.detailTypes ? 'intake' : 'refusal', route: routeOf(queue.name) };
  return { ...base, kind: 'other', route: null };
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** CreateTable input from the table's template properties (TTL and PITR are not CreateTable options). */
function tableDefinitionOf(model: TemplateModel, resource: TemplateResource): TableDefinition {
  const get = (key: string) => model.resolve(resource.properties[key], resource.stackName);
  const indexes = get('GlobalSecondaryIndexes') as CreateTableCommandInput['GlobalSecondaryIndexes'];
  return {
    logicalId: resource.logicalId,
    input: {
      TableName: resource.name,
      BillingMode: (get('BillingMode') as CreateTableCommandInput['BillingMode']) ?? 'PROVISIONED',
      AttributeDefinitions: get('AttributeDefinitions') as CreateTableCommandInput['AttributeDefinitions'],
      KeySchema: get('KeySchema') as CreateTableCommandInput['KeySchema'],
      ...(indexes ? { GlobalSecondaryIndexes: indexes } : {}),
    },
  };
}
