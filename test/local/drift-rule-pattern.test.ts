import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { Aspects } from 'aws-cdk-lib';
import { CfnRule } from 'aws-cdk-lib/aws-events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundSamples } from '#functions/contracts/samples.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';

/**
 * The local run routes by the template's rules, not by the route table: change one rule's
 * detail-type in the synthesized app and that route goes dark locally, as it would on AWS.
 */
describe('a rule synthesized with another detail-type', () => {
  let runtime: LocalRuntime;
  let eventBridge: EventBridgeClient;

  beforeAll(async () => {
    runtime = await startLocalRuntime({
      logLevel: 'SILENT',
      customize: (app) =>
        Aspects.of(app).add({
          visit: (node) => {
            if (node instanceof CfnRule && node.node.path.includes('AccountCreatedRule')) {
              node.addPropertyOverride('EventPattern.detail-type', ['AccountOpened']);
            }
          },
        }),
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

  const publish = (detailType: string, detail: object) =>
    eventBridge.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: runtime.busName,
            Source: runtime.inboundSource,
            DetailType: detailType,
            Detail: JSON.stringify(detail),
          },
        ],
      }),
    );

  it('leaves AccountCreated with no route: nothing reaches provision-business, while the other routes still work', async () => {
    // Act: an AccountCreated, and a PlanChosen its route's decoder refuses (it needs no business,
    // and only a route function answers INVALID_DETAIL: the refusal function never does).
    await publish('AccountCreated', inboundSamples.AccountCreated);
    const planChosen = await publish('PlanChosen', { ...inboundSamples.PlanChosen, plan: 'PLATINUM' });
    await runtime.waitForIdle();

    // Assess: the route is dark; the PlanChosen route delivered to change-plan, which answered it.
    expect(runtime.outbound().filter((event) => event['detail-type'] === 'BusinessProvisioned')).toEqual([]);
    const businesses = (await (await fetch(`${runtime.sandboxUrl}/_sandbox/businesses`)).json()) as unknown[];
    expect(businesses).toEqual([]);
    const planAnswers = runtime
      .outbound()
      .filter((event) => event.detail['sourceEventId'] === planChosen.Entries?.[0]?.EventId);
    expect(planAnswers.map((event) => [event['detail-type'], event.detail['code']])).toEqual([
      ['SyncFailed', 'INVALID_DETAIL'],
    ]);
    expect(String(planAnswers[0]?.detail['message'])).toContain('plan');
  });

  it('sends the new detail-type down the renamed rule, where no contract takes it: one UNKNOWN_DETAIL_TYPE', async () => {
    // Act
    const answer = await publish('AccountOpened', inboundSamples.AccountCreated);
    await runtime.waitForIdle();

    // Assess: provision-business leaves it to the refusal rule, which answers it once.
    const failed = runtime
      .outbound()
      .filter(
        (event) =>
          event['detail-type'] === 'SyncFailed' &&
          event.detail['sourceEventId'] === answer.Entries?.[0]?.EventId,
      );
    expect(failed.map((event) => [event.detail['sourceEventId'], event.detail['code']])).toEqual([
      [answer.Entries?.[0]?.EventId, 'UNKNOWN_DETAIL_TYPE'],
    ]);
  });
});
