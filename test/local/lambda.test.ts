import { describe, expect, it } from 'vitest';
import {
  createLambdaContext,
  failedMessageIds,
  invokeFunction,
  keptMessageIds,
  scheduledEvent,
} from '#local/aws/lambda.ts';

describe('Lambda shapes', () => {
  it('reads batchItemFailures as the event source mapping does', () => {
    // Prepare
    const batch = ['m1', 'm2'];

    // Act / Assess
    expect(failedMessageIds({ batchItemFailures: [{ itemIdentifier: 'm2' }] }, batch)).toEqual(['m2']);
    expect(failedMessageIds({ batchItemFailures: [] }, batch)).toEqual([]);
    expect(failedMessageIds({ batchItemFailures: null }, batch)).toEqual([]);
    expect(failedMessageIds(undefined, batch)).toEqual([]);
    // An identifier that is empty or names no record of the batch fails the whole batch.
    expect(failedMessageIds({ batchItemFailures: [{ itemIdentifier: 'other' }] }, batch)).toEqual([
      'm1',
      'm2',
    ]);
    expect(failedMessageIds({ batchItemFailures: [{ itemIdentifier: '' }] }, batch)).toEqual(['m1', 'm2']);
  });

  it('returns to the queue what the event source mapping returns after an invocation', () => {
    // Prepare
    const batch = ['m1', 'm2'];
    const answered = (response: unknown) => ({ failed: false, response }) as const;

    // Act / Assess: a failed invocation keeps all; a successful one, what it names (or nothing).
    expect(keptMessageIds({ failed: true }, batch, true)).toEqual(['m1', 'm2']);
    expect(keptMessageIds({ failed: true }, batch, false)).toEqual(['m1', 'm2']);
    expect(keptMessageIds(answered({ batchItemFailures: [{ itemIdentifier: 'm1' }] }), batch, true)).toEqual([
      'm1',
    ]);
    expect(keptMessageIds(answered(null), batch, true)).toEqual([]);
    expect(keptMessageIds(answered(undefined), batch, true)).toEqual([]);
    // Without ReportBatchItemFailures the response is not read: a successful invocation deletes all.
    expect(keptMessageIds(answered({ batchItemFailures: [{ itemIdentifier: 'm1' }] }), batch, false)).toEqual(
      [],
    );
  });

  it('gives a context whose remaining time counts down from the function timeout', () => {
    // Act
    const context = createLambdaContext(
      { functionName: 'save-budget', region: 'us-east-1', timeoutMs: 30_000 },
      Date.now() - 1_000,
    );

    // Assess
    expect(context.invokedFunctionArn).toBe('arn:aws:lambda:us-east-1:000000000000:function:save-budget');
    expect(context.getRemainingTimeInMillis()).toBeLessThanOrEqual(29_000);
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(28_000);
    expect(context.logGroupName).toBe('/aws/lambda/save-budget');
  });

  it('fails an invocation that outlives its timeout like Lambda does', async () => {
    // Prepare
    const never = () => new Promise<never>(() => undefined);

    // Act
    const call = invokeFunction(never, {}, { functionName: 'slow', region: 'us-east-1', timeoutMs: 20 });

    // Assess
    await expect(call).rejects.toThrow('slow: Task timed out after 0.02 seconds');
  });

  it('builds a Scheduled Event at the given time, without milliseconds', () => {
    // Act
    const event = scheduledEvent(
      'arn:aws:events:us-east-1:000000000000:rule/trial-watch-schedule',
      'us-east-1',
      new Date('2025-04-01T10:00:00.123Z'),
    );

    // Assess
    expect(event).toMatchObject({
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      time: '2025-04-01T10:00:00Z',
      resources: ['arn:aws:events:us-east-1:000000000000:rule/trial-watch-schedule'],
      detail: {},
    });
  });
});
