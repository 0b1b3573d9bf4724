import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { Aspects } from 'aws-cdk-lib';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundSamples } from '#functions/contracts/samples.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';

/**
 * The local run is the deployed template: change the pipe's input template back to a bare
 * `<$.body>` (the first version's mistake) and the connector stops working locally, exactly as it
 * would have on AWS ("Implicit body data parsing" strips the quotes of the JSON body).
 */
describe('a pipe synthesized with a bare <$.body> input template', () => {
  let runtime: LocalRuntime;
  let eventBridge: EventBridgeClient;

  beforeAll(async () => {
    runtime = await startLocalRuntime({
      logLevel: 'SILENT',
      customize: (app) =>
        Aspects.of(app).add({
          visit: (node) => {
            if (node instanceof CfnPipe)
              node.addPropertyOverride('TargetParameters.InputTemplate', '<$.body>');
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

  it('reaches the function as something its decoder refuses, so no business is provisioned', async () => {
    // Act
    const answer = await eventBridge.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: runtime.busName,
            Source: runtime.inboundSource,
            DetailType: 'AccountCreated',
            Detail: JSON.stringify(inboundSamples.AccountCreated),
          },
        ],
      }),
    );
    await runtime.waitForIdle();

    // Assess
    expect(answer.FailedEntryCount).toBe(0);
    const outbound = runtime.outbound();
    expect(outbound.map((event) => event['detail-type'])).toEqual(['SyncFailed']);
    expect(outbound[0]?.detail['code']).toBe('INVALID_JSON');
    const businesses = (await (await fetch(`${runtime.sandboxUrl}/_sandbox/businesses`)).json()) as unknown[];
    expect(businesses).toEqual([]);
  });
});
