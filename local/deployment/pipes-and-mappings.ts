import { compileInputTemplate } from '../aws/input-template.ts';
import { type LocalFunction, startEventSourceMapping } from '../aws/lambda.ts';
import { startPipe } from '../aws/pipe.ts';
import type { QueuePoller } from '../aws/poller.ts';
import type { SqsQueue } from '../aws/sqs.ts';
import type { DeployOptions, MappingView, PipeView } from '../deployment.ts';
import { functionByRef } from './functions.ts';
import { queueWithArn } from './queues.ts';
import { numberOr, type TemplateReader } from './template-reader.ts';

/** What reads the template's queues: its pipes (SQS → SQS) and its event source mappings (SQS → function). */

export interface StartedPipes {
  readonly pipes: readonly PipeView[];
  readonly pollers: readonly QueuePoller[];
  /** FIFO queue name → intake queue name */
  readonly pipeTargets: ReadonlyMap<string, string>;
}

/** Pipes (AWS::Pipes::Pipe), polling their source queues from now on; a STOPPED pipe is left out. */
export function startPipes(
  template: TemplateReader,
  queues: ReadonlyMap<string, SqsQueue>,
  options: Pick<DeployOptions, 'region' | 'clock' | 'delivery' | 'onActivity' | 'access'>,
): StartedPipes {
  const pollers: QueuePoller[] = [];
  const pipes: PipeView[] = [];
  const pipeTargets = new Map<string, string>();
  for (const resource of template.model.ofType('AWS::Pipes::Pipe')) {
    const source = queueWithArn(queues, template.resolved(resource, 'Source'));
    const target = queueWithArn(queues, template.resolved(resource, 'Target'));
    if (!source || !target) {
      template.fail(
        resource,
        'Source and Target must be SQS queues of the template (the only pipe kind modeled)',
      );
      continue;
    }
    const sourceParameters = (template.resolved(resource, 'SourceParameters') ?? {}) as Record<
      string,
      unknown
    >;
    const targetParameters = (template.resolved(resource, 'TargetParameters') ?? {}) as Record<
      string,
      unknown
    >;
    const extraSource = Object.keys(sourceParameters).filter((key) => key !== 'SqsQueueParameters');
    const extraTarget = Object.keys(targetParameters).filter(
      (key) => key !== 'InputTemplate' && key !== 'SqsQueueParameters',
    );
    if (extraSource.length + extraTarget.length > 0) {
      template.fail(
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
    const inputTemplate = targetParameters['InputTemplate'];
    if (typeof inputTemplate !== 'string') {
      template.fail(
        resource,
        'a pipe without an InputTemplate is not modeled (the connector always sets one)',
      );
      continue;
    }
    if (template.resolved(resource, 'DesiredState') === 'STOPPED') continue;
    try {
      const view: PipeView = {
        name: resource.name,
        arn: resource.arn,
        source,
        target,
        inputTemplate: compileInputTemplate(inputTemplate),
        ...(sqsTarget.MessageGroupId ? { messageGroupIdPath: sqsTarget.MessageGroupId } : {}),
        ...(sqsTarget.MessageDeduplicationId
          ? { messageDeduplicationIdPath: sqsTarget.MessageDeduplicationId }
          : {}),
      };
      pollers.push(
        startPipe(
          {
            ...view,
            batchSize: sqsSource.BatchSize ?? 10,
            region: options.region,
            ...(options.access ? { access: options.access.pipe(view.name, source.arn, target.arn) } : {}),
          },
          options.clock,
          options.delivery,
          options.onActivity,
        ),
      );
      pipes.push(view);
      pipeTargets.set(target.name, source.name);
    } catch (error) {
      template.fail(resource, (error as Error).message);
    }
  }
  return { pipes, pollers, pipeTargets };
}

export interface StartedMappings {
  readonly mappings: readonly MappingView[];
  readonly pollers: readonly QueuePoller[];
}

/** Event source mappings (AWS::Lambda::EventSourceMapping), polling their queues from now on; a disabled one is left out. */
export function startEventSourceMappings(
  template: TemplateReader,
  queues: ReadonlyMap<string, SqsQueue>,
  functions: ReadonlyMap<string, LocalFunction>,
  options: Pick<DeployOptions, 'region' | 'onActivity' | 'faults' | 'access'>,
): StartedMappings {
  const mappings: MappingView[] = [];
  const pollers: QueuePoller[] = [];
  for (const resource of template.model.ofType('AWS::Lambda::EventSourceMapping')) {
    const queue = queueWithArn(queues, template.resolved(resource, 'EventSourceArn'));
    const fn = functionByRef(functions, template.resolved(resource, 'FunctionName'));
    if (!queue || !fn) {
      template.fail(resource, 'EventSourceArn must be a queue and FunctionName a function of the template');
      continue;
    }
    if (template.resolved(resource, 'Enabled') === false) continue;
    const scaling = template.resolved(resource, 'ScalingConfig') as
      | { MaximumConcurrency?: number }
      | undefined;
    const responseTypes = template.resolved(resource, 'FunctionResponseTypes');
    const batchSize = numberOr(template.resolved(resource, 'BatchSize'), 10);
    const reportBatchItemFailures =
      Array.isArray(responseTypes) && responseTypes.includes('ReportBatchItemFailures');
    mappings.push({ queue, function: fn, batchSize, reportBatchItemFailures });
    pollers.push(
      startEventSourceMapping(
        {
          queue,
          function: fn,
          batchSize,
          // Without MaximumConcurrency Lambda scales to the account's concurrency; locally, ten at once.
          maxConcurrency: scaling?.MaximumConcurrency ?? 10,
          reportBatchItemFailures,
          region: options.region,
          ...(options.access ? { access: options.access.mapping(fn.name, queue.arn) } : {}),
          ...(options.faults
            ? { lostDeleteRate: options.faults.lostDeleteRate, random: options.faults.random }
            : {}),
        },
        options.onActivity,
      ),
    );
  }
  return { mappings, pollers };
}
