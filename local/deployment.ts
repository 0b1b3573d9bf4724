import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import type { AccessCheck } from './aws/access.ts';
import type { LocalArchives } from './aws/archive.ts';
import type { LocalClock } from './aws/clock.ts';
import type { DeliveryModel } from './aws/delivery-model.ts';
import type { BusActivity, EventBus, RuleDefinition, TargetAccess } from './aws/event-bus.ts';
import type { CompiledTemplate } from './aws/input-template.ts';
import type { BatchActivity, LambdaHandler, LocalFunction } from './aws/lambda.ts';
import type { PipeActivity } from './aws/pipe.ts';
import type { PollerAccess, QueuePoller } from './aws/poller.ts';
import type { ReplayActivity } from './aws/replay.ts';
import type { Schedule } from './aws/schedule.ts';
import type { SqsQueue } from './aws/sqs.ts';
import { type TemplateModel, TemplateModelError, type TemplateResource } from './cloudformation.ts';
import { addRules, connectorBusOf, createArchives, createBuses } from './deployment/event-buses.ts';
import { createFunctions } from './deployment/functions.ts';
import { startEventSourceMappings, startPipes } from './deployment/pipes-and-mappings.ts';
import { queueViews } from './deployment/queue-views.ts';
import { createQueues } from './deployment/queues.ts';
import { TemplateReader } from './deployment/template-reader.ts';

/**
 * The synthesized templates brought to life: every modeled resource of `cloudformation.ts` turned
 * into its local counterpart (aws/*), wired exactly as the template wires it. Nothing here knows
 * the connector's routes: a rule, queue, pipe or function exists locally because it is in the
 * template, with the properties the template gives it. Each kind of resource is made by a step
 * of its own (deployment/*), in the order `deployLocally` lists them: a step can only name what
 * the steps before it made (a rule its target queue, a mapping its function).
 */

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
  /** How deliveries are ordered and repeated, with the counts of what was reordered and repeated. */
  readonly delivery: DeliveryModel;
  queueByUrlOrName(urlOrName: string): SqsQueue | undefined;
  /** Messages held by pollers or waiting for a pipe, a function, a retry or a replay: false when idle. */
  busy(): boolean;
  /** Successful records the chaos hook delivered again. */
  lostDeletes(): number;
  stop(): Promise<void>;
}

/**
 * The permission checks of the principals the deployed resources act as (local/iam/ makes them from
 * the template's IAM): EventBridge for its rules, each pipe's role, each function's execution role
 * for its event source mappings.
 */
export interface DeploymentAccess {
  /** EventBridge delivering for the rule `ruleArn` to a target, and to the target's DLQ. */
  ruleTarget(
    ruleArn: string,
    target: { readonly kind: 'sqs' | 'lambda'; readonly arn: string },
    deadLetterQueueArn: string | undefined,
  ): TargetAccess;
  /** The pipe's role reading its source queue and sending to its target queue. */
  pipe(pipeName: string, sourceArn: string, targetArn: string): PollerAccess & { readonly send: AccessCheck };
  /** Lambda polling a queue for an event source mapping, with the function's execution role. */
  mapping(functionName: string, queueArn: string): PollerAccess;
  /** Lambda writing an invocation's logs to the function's log group, with its execution role. */
  functionLogs(functionName: string, logGroupName: string): AccessCheck;
}

export interface DeployOptions {
  readonly region: string;
  readonly clock: LocalClock;
  /**
   * How deliveries are ordered and repeated (aws/delivery-model.ts): standard queues, rule deliveries
   * and pipes reorder and repeat as AWS may, seeded, unless the model is ordered.
   */
  readonly delivery: DeliveryModel;
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
  /** The IAM checks of rules, pipes, event source mappings and function logs. @default nothing is checked */
  readonly access?: DeploymentAccess;
}

export function deployLocally(model: TemplateModel, options: DeployOptions): LocalDeployment {
  const template = new TemplateReader(model);
  const queues = createQueues(template, options.clock, options.delivery);
  const functions = createFunctions(template, options);
  const buses = createBuses(template, options);
  const rules = addRules(template, { buses, queues, functions }, options.access);
  const archives = createArchives(template, buses, options);
  const pipes = startPipes(template, queues, options);
  const mappings = startEventSourceMappings(template, queues, functions, options);
  const tables = model
    .ofType('AWS::DynamoDB::Table')
    .map((resource) => tableDefinitionOf(template, resource));
  const secrets = model.ofType('AWS::SecretsManager::Secret').map(secretDefinitionOf);
  const pollers = [...pipes.pollers, ...mappings.pollers];
  if (template.problems.length > 0) {
    for (const poller of pollers) void poller.stop();
    for (const queue of queues.values()) queue.close();
    throw new TemplateModelError(`\n  - ${template.problems.join('\n  - ')}`);
  }
  const connectorBus = connectorBusOf(buses);
  return {
    buses,
    queues,
    functions,
    scheduledRules: rules.scheduledRules,
    tables,
    secrets,
    queueViews: queueViews(queues, rules, pipes.pipeTargets),
    pipes: pipes.pipes,
    mappings: mappings.mappings,
    archives,
    connectorBus,
    delivery: options.delivery,
    queueByUrlOrName: (value) =>
      [...queues.values()].find(
        (queue) => queue.url === value || queue.name === value || queue.arn === value,
      ),
    busy: busyCheck({ archives, buses, queues, pollers }),
    lostDeletes: () => mappings.pollers.reduce((sum, poller) => sum + poller.lostDeletes, 0),
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

/** `LocalDeployment.busy`: whether anything deployed still holds or awaits work. */
function busyCheck(deployed: {
  readonly archives: LocalArchives;
  readonly buses: ReadonlyMap<string, EventBus>;
  readonly queues: ReadonlyMap<string, SqsQueue>;
  readonly pollers: readonly QueuePoller[];
}): () => boolean {
  const { archives, buses, queues, pollers } = deployed;
  // Queues a pipe or an event source mapping reads: a message waiting there will be taken (a
  // dead-letter queue can be one, e.g. an intake DLQ the refusal function answers); the others
  // are only read on request, and so is a queue whose readers may not receive from it (IAM).
  const polled = () =>
    new Set(pollers.filter((poller) => poller.blocked === undefined).map((poller) => poller.queue.name));
  return () => {
    if (
      archives.busy() ||
      [...buses.values()].some((bus) => bus.pending > 0) ||
      pollers.some((poller) => poller.busy > 0)
    ) {
      return true;
    }
    const read = polled();
    return [...queues.values()].some(
      (queue) =>
        queue.heldCount() > 0 ||
        (read.has(queue.name) &&
          // A queue with a redrive policy ends every message's receives itself.
          queue.nextVisibleAt(queue.redrive ? undefined : IDLE_RECEIVE_LIMIT) !== undefined),
    );
  };
}

/** CreateTable input from the table's template properties (TTL and PITR are not CreateTable options). */
function tableDefinitionOf(template: TemplateReader, resource: TemplateResource): TableDefinition {
  const get = (key: string) => template.resolved(resource, key);
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

/** A secret as CloudFormation creates it: with a generated value when GenerateSecretString is set. */
function secretDefinitionOf(resource: TemplateResource): SecretDefinition {
  return {
    name: resource.name,
    arn: resource.arn,
    generated: resource.properties['GenerateSecretString'] !== undefined,
  };
}
