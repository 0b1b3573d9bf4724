import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, type RouteDefinition, startLocalRuntime } from '#local/runtime.ts';

// The plumbing under test with stand-in handlers; the real route table is covered by end-to-end.test.ts.
const fixtureRoute = (detailType: string, functionName: string): RouteDefinition => ({
  detailType,
  functionName,
  entry: 'test/local/fixtures/echo-handler.ts',
  handlerExport: 'handler',
  batchSize: 10,
  maxConcurrency: 2,
  maxReceiveCount: 2,
  timeoutSeconds: 10,
});

describe('local runtime with stand-in handlers', () => {
  let runtime: LocalRuntime;
  let eventBridge: EventBridgeClient;

  beforeAll(async () => {
    runtime = await startLocalRuntime({
      routes: [
        fixtureRoute('AccountCreated', 'provision-business'),
        fixtureRoute('PlanChosen', 'change-plan'),
      ],
      trialWatch: {
        functionName: 'trial-watch',
        entry: 'test/local/fixtures/scheduled-handler.ts',
        handlerExport: 'handler',
        timeoutSeconds: 10,
      },
      trialWatchEveryMs: 0,
      visibilityDelayMs: 20,
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

  const echoedFor = (ids: readonly (string | undefined)[]) =>
    runtime.outbound().filter((event) => ids.includes(event.detail['causationId'] as string));

  it('delivers published events to the routed handler and records what it publishes as outbound', async () => {
    // Act
    const answer = await eventBridge.send(
      new PutEventsCommand({
        Entries: [
          inbound('AccountCreated', { accountId: 'acct-a', sequence: 1 }),
          inbound('PlanChosen', { accountId: 'acct-a', sequence: 2 }),
        ],
      }),
    );
    await runtime.waitForIdle();

    // Assess
    const ids = answer.Entries?.map((entry) => entry.EventId) ?? [];
    const echoed = echoedFor(ids);
    expect(echoed.map((event) => event.detail['causationId'])).toEqual(expect.arrayContaining(ids));
    expect(
      echoed.every((event) => event['detail-type'] === 'Echoed' && event.source === runtime.outboundSource),
    ).toBe(true);
    // The handler read the token through the fake Secrets Manager.
    expect(echoed.every((event) => event.detail['tokenSeen'] === true)).toBe(true);
  });

  it('hands the handler an SQS FIFO batch shaped like Lambda delivers it, with a Lambda context', async () => {
    // Prepare
    const fixture = (await import(
      '#test/local/fixtures/echo-handler.ts'
    )) as typeof import('#test/local/fixtures/echo-handler.ts');
    const before = fixture.invocations.length;

    // Act
    const answer = await eventBridge.send(
      new PutEventsCommand({ Entries: [inbound('AccountCreated', { accountId: 'acct-shape' })] }),
    );
    await runtime.waitForIdle();

    // Assess
    const invocation = fixture.invocations
      .slice(before)
      .find((call) => call.records.some((r) => r.body.includes('acct-shape')));
    expect(invocation?.functionName).toBe('provision-business');
    expect(invocation?.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(invocation?.remainingTimeMs).toBeGreaterThan(9_000);
    const record = invocation?.records[0] as SQSRecord;
    expect(record).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:workforce-connector-provision-business.fifo',
      awsRegion: 'us-east-1',
      messageAttributes: {},
      attributes: {
        ApproximateReceiveCount: '1',
        MessageGroupId: 'acct-shape',
        MessageDeduplicationId: answer.Entries?.[0]?.EventId,
      },
    });
    expect(record.md5OfBody).toMatch(/^[0-9a-f]{32}$/);
    expect(record.attributes.SequenceNumber).toMatch(/^\d{20}$/);
    expect(JSON.parse(record.body)).toEqual({
      version: '0',
      id: answer.Entries?.[0]?.EventId,
      'detail-type': 'AccountCreated',
      source: 'partner.app',
      account: '000000000000',
      time: expect.any(String),
      region: 'us-east-1',
      resources: [],
      detail: { accountId: 'acct-shape' },
    });
  });

  it('keeps the order of one account across many events while other accounts interleave', async () => {
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

    // Assess: two detail-types share no queue, so order holds per account within each queue.
    const echoed = echoedFor(ids);
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
  });

  it('retries a failing record maxReceiveCount times, then parks it in the DLQ with the reason', async () => {
    // Act
    await eventBridge.send(
      new PutEventsCommand({
        Entries: [
          inbound('AccountCreated', { accountId: 'acct-poison', behaviour: 'throw' }),
          inbound('PlanChosen', { accountId: 'acct-partial', behaviour: 'fail' }),
        ],
      }),
    );
    await runtime.waitForIdle();

    // Assess
    const dlq = runtime.dlq();
    const thrown = dlq.find((entry) => entry.body.includes('acct-poison'));
    const reported = dlq.find((entry) => entry.body.includes('acct-partial'));
    expect(thrown).toMatchObject({ queue: 'workforce-connector-provision-business.fifo', attempts: 2 });
    expect(thrown?.reason).toContain('fixture handler refused');
    expect(reported).toMatchObject({ queue: 'workforce-connector-change-plan.fifo', attempts: 2 });
    expect(reported?.reason).toContain('batchItemFailures');
  });

  it('parks an inbound event without an accountId, since no message group can be derived', async () => {
    // Act
    const answer = await eventBridge.send(
      new PutEventsCommand({ Entries: [inbound('AccountCreated', { name: 'no account' })] }),
    );
    await runtime.waitForIdle();

    // Assess
    const parked = runtime.dlq().find((entry) => entry.body.includes(answer.Entries?.[0]?.EventId ?? '?'));
    expect(parked?.attempts).toBe(0);
    expect(parked?.reason).toContain('accountId');
  });

  it('serves outbound and DLQ over /_local, matching the runtime', async () => {
    // Act
    const outbound = await (await fetch(`${runtime.eventsEndpoint}/_local/outbound`)).json();
    const dlq = await (await fetch(`${runtime.eventsEndpoint}/_local/dlq`)).json();
    const health = (await (await fetch(`${runtime.eventsEndpoint}/_local/health`)).json()) as Record<
      string,
      unknown
    >;

    // Assess
    expect(outbound).toEqual(runtime.outbound());
    expect(dlq).toEqual(runtime.dlq());
    expect(health['status']).toBe('ok');
    expect(health['queues']).toEqual({
      'workforce-connector-provision-business.fifo': 0,
      'workforce-connector-change-plan.fifo': 0,
    });
  });

  it('runs the trial watch on request with a Scheduled Event timed at the sandbox clock', async () => {
    // Prepare: move the sandbox 10 days ahead.
    const moved = (await (
      await fetch(`${runtime.sandboxUrl}/_sandbox/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advanceDays: 10 }),
      })
    ).json()) as { now: string };

    // Act
    const response = await fetch(`${runtime.eventsEndpoint}/_local/trial-watch`, { method: 'POST' });
    const answer = (await response.json()) as { status: string; result: { runId: string; time: string } };

    // Assess
    expect(answer.status).toBe('done');
    expect(Math.abs(Date.parse(answer.result.time) - Date.parse(moved.now))).toBeLessThan(5_000);
    const ticked = runtime.outbound().find((event) => event.detail['causationId'] === answer.result.runId);
    expect(ticked?.detail['functionName']).toBe('trial-watch');
  });

  it('refuses a second runtime in the same process', async () => {
    // Act / Assess
    await expect(startLocalRuntime({ routes: [] })).rejects.toThrow(/already running/);
  });
});
