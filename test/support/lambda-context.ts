import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export interface LambdaContextOptions {
  /** Function timeout; getRemainingTimeInMillis counts down from it. @default 30_000 */
  timeoutMs?: number;
  memoryLimitInMB?: number;
}

/**
 * A context shaped like the one Lambda passes: Powertools reads the function name, request id and
 * remaining time from it (idempotency sets its in-progress expiry from the remaining time).
 */
export function lambdaContext(functionName: string, options: LambdaContextOptions = {}): Context {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const region = process.env['AWS_REGION'] ?? 'us-east-1';
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:123456789012:function:${functionName}`,
    memoryLimitInMB: String(options.memoryLimitInMB ?? 256),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `2025/01/01/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
