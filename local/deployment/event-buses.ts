import { LocalArchives } from '../aws/archive.ts';
import {
  DEFAULT_RETRY_POLICY,
  EventBus,
  type RuleDefinition,
  type TargetDefinition,
} from '../aws/event-bus.ts';
import { compileEventPattern } from '../aws/event-pattern.ts';
import type { LocalFunction } from '../aws/lambda.ts';
import { parseSchedule, type Schedule } from '../aws/schedule.ts';
import type { SqsQueue } from '../aws/sqs.ts';
import { TemplateModelError, type TemplateResource } from '../cloudformation.ts';
import type { DeploymentAccess, DeployOptions, ScheduledRule } from '../deployment.ts';
import { functionByRef } from './functions.ts';
import { queueWithArn } from './queues.ts';
import { numberOr, type TemplateReader } from './template-reader.ts';

/** EventBridge as the template declares it: its buses, their rules and targets, and their archives. */

export const DEFAULT_BUS = 'default';

/** Buses, by name: the default bus always exists; custom ones come from the template. */
export function createBuses(
  template: TemplateReader,
  options: Pick<DeployOptions, 'region' | 'clock' | 'delivery' | 'onActivity'>,
): Map<string, EventBus> {
  const buses = new Map<string, EventBus>();
  const addBus = (name: string) => {
    const bus = new EventBus({
      name,
      arn: `arn:aws:events:${options.region}:${template.account}:event-bus/${name}`,
      clock: options.clock,
      delivery: options.delivery,
      ...(options.onActivity ? { onActivity: options.onActivity } : {}),
    });
    buses.set(name, bus);
    return bus;
  };
  addBus(DEFAULT_BUS);
  for (const resource of template.model.ofType('AWS::Events::EventBus')) addBus(resource.name);
  return buses;
}

/** The rules added to their buses, and what the queue views need to know of them. */
export interface RuleWiring {
  readonly scheduledRules: readonly ScheduledRule[];
  /** By queue name: the rule that targets the queue and the detail-types its pattern names (null: none). */
  readonly ruleTargets: ReadonlyMap<string, { rule: TemplateResource; detailTypes: string[] | null }>;
  /** Dead-letter queues of rule targets that are functions (schedules): no queue redrives to them. */
  readonly scheduleDeadLetters: ReadonlySet<string>;
}

