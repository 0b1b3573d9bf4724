import type { LocalClock } from '../aws/clock.ts';
import type { DeliveryModel } from '../aws/delivery-model.ts';
import { SqsQueue } from '../aws/sqs.ts';
import type { TemplateResource } from '../cloudformation.ts';
import type { TemplateReader } from './template-reader.ts';

/**
 * The template's queues (AWS::SQS::Queue), by name, dead-letter queues first so the queues
 * redriving to them can name them.
 */
export function createQueues(
  template: TemplateReader,
  clock: LocalClock,
  delivery: DeliveryModel,
): Map<string, SqsQueue> {
  const queues = new Map<string, SqsQueue>();
  const queueResources = template.model.ofType('AWS::SQS::Queue');
  const redriveTarget = (resource: TemplateResource) =>
    (template.resolved(resource, 'RedrivePolicy') as { deadLetterTargetArn?: string } | undefined)
      ?.deadLetterTargetArn;
  const dlqArns = new Set(
    queueResources.map(redriveTarget).filter((arn): arn is string => arn !== undefined),
  );
  const ordered = [
    ...queueResources.filter((resource) => dlqArns.has(resource.arn)),
    ...queueResources.filter((resource) => !dlqArns.has(resource.arn)),
  ];
  for (const resource of ordered) {
    const policy = template.resolved(resource, 'RedrivePolicy') as
      | { deadLetterTargetArn?: string; maxReceiveCount?: number }
      | undefined;
    let redrive: { deadLetterQueue: SqsQueue; maxReceiveCount: number } | undefined;
    if (policy) {
      const deadLetterQueue = [...queues.values()].find((queue) => queue.arn === policy.deadLetterTargetArn);
      if (!deadLetterQueue || typeof policy.maxReceiveCount !== 'number') {
        template.fail(
          resource,
          'RedrivePolicy needs deadLetterTargetArn of a queue of the template and maxReceiveCount',
        );
        continue;
      }
      redrive = { deadLetterQueue, maxReceiveCount: policy.maxReceiveCount };
    }
    const scope = template.resolved(resource, 'DeduplicationScope');
    const visibility = template.resolved(resource, 'VisibilityTimeout');
    const retention = template.resolved(resource, 'MessageRetentionPeriod');
    try {
      queues.set(
        resource.name,
        new SqsQueue(
          {
            name: resource.name,
            arn: resource.arn,
            url: template.model.queueUrl(resource.name),
            fifo: template.resolved(resource, 'FifoQueue') === true,
            contentBasedDeduplication: template.resolved(resource, 'ContentBasedDeduplication') === true,
            deduplicationScope: scope === 'messageGroup' ? 'messageGroup' : 'queue',
            ...(typeof visibility === 'number' ? { visibilityTimeoutSeconds: visibility } : {}),
            ...(typeof retention === 'number' ? { retentionSeconds: retention } : {}),
            ...(redrive ? { redrive } : {}),
          },
          clock,
          delivery,
        ),
      );
    } catch (error) {
      template.fail(resource, (error as Error).message);
    }
  }
  return queues;
}

export function queueWithArn(queues: ReadonlyMap<string, SqsQueue>, arn: unknown): SqsQueue | undefined {
  return [...queues.values()].find((queue) => queue.arn === arn);
}
