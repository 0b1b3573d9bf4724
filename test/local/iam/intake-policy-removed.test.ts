import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundSamples } from '#functions/contracts/samples.ts';
import { expectDenials } from '#local/iam/denial-log.ts';
import { type LocalRuntime, type RuntimeActivity, startLocalRuntime } from '#local/runtime.ts';
import { editPolicies } from './template-edits.ts';

/**
 * The synthesized template with the SubscriptionStatusRequested intake queue's statement for
 * EventBridge taken out of its queue policy: EventBridge may no longer send that route's events to
 * its intake queue. As on AWS, it does not retry a missing permission and sends the event straight
 * to the rule target's dead-letter queue with ERROR_CODE NO_PERMISSIONS ("Using dead-letter queues
 * to process undelivered events in EventBridge"), where the refusal function answers it; the other
 * routes go on.
 */
describe('an intake queue whose policy no longer lets its rule send', () => {
  let runtime: LocalRuntime;
  let eventBridge: EventBridgeClient;
  const activities: RuntimeActivity[] = [];

  beforeAll(async () => {
    expectDenials();
    runtime = await startLocalRuntime({
      logLevel: 'SILENT',
      onActivity: (activity) => activities.push(activity),
      editTemplates: (stacks) =>
        editPolicies(
          stacks,
          'AWS::SQS::QueuePolicy',
          'ConnectorSubscriptionStatusRequestedIntakeQueuePolicy',
          (statements) =>
            statements.filter(
              (statement) => JSON.stringify(statement.Principal) !== '{"Service":"events.amazonaws.com"}',
            ),
        ),
    });
    eventBridge = new EventBridgeClient({
      region: runtime.region,
      endpoint: runtime.eventsEndpoint,
      credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' },
    });
  });

  afterAll(async () => {
    eventBridge?.destroy();
    await runtime?.close();
  });

  it('sends the route’s events to the rule’s dead-letter queue with NO_PERMISSIONS; the other routes work', async () => {
    // Act
    const answer = await eventBridge.send(
      new PutEventsCommand({
        Entries: (['AccountCreated', 'SubscriptionStatusRequested'] as const).map((detailType) => ({
          EventBusName: runtime.busName,
          Source: runtime.inboundSource,
          DetailType: detailType,
          Detail: JSON.stringify(inboundSamples[detailType]),
        })),
      }),
    );
    await runtime.waitForIdle();

    // Assess: PutEvents accepted both; EventBridge was refused the intake queue, once, by its policy.
    expect(answer.FailedEntryCount).toBe(0);
    const statusEventId = answer.Entries?.[1]?.EventId;
    const intake = runtime
      .resources()
      .queues.find((queue) => queue.kind === 'intake' && queue.route === 'SubscriptionStatusRequested');
    const intakeArn = `arn:aws:sqs:us-east-1:000000000000:${intake?.name}`;
    expect(runtime.denied()).toEqual([
      expect.objectContaining({
        principal: 'events.amazonaws.com',
        action: 'sqs:SendMessage',
        resource: intakeArn,
        reason: 'because no resource-based policy allows the sqs:SendMessage action',
      }),
    ]);
    // No retry: straight to the rule's dead-letter queue, with EventBridge's attributes.
    const failed = activities.filter((activity) => activity.kind === 'target-failed');
    expect(failed).toEqual([
      expect.objectContaining({ deadLettered: true, error: expect.stringContaining('sqs:SendMessage') }),
    ]);
    // The route's intake dead-letter queue, by what the template makes it (its generated name is cut).
    const intakeDeadLetters = runtime
      .resources()
      .queues.find(
        (queue) => queue.route === 'SubscriptionStatusRequested' && queue.deadLettersOf === 'intake',
      );
    const ruleDeadLetter = activities.find(
      (activity) => activity.kind === 'dead-letter' && activity.deadLetter.queue === intakeDeadLetters?.name,
    );
    expect(ruleDeadLetter).toMatchObject({
      deadLetter: { lastErrorCode: 'NO_PERMISSIONS', body: expect.stringContaining(String(statusEventId)) },
    });
    // The refusal function answered it; the other route provisioned its business.
    const outbound = runtime.outbound();
    expect(outbound.find((event) => event['detail-type'] === 'SyncFailed')?.detail).toMatchObject({
      code: 'INTAKE_UNDELIVERABLE',
      sourceEventId: statusEventId,
      message: expect.stringContaining('NO_PERMISSIONS'),
    });
    expect(outbound.map((event) => event['detail-type'])).toContain('BusinessProvisioned');
    expect(outbound.map((event) => event['detail-type'])).not.toContain('SubscriptionStatus');
  });
});
