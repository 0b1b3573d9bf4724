import { Names } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';

/**
 * A function's SQS access, granted as its use needs it and no more. The CDK's `SqsEventSource`
 * grants `grantConsumeMessages` (ReceiveMessage, ChangeMessageVisibility, GetQueueUrl,
 * DeleteMessage, GetQueueAttributes) and `grantSendMessages` adds GetQueueAttributes and
 * GetQueueUrl; the connector's functions call neither GetQueueUrl nor GetQueueAttributes (they are
 * given queue URLs), and only the route functions change a message's visibility. The local runtime
 * records every call each role makes, and test/local/iam/grants-from-use.test.ts fails on a grant no
 * run used.
 */

export interface QueueEventSourceOptions {
  readonly batchSize: number;
  readonly maxConcurrency: number;
}

/**
 * An SQS event source mapping with ReportBatchItemFailures, and what Lambda needs to poll the queue
 * with the function's execution role: sqs:ReceiveMessage, sqs:DeleteMessage and
 * sqs:GetQueueAttributes (AWS Lambda Developer Guide, "Creating and configuring an Amazon SQS event
 * source mapping", execution role permissions:
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html). The mapping's id is
 * the one `SqsEventSource` gives it, so its logical id is unchanged.
 */
export function addQueueEventSource(
  fn: lambda.Function,
  queue: sqs.IQueue,
  options: QueueEventSourceOptions,
): lambda.EventSourceMapping {
  iam.Grant.addToPrincipal({
    grantee: fn,
    actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
    resourceArns: [queue.queueArn],
  });
  return fn.addEventSourceMapping(`SqsEventSource:${Names.nodeUniqueId(queue.node)}`, {
    eventSourceArn: queue.queueArn,
    batchSize: options.batchSize,
    maxConcurrency: options.maxConcurrency,
    reportBatchItemFailures: true,
  });
}

/** The function's code changes the visibility of the messages it received (a route's waits). */
export function grantChangeVisibility(fn: lambda.Function, queue: sqs.IQueue): void {
  iam.Grant.addToPrincipal({
    grantee: fn,
    actions: ['sqs:ChangeMessageVisibility'],
    resourceArns: [queue.queueArn],
  });
}

/** The function's code sends to the queue by its URL (a record kept in a dead-letter queue). */
export function grantSend(fn: lambda.Function, queue: sqs.IQueue): void {
  iam.Grant.addToPrincipal({ grantee: fn, actions: ['sqs:SendMessage'], resourceArns: [queue.queueArn] });
}