/** Rules (AWS::Events::Rule) and their targets, each added to its bus. */
export function addRules(
  template: TemplateReader,
  resources: {
    readonly buses: ReadonlyMap<string, EventBus>;
    readonly queues: ReadonlyMap<string, SqsQueue>;
    readonly functions: ReadonlyMap<string, LocalFunction>;
  },
  access?: DeploymentAccess,
): RuleWiring {
  const scheduledRules: ScheduledRule[] = [];
  const ruleTargets = new Map<string, { rule: TemplateResource; detailTypes: string[] | null }>();
  const scheduleDeadLetters = new Set<string>();
  for (const resource of template.model.ofType('AWS::Events::Rule')) {
    const busRef = template.resolved(resource, 'EventBusName');
    const busName = typeof busRef === 'string' ? busRef.slice(busRef.lastIndexOf('/') + 1) : DEFAULT_BUS;
    const bus = resources.buses.get(busName);
    if (!bus) {
      template.fail(resource, `EventBusName ${busName} is not a bus of the template`);
      continue;
    }
    const patternValue = template.resolved(resource, 'EventPattern');
    const scheduleExpression = template.resolved(resource, 'ScheduleExpression');
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
      template.fail(resource, (error as Error).message);
      continue;
    }
    const targets = targetsOf(template, resource, resources, access);
    const description = template.resolved(resource, 'Description');
    const rule: RuleDefinition = {
      name: resource.name,
      arn: resource.arn,
      busName,
      enabled: template.resolved(resource, 'State') !== 'DISABLED',
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
  return { scheduledRules, ruleTargets, scheduleDeadLetters };
}

/** A rule's targets: SQS queues and functions of the template, with their retry policy and dead-letter queue. */
function targetsOf(
  template: TemplateReader,
  resource: TemplateResource,
  resources: {
    readonly queues: ReadonlyMap<string, SqsQueue>;
    readonly functions: ReadonlyMap<string, LocalFunction>;
  },
  access: DeploymentAccess | undefined,
): TargetDefinition[] {
  const targets: TargetDefinition[] = [];
  const declared = template.resolved(resource, 'Targets') as Array<Record<string, unknown>> | undefined;
  for (const raw of declared ?? []) {
    const unknownKeys = Object.keys(raw).filter(
      (key) => !['Id', 'Arn', 'DeadLetterConfig', 'RetryPolicy'].includes(key),
    );
    if (unknownKeys.length > 0) {
      template.fail(
        resource,
        `target property ${unknownKeys.join(', ')} is not modeled by the local runtime`,
      );
      continue;
    }
    const retry = raw['RetryPolicy'] as
      | { MaximumRetryAttempts?: number; MaximumEventAgeInSeconds?: number }
      | undefined;
    const retryPolicy = {
      maximumRetryAttempts: retry?.MaximumRetryAttempts ?? DEFAULT_RETRY_POLICY.maximumRetryAttempts,
      maximumEventAgeSeconds: retry?.MaximumEventAgeInSeconds ?? DEFAULT_RETRY_POLICY.maximumEventAgeSeconds,
    };
    const dlqArn = (raw['DeadLetterConfig'] as { Arn?: string } | undefined)?.Arn;
    const deadLetterQueue = dlqArn === undefined ? undefined : queueWithArn(resources.queues, dlqArn);
    if (dlqArn !== undefined && (!deadLetterQueue || deadLetterQueue.fifo)) {
      template.fail(resource, 'a rule dead-letter queue must be a standard queue of the template');
      continue;
    }
    const base = { id: String(raw['Id']), retryPolicy, ...(deadLetterQueue ? { deadLetterQueue } : {}) };
    const queue = queueWithArn(resources.queues, raw['Arn']);
    const fn = functionByRef(resources.functions, raw['Arn']);
    const targetAccess =
      access && (queue || fn)
        ? {
            access: access.ruleTarget(
              resource.arn,
              queue ? { kind: 'sqs', arn: queue.arn } : { kind: 'lambda', arn: (fn as LocalFunction).arn },
              deadLetterQueue?.arn,
            ),
          }
        : {};
    if (queue) {
      if (queue.fifo) {
        template.fail(
          resource,
          'an SQS FIFO target needs SqsParameters, which the local runtime does not model',
        );
        continue;
      }
      targets.push({ ...base, ...targetAccess, kind: 'sqs', queue });
    } else if (fn) targets.push({ ...base, ...targetAccess, kind: 'lambda', function: fn });
    else template.fail(resource, `target ${String(raw['Arn'])} is not a queue or function of the template`);
  }
  return targets;
}

/** Archives (AWS::Events::Archive): each records the events put on its bus that match its pattern (aws/archive.ts). */
export function createArchives(
  template: TemplateReader,
  buses: ReadonlyMap<string, EventBus>,
  options: Pick<DeployOptions, 'region' | 'clock' | 'onActivity' | 'replayKeepsIds'>,
): LocalArchives {
  const archives = new LocalArchives({
    region: options.region,
    account: template.account,
    clock: options.clock,
    keepIds: options.replayKeepsIds ?? false,
    ...(options.onActivity ? { onActivity: options.onActivity } : {}),
  });
  for (const resource of template.model.ofType('AWS::Events::Archive')) {
    const sourceArn = template.resolved(resource, 'SourceArn');
    const bus = [...buses.values()].find((candidate) => candidate.arn === sourceArn);
    if (!bus) {
      template.fail(resource, `SourceArn ${String(sourceArn)} is not a bus of the template`);
      continue;
    }
    const pattern = template.resolved(resource, 'EventPattern');
    const retention = template.resolved(resource, 'RetentionDays');
    const description = template.resolved(resource, 'Description');
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
      template.fail(resource, (error as Error).message);
    }
  }
  return archives;
}

/** The bus the connector's rules listen on: the template declares exactly one. */
export function connectorBusOf(buses: ReadonlyMap<string, EventBus>): EventBus {
  const customBuses = [...buses.values()].filter((bus) => bus.name !== DEFAULT_BUS);
  if (customBuses.length !== 1) {
    throw new TemplateModelError(
      `expected exactly one event bus in the templates, found ${customBuses.length}`,
    );
  }
  return customBuses[0] as EventBus;
}
