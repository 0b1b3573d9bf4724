import { Duration, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * How long the connector's queues keep and hide messages, and how hard EventBridge tries to deliver
 * to them: shared by the routes, the refusal check and the schedules.
 */

/** Messages wait this long in a dead-letter queue (the SQS maximum) for a redrive. */
export const DEAD_LETTER_RETENTION = Duration.days(14);

/**
 * The visibility timeout of a queue a function reads through an event source mapping: six times
 * the function's timeout, as the Lambda Developer Guide asks ("Creating and configuring an Amazon
 * SQS event source mapping": "at least six times the configuration timeout on your function. The
 * extra time allows Lambda to retry if your function is throttled while processing a previous
 * batch"), so a record is not redelivered while a throttled or retried invocation still holds it.
 */
export function eventSourceVisibility(functionTimeoutSeconds: number): Duration {
  return Duration.seconds(functionTimeoutSeconds * 6);
}

/** EventBridge retries a failed delivery for up to 24 h; then the event goes to the ingress DLQ. */
export const DELIVERY_MAX_EVENT_AGE = Duration.hours(24);
export const DELIVERY_RETRY_ATTEMPTS = 185;

/**
 * A dead-letter queue of rule targets (EventBridge sends what it could not deliver), encrypted,
 * TLS only, kept 14 days. cdk-nag recognises only queues that are another queue's redrive target as
 * dead-letter queues, so its "no DLQ" rule is acknowledged with `reason`.
 */
export function ruleTargetDeadLetterQueue(scope: Construct, id: string, reason: string): sqs.Queue {
  const queue = new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: DEAD_LETTER_RETENTION,
  });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason,
  });
  return queue;
}
