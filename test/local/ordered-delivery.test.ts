import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type QueueRoute, queueRoutes } from '#functions/routes.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';

/**
 * `--ordered-delivery` (startLocalRuntime `orderedDelivery`), the debugging switch: every delivery in
 * send order and none repeated, so one account's events reach its handler in the order they were
 * published — an AWS kinder than the real one (runtime.test.ts shows the default run does not keep
 * that order). Stand-in handlers, wired by the real construct from a fixture route table.
 */

const fixtureRoute = (detailType: 'AccountCreated' | 'PlanChosen', functionName: string): QueueRoute => ({
  ...(queueRoutes.find((route) => route.detailType === detailType) as QueueRoute),
  functionName,
  entry: 'test/local/fixtures/echo-handler.ts',
  maxConcurrency: 2,
  maxAttempts: 2,
  retentionSeconds: 3600,
  timeoutSeconds: 45,
});

describe('the local runtime with --ordered-delivery', () => {
  let runtime: LocalRuntime;
  let eventBridge: EventBridgeClient;
  const announced: string[] = [];

  beforeAll(async () => {
    runtime = await startLocalRuntime({
      logLevel: 'SILENT',
      orderedDelivery: true,
      announce: (line) => announced.push(line),
      connector: {
        queueRoutes: [
          fixtureRoute('AccountCreated', 'provision-business'),
          fixtureRoute('PlanChosen', 'change-plan'),
        ],
      },
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

  const inbound = (detailType: string, detail: Record<string, unknown>): PutEventsRequestEntry => ({
    EventBusName: runtime.busName,
    Source: runtime.inboundSource,
    DetailType: detailType,
    Detail: JSON.stringify(detail),
  });

  it('says at start that it delivers in send order, for debugging only', () => {
    // Assess: the delivery line, then the IAM enforcement's (local/iam/).
    expect(announced).toEqual([
      expect.stringMatching(/^delivery in send order.*for debugging only/),
      expect.stringMatching(/^IAM enforced: \d+ principals/),
    ]);
    expect(runtime.delivery.ordered).toBe(true);
  });

  it('keeps the order of one account across many events while other accounts interleave, and repeats nothing', async () => {
    // Prepare
    const entries = Array.from({ length: 30 }, (_, n) =>
      inbound(n % 2 ? 'PlanChosen' : 'AccountCreated', { accountId: `acct-${n % 3}`, sequence: n }),
    );

    // Act
    const ids: (string | undefined)[] = [];
    for (let start = 0; start < entries.length; start += 10) {
      const answer = await eventBridge.send(
        new PutEventsCommand({ Entries: entries.slice(start, start + 10) }),
      );
      ids.push(...(answer.Entries ?? []).map((entry) => entry.EventId));
    }
    await runtime.waitForIdle();

    // Assess: the two detail-types use two queues, so order holds per account within each queue.
    const echoed = runtime
      .outbound()
      .filter(
        (event) => event['detail-type'] === 'Echoed' && ids.includes(event.detail['causationId'] as string),
      );
    expect(echoed).toHaveLength(30);
    for (const account of ['acct-0', 'acct-1', 'acct-2']) {
      for (const parity of [0, 1]) {
        const sequences = echoed
          .filter(
            (event) =>
              event.detail['accountId'] === account && (event.detail['sequence'] as number) % 2 === parity,
          )
          .map((event) => event.detail['sequence'] as number);
        expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      }
    }
    expect(runtime.delivery.counts()).toEqual({ reordered: 0, redelivered: 0 });
  });
});
