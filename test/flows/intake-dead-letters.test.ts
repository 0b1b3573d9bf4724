import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { DEAD_LETTER_ATTRIBUTES } from '#functions/runtime/route-queue.ts';
import { inboundEvent, refusalBatch, refusalQueueArn, useFlowHarness } from '#test/flows/support/harness.ts';

/**
 * The refusal function on the messages of a route's intake dead-letter queue (its second kind of
 * event source, told apart from the refusal queue by the record's eventSourceARN): each one is
 * answered and acknowledged, once however often it is delivered, so nothing stays parked there.
 */

const flow = useFlowHarness();

const queueView = (route: string, deadLettersOf: 'intake' | 'route') =>
  flow.runtime.deployment.queueViews.find(
    (view) => view.route === route && view.deadLettersOf === deadLettersOf,
  )!;

/** A batch of the intake dead-letter queue of `route`, as its event source mapping delivers it. */
const intakeDeadLetterBatch = (
  route: string,
  bodies: readonly string[],
  attributes: Readonly<Record<string, string>> = {},
): SQSEvent => refusalBatch(bodies, queueView(route, 'intake').arn, attributes);

const syncFailedFor = (eventId: string) =>
  flow.published('SyncFailed').filter((event) => event.detail['sourceEventId'] === eventId);
const routeDeadLetters = (route: string, eventId: string) =>
  (flow.runtime.deployment.queues.get(queueView(route, 'route').name)?.messages() ?? []).filter((message) =>
    message.body.includes(eventId),
  );

describe('intake dead letters, answered by the refusal function', () => {
  it('reports a routable event once with INTAKE_UNDELIVERABLE and keeps it in its route’s dead-letter queue as the pipe would have sent it, however often it comes', async () => {
    // Prepare: an event EventBridge could not deliver to the intake queue (its DLQ attributes).
    const accountId = `acct-intake-${randomUUID().slice(0, 8)}`;
    const event = inboundEvent('SubscriptionStatusRequested', { accountId });
    const batch = () =>
      intakeDeadLetterBatch('SubscriptionStatusRequested', [JSON.stringify(event)], {
        RULE_ARN: 'arn:aws:events:us-east-1:000000000000:rule/intake',
        ERROR_CODE: 'SQS_PERMISSION_ERROR',
        ERROR_MESSAGE: 'Access denied',
      });

    // Act: delivered twice (SQS delivers at least once).
    const first = await flow.invokeBatch('refuse-unroutable', batch());
    const second = await flow.invokeBatch('refuse-unroutable', batch());

    // Assess
    expect(first.batchItemFailures).toEqual([]);
    expect(second.batchItemFailures).toEqual([]);
    const reports = syncFailedFor(event.id);
    expect(reports.map((report) => [report.detail['code'], report.detail['accountId']])).toEqual([
      ['INTAKE_UNDELIVERABLE', accountId],
    ]);
    expect(String(reports[0]?.detail['message'])).toContain('SQS_PERMISSION_ERROR');
    const kept = routeDeadLetters('SubscriptionStatusRequested', event.id);
    expect(kept).toHaveLength(1);
    expect(JSON.parse(kept[0]!.body)).toEqual({ event });
    expect(kept[0]).toMatchObject({ groupId: accountId, deduplicationId: event.id });
    expect(kept[0]!.messageAttributes[DEAD_LETTER_ATTRIBUTES.errorCode]).toBe('INTAKE_UNDELIVERABLE');
    expect(kept[0]!.messageAttributes[DEAD_LETTER_ATTRIBUTES.errorMessage]).toContain('Access denied');
  });

  it('answers an accountId that is no message group id once, whether the refusal queue’s copy or the intake dead letter comes first, and keeps no copy', async () => {
    // Prepare
    const first = inboundEvent('SubscriptionStatusRequested', { accountId: 'acct 1001' });
    const second = inboundEvent('SubscriptionStatusRequested', { accountId: 'acct 1002' });

    // Act
    const answers = [
      await flow.invokeBatch('refuse-unroutable', refusalBatch([first], refusalQueueArn(flow))),
      await flow.invokeBatch(
        'refuse-unroutable',
        intakeDeadLetterBatch('SubscriptionStatusRequested', [JSON.stringify(first)]),
      ),
      await flow.invokeBatch(
        'refuse-unroutable',
        intakeDeadLetterBatch('SubscriptionStatusRequested', [JSON.stringify(second)]),
      ),
      await flow.invokeBatch('refuse-unroutable', refusalBatch([second], refusalQueueArn(flow))),
    ];

    // Assess
    expect(answers.map((answer) => answer.batchItemFailures)).toEqual([[], [], [], []]);
    for (const event of [first, second]) {
      expect(syncFailedFor(event.id).map((report) => report.detail['code'])).toEqual(['INVALID_ACCOUNT_ID']);
      expect(routeDeadLetters('SubscriptionStatusRequested', event.id)).toEqual([]);
    }
  });

  it('leaves a message that is no EventBridge event in its queue (a batch item failure), and answers the rest of its batch', async () => {
    // Prepare
    const refused = inboundEvent('PlanChosen', { accountId: 'acct with spaces', plan: 'FREE' });
    const batch = intakeDeadLetterBatch('PlanChosen', [
      'not an event',
      JSON.stringify(refused),
      '{"detail-type": "PlanChosen"}',
    ]);
    const before = flow.published('SyncFailed').length;

    // Act
    const answer = await flow.invokeBatch('refuse-unroutable', batch);

    // Assess
    expect(answer.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual([
      batch.Records[0]!.messageId,
      batch.Records[2]!.messageId,
    ]);
    expect(
      flow
        .published('SyncFailed')
        .slice(before)
        .map((event) => event.detail['sourceEventId']),
    ).toEqual([refused.id]);
  });

  it('ignores a routable event on the refusal queue: its route answers it', async () => {
    // Prepare
    const event = inboundEvent('SubscriptionStatusRequested', { accountId: 'acct-routable' });

    // Act
    const answer = await flow.invokeBatch('refuse-unroutable', refusalBatch([event], refusalQueueArn(flow)));

    // Assess
    expect(answer.batchItemFailures).toEqual([]);
    expect(syncFailedFor(event.id)).toEqual([]);
    expect(routeDeadLetters('SubscriptionStatusRequested', event.id)).toEqual([]);
  });
});
