import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type QueueRoute, queueRoutes } from '#functions/routes.ts';
import { routeMaxReceiveCount } from '#functions/runtime/retry-schedule.ts';
import { invokeFunction } from '#local/aws/lambda.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';

// The plumbing under test with stand-in handlers, wired by the real construct from a fixture route
// table; the real handlers are covered by end-to-end.test.ts.
const fixtureRoute = (detailType: 'AccountCreated' | 'PlanChosen', functionName: string): QueueRoute => ({
  ...(queueRoutes.find((route) => route.detailType === detailType) as QueueRoute),
  functionName,
  entry: 'test/local/fixtures/echo-handler.ts',
  maxConcurrency: 2,
  maxAttempts: 2,
  // A short retention: the queue's redrive backstop comes after a few receives, not 686.
  retentionSeconds: 3600,
  // One service call's worst case (36 s, retry-schedule.ts) plus the 5 s start window.
  timeoutSeconds: 45,
});

describe('local runtime with stand-in handlers', () => {
  let runtime: LocalRuntime;
  let eventBridge: EventBridgeClient;

  beforeAll(async () => {
    runtime = await startLocalRuntime({
      logLevel: 'SILENT',
      connector: {
        queueRoutes: [
          fixtureRoute('AccountCreated', 'provision-business'),
          fixtureRoute('PlanChosen', 'change-plan'),
        ],
        scheduledFunctions: [
          {
            functionName: 'trial-watch',
            entry: 'test/local/fixtures/scheduled-handler.ts',
            handlerExport: 'handler',
            timeoutSeconds: 10,
            memorySizeMb: 128,
            defaultSchedule: 'rate(1 hour)',
            description: 'fixture schedule',
            tableActions: ['GetItem'],
          },
          {
            functionName: 'drift-watch',
            entry: 'test/local/fixtures/scheduled-handler.ts',
            handlerExport: 'handler',
            timeoutSeconds: 10,
            memorySizeMb: 128,
            defaultSchedule: 'rate(1 hour)',
            description: 'second fixture schedule',
            tableActions: ['GetItem'],
          },
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

  const echoedFor = (ids: readonly (string | undefined)[]) =>
    runtime
      .outbound()
      .filter(
        (event) => event['detail-type'] === 'Echoed' && ids.includes(event.detail['causationId'] as string),
      );

  const queueOf = (route: string, kind: string) =>
    runtime
      .resources()
      .queues.find(
        (queue) =>
          queue.route === route &&
          queue.kind === kind &&
          (kind !== 'dead-letter' || queue.deadLettersOf === 'route'),
      );

  it('delivers published events through rule, intake queue, pipe and FIFO queue to the routed handler', async () => {
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
    expect(echoed.map((event) => event.detail['causationId']).sort()).toEqual([...ids].sort());
    expect(echoed.every((event) => event.source === runtime.outboundSource)).toBe(true);
    // The handler read the token through the local Secrets Manager, by the ARN the template gives it.
    expect(echoed.every((event) => event.detail['tokenSeen'] === true)).toBe(true);
  });

  it('runs concurrent invocations of a function in environments of their own, and reuses an idle one', async () => {
    // Prepare: the handler as the event source mapping calls it, and a batch it answers at once.
    const fixture = (await import(
      '#test/local/fixtures/echo-handler.ts'
    )) as typeof import('#test/local/fixtures/echo-handler.ts');
    const fn = runtime.functionNamed('change-plan');
    const handler = await fn.handler();
    const batch = (accountId: string) => ({
      Records: [
        {
          messageId: crypto.randomUUID(),
          body: JSON.stringify({
            event: {
              id: crypto.randomUUID(),
              'detail-type': 'PlanChosen',
              detail: { accountId, behaviour: 'fail' },
            },
          }),
          attributes: { ApproximateReceiveCount: '1', MessageGroupId: accountId },
        },
      ],
    });
    const environmentsOf = (accountIds: readonly string[]) =>
      fixture.invocations
        .filter((call) => accountIds.some((id) => call.records.some((r) => r.body.includes(id))))
        .map((call) => call.environment);

    // Act: two at once, then one more after both ended.
    await Promise.all([
      invokeFunction(handler, batch('acct-env-1'), fn.settings),
      invokeFunction(handler, batch('acct-env-2'), fn.settings),
    ]);
    await invokeFunction(handler, batch('acct-env-3'), fn.settings);

    // Assess: each concurrent invocation had its own module instance (its own logger, metrics,
    // clients), and the later one ran warm in one of them.
    const [first, second] = environmentsOf(['acct-env-1', 'acct-env-2']);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(first).not.toBe(second);
    expect([first, second]).toContain(environmentsOf(['acct-env-3'])[0]);
    // The test process's own import is not one of the function's environments.
    expect([first, second]).not.toContain(fixture.environment);
  });

  it('hands the handler the SQS FIFO batch the pipe and event source make, with a Lambda context', async () => {
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
    // CloudFormation's generated name, cut to Lambda's 64 characters after the stack name.
    expect(invocation?.functionName).toMatch(
      /^WorkforceConnector-acme-prod-Service-ConnectorAccountCreatedFunc/,
    );
    expect(invocation?.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(invocation?.remainingTimeMs).toBeGreaterThan(9_000);
    const record = invocation?.records[0] as SQSRecord;
    const fifo = queueOf('AccountCreated', 'route');
    expect(record).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${fifo?.name}`,
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
      event: {
        version: '0',
        id: answer.Entries?.[0]?.EventId,
        'detail-type': 'AccountCreated',
        source: 'partner.app',
        account: '000000000000',
        time: expect.any(String),
        region: 'us-east-1',
        resources: [],
        detail: { accountId: 'acct-shape' },
      },
    });
  });

  it('invokes on a sample as the event source would: the records name its queue, and a thrown invocation keeps them all', async () => {
    // Prepare: a two-record sample from another account's queue; the handler throws on the batch.
    const fixture = (await import(
      '#test/local/fixtures/echo-handler.ts'
    )) as typeof import('#test/local/fixtures/echo-handler.ts');
    const before = fixture.invocations.length;
    const record = (messageId: string, behaviour: string) => ({
      messageId,
      receiptHandle: `sample-${messageId}`,
      body: JSON.stringify({
        event: {
          id: messageId,
          'detail-type': 'AccountCreated',
          detail: { accountId: 'acct-sample', behaviour },
        },
      }),
      attributes: { MessageGroupId: 'acct-sample', MessageDeduplicationId: messageId },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:eu-west-1:111111111111:someone-elses-queue.fifo',
      awsRegion: 'eu-west-1',
    });

    // Act
    const report = await runtime.invoke('provision-business', {
      Records: [record('sample-1', 'ok'), record('sample-2', 'throw')],
    });

    // Assess
    const fifo = queueOf('AccountCreated', 'route');
    const seen = fixture.invocations.slice(before).flatMap((call) => call.records);
    expect(seen.map((r) => r.eventSourceARN)).toEqual([
      `arn:aws:sqs:us-east-1:000000000000:${fifo?.name}`,
      `arn:aws:sqs:us-east-1:000000000000:${fifo?.name}`,
    ]);
    expect(report.error).toMatch(/fixture handler refused sample-2/);
    expect(report.retried?.map((kept) => kept.messageId)).toEqual(['sample-1', 'sample-2']);
  });

  it('does not keep the publish order of one account: rule deliveries, intake queues and pipes keep none, as on AWS', async () => {
    // Prepare: three accounts, two detail-types (two routes), five events per account and route.
    const entries = Array.from({ length: 30 }, (_, n) =>
      inbound(n % 2 ? 'PlanChosen' : 'AccountCreated', { accountId: `acct-${n % 3}`, sequence: n }),
    );
    const reorderedBefore = runtime.delivery.counts().reordered;

    // Act
    const ids: (string | undefined)[] = [];
    for (let start = 0; start < entries.length; start += 10) {
      const answer = await eventBridge.send(
        new PutEventsCommand({ Entries: entries.slice(start, start + 10) }),
      );
      ids.push(...(answer.Entries ?? []).map((entry) => entry.EventId));
    }
    await runtime.waitForIdle();

    // Assess: every event arrives; the FIFO queue keeps the order it was given, which is not the
    // publish order (the same run with --ordered-delivery keeps it: ordered-delivery.test.ts).
    const echoed = echoedFor(ids);
    expect(new Set(echoed.map((event) => event.detail['sequence'])).size).toBe(30);
    const sequencesOf = (account: string, parity: number) =>
      echoed
        .filter(
          (event) =>
            event.detail['accountId'] === account && (event.detail['sequence'] as number) % 2 === parity,
        )
        .map((event) => event.detail['sequence'] as number);
    const outOfOrder = ['acct-0', 'acct-1', 'acct-2'].flatMap((account) =>
      [0, 1]
        .map((parity) => sequencesOf(account, parity))
        .filter((sequences) => sequences.join() !== [...sequences].sort((a, b) => a - b).join()),
    );
    expect(outOfOrder.length, `delivery seed ${runtime.delivery.seed}`).toBeGreaterThan(0);
    expect(runtime.delivery.counts().reordered).toBeGreaterThan(reorderedBefore);
  });

  it('retries a record whose function never decides until the queue gives up, then parks it as UNREPORTED with the reason', async () => {
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
    // Stand-in handlers keep nothing themselves: the queue's redrive policy is the backstop.
    const receives = routeMaxReceiveCount(2, 3600);
    expect(thrown).toMatchObject({
      queue: queueOf('AccountCreated', 'dead-letter')?.name,
      attempts: receives,
      lastErrorCode: 'UNREPORTED',
    });
    expect(thrown?.reason).toContain('fixture handler refused');
    expect(reported).toMatchObject({
      queue: queueOf('PlanChosen', 'dead-letter')?.name,
      attempts: receives,
      lastErrorCode: 'UNREPORTED',
    });
    expect(reported?.reason).toContain('batchItemFailures');
  });

  it('answers an inbound event without an accountId through the refusal rule, and routes nothing', async () => {
    // Act
    const answer = await eventBridge.send(
      new PutEventsCommand({ Entries: [inbound('AccountCreated', { name: 'no account' })] }),
    );
    await runtime.waitForIdle();

    // Assess
    const eventId = answer.Entries?.[0]?.EventId;
    const refused = runtime.outbound().filter((event) => event.detail['sourceEventId'] === eventId);
    expect(refused.map((event) => [event['detail-type'], event.detail['code']])).toEqual([
      ['SyncFailed', 'MISSING_ACCOUNT_ID'],
    ]);
    expect(echoedFor([eventId])).toEqual([]);
    expect(runtime.dlq().filter((entry) => entry.body.includes(eventId ?? '?'))).toEqual([]);
  });

  it('serves outbound, DLQ and the template resources over /_local, matching the runtime', async () => {
    // Act
    const outbound = await (await fetch(`${runtime.eventsEndpoint}/_local/outbound`)).json();
    const dlq = await (await fetch(`${runtime.eventsEndpoint}/_local/dlq`)).json();
    const resources = (await (await fetch(`${runtime.eventsEndpoint}/_local/resources`)).json()) as {
      busName: string;
      tokenSecretName: string;
      queues: Array<{ name: string; kind: string; route: string | null }>;
    };

    // Assess
    expect(outbound).toEqual(runtime.outbound());
    expect(dlq).toEqual(runtime.dlq());
    expect(resources.busName).toBe('workforce-connector-acme-prod');
    expect(resources.tokenSecretName).toBe('workforce-connector/acme-prod/token');
    expect(
      resources.queues
        .filter((queue) => queue.route === 'PlanChosen')
        .map((queue) => queue.kind)
        .sort(),
    ).toEqual(['dead-letter', 'dead-letter', 'intake', 'route']);
  });

  it('runs the schedules on request with a Scheduled Event timed at the sandbox clock', async () => {
    // Prepare: move the sandbox 10 days ahead.
    const moved = (await (
      await fetch(`${runtime.sandboxUrl}/_sandbox/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advanceDays: 10 }),
      })
    ).json()) as { now: string };

    // Act
    const watch = (await (
      await fetch(`${runtime.eventsEndpoint}/_local/trial-watch`, { method: 'POST' })
    ).json()) as {
      status: string;
      result: { runId: string; time: string };
    };
    const all = (await (
      await fetch(`${runtime.eventsEndpoint}/_local/scheduled`, { method: 'POST' })
    ).json()) as {
      status: string;
      runs: Array<{ functionName: string; results: Array<{ runId: string; time: string }> }>;
    };

    // Assess
    expect(watch.status).toBe('done');
    expect(Math.abs(Date.parse(watch.result.time) - Date.parse(moved.now))).toBeLessThan(5_000);
    expect(
      runtime.outbound().find((event) => event.detail['causationId'] === watch.result.runId),
    ).toBeDefined();
    // Every schedule ran once and had finished when the answer came: the trial and drift watches.
    expect(all.status).toBe('done');
    expect(all.runs).toHaveLength(2);
    expect(all.runs.map((run) => run.functionName).sort()).toEqual([
      expect.stringContaining('DriftWatch'),
      expect.stringContaining('TrialWatch'),
    ]);
    for (const run of all.runs) {
      const [result] = run.results;
      expect(result, run.functionName).toBeDefined();
      expect(Math.abs(Date.parse(result!.time) - Date.parse(moved.now))).toBeLessThan(5_000);
      expect(runtime.outbound().some((event) => event.detail['causationId'] === result!.runId)).toBe(true);
    }
    expect(all.runs.find((run) => run.functionName.includes('TrialWatch'))?.results[0]?.runId).not.toBe(
      watch.result.runId,
    );
  });

  it('refuses a second runtime in the same process', async () => {
    // Act / Assess
    await expect(startLocalRuntime()).rejects.toThrow(/already running/);
  });
});
