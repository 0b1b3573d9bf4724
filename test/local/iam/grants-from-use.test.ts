import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inboundSamples } from '#functions/contracts/samples.ts';
import { queueRoutes, scheduledFunctions } from '#functions/routes.ts';
import { requestBudgetKey } from '#functions/store/keys.ts';
import { type GrantReport, grantReport } from '#local/iam/grant-use.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { runScenario, type ScenarioReport } from '#local/scenario.ts';

/**
 * Grants from use (issue 26, point 5): the connector's template, run locally with its IAM enforced,
 * through every route's and every scheduled function's ways of ending — the demo scenario (every
 * route applied, the trial and drift watches announcing), then the failure paths below (retries and
 * give-ups kept in the route dead-letter queues, a lost answer read back, refusals, an intake dead
 * letter of every route, failed publishes undone, failing and throttled watch runs) — and then each
 * function role's grants (action × resource in the synthesized template) set against the calls the
 * run made as that role: by the function's code, or by Lambda for it (its event source mappings, its
 * logs). A grant no call used fails the test, named; a call no grant allowed was denied, and fails
 * it too. The runtime loads each function per execution environment (its default, not `shared`), so
 * every call is signed with its own function's credentials and counted for its own role.
 */
describe('each function role’s grants, against the calls a run makes', () => {
  let runtime: LocalRuntime;
  let scenario: ScenarioReport;
  let reports: GrantReport[];

  beforeAll(async () => {
    // Visibility timeouts scaled to a few ms: a record that exhausts its receives gives up quickly.
    runtime = await startLocalRuntime({
      timeScale: 1 / 10_000,
      logLevel: 'SILENT',
      // Each function's modules and SDK clients its own, signing with its own role's credentials.
      functionModules: 'per-environment',
    });
    scenario = await runScenario(runtime);
    await failurePaths(runtime);
    const iam = runtime.iam!;
    const used = iam.iam.used();
    reports = [...iam.iam.template.functionRoles.values()].map((roleArn) =>
      grantReport(iam.iam.template, roleArn, used),
    );
  }, 120_000);

  afterAll(async () => {
    await runtime?.close();
  });

  it('runs every route and scheduled function, and the template allows each of their calls', () => {
    // Assess: the scenario's own checks; no call denied (a missing grant); every function's code ran.
    expect(scenario.failures).toEqual([]);
    expect(runtime.denied()).toEqual([]);
    expect(reports).toHaveLength(queueRoutes.length + scheduledFunctions.length + 1);
    const silent = reports.filter((report) => !report.grants.some((grant) => grant.usedBy.includes('code')));
    expect(silent.map((report) => report.roleName)).toEqual([]);
  });

  it('grants no action on no resource that no call used', () => {
    // Assess: every grant of every function role, used by someone.
    const unused = reports.flatMap((report) =>
      report.unused.map((grant) => `${report.roleName}: ${grant.action} on ${grant.resource}`),
    );
    expect(unused).toEqual([]);
  });

  it('uses the queue grants of an event source mapping for Lambda’s polling only, and the log grants for Lambda’s logs', () => {
    // Assess: who used what (the function's code never receives, deletes or reads queue attributes).
    for (const report of reports) {
      for (const grant of report.grants) {
        const byLambda = /^sqs:(ReceiveMessage|DeleteMessage|GetQueueAttributes)$/.test(grant.action)
          ? ['event source mapping']
          : grant.action.startsWith('logs:')
            ? ['function logs']
            : ['code'];
        expect(grant.usedBy, `${report.roleName}: ${grant.action} on ${grant.resource}`).toEqual(byLambda);
      }
    }
  });
});

/**
 * The ways of ending the demo scenario does not take: a location create whose answer was lost (read
 * back), give-ups of every route (kept in its dead-letter queue), refusals (one delivered twice, one
 * whose publish fails), an intake dead letter of every route, and the scheduled watches failing,
 * failing to publish and throttled.
 */
async function failurePaths(runtime: LocalRuntime): Promise<void> {
  const credentials = { accessKeyId: 'AKIATEST', secretAccessKey: 'test' };
  const eventBridge = new EventBridgeClient({
    region: runtime.region,
    endpoint: runtime.eventsEndpoint,
    credentials,
  });
  const sqs = new SQSClient({ region: runtime.region, endpoint: runtime.eventsEndpoint, credentials });
  const entry = (detailType: string, detail: unknown) => ({
    EventBusName: runtime.busName,
    Source: runtime.inboundSource,
    DetailType: detailType,
    Detail: JSON.stringify(detail),
  });
  const publish = async (entries: ReturnType<typeof entry>[]) => {
    for (let index = 0; index < entries.length; index += 10) {
      await eventBridge.send(new PutEventsCommand({ Entries: entries.slice(index, index + 10) }));
    }
  };
  const syncFailed = () => runtime.outbound().filter((event) => event['detail-type'] === 'SyncFailed').length;
  try {
    // A second trial business, for the watches below.
    await publish([
      entry('AccountCreated', {
        ...inboundSamples.AccountCreated,
        accountId: 'acct-watched',
        businessName: 'Watched Diner',
        owner: { ...inboundSamples.AccountCreated.owner, email: 'watched@example.com' },
      }),
    ]);
    await runtime.waitForIdle();

    // A location create whose answer is lost after the service made it: the retry reads it back.
    const hostname = String(
      runtime
        .outbound()
        .find(
          (event) =>
            event['detail-type'] === 'BusinessProvisioned' &&
            event.detail['accountId'] === inboundSamples.LocationCreated.accountId,
        )?.detail['hostname'],
    );
    await sandboxFaults(runtime, {
      rate: 1,
      kinds: ['drop-after-commit'],
      count: 1,
      pathPrefix: `/installs/${hostname}/api/v1/supervise/company`,
    });
    await publish([
      entry('LocationCreated', {
        ...inboundSamples.LocationCreated,
        locationRef: 'loc-answer-lost',
        name: 'Answer Lost',
        code: 'AL01',
        areas: [{ name: 'Bar', exportName: 'BAR' }],
      }),
    ]);
    await runtime.waitForIdle();
    await sandboxFaults(runtime, undefined);

    // Give-ups: every route but the signup for an account never provisioned (each waits for the
    // business, counts its attempts, gives up RETRIES_EXHAUSTED and keeps its record); the signup
    // against a service that answers 500 (retried, then given up the same way). A refusal: a
    // detail-type no route takes.
    const before = syncFailed();
    await sandboxFaults(runtime, { rate: 1, kinds: ['500'], pathPrefix: '/connect/' });
    await publish([
      ...queueRoutes.map(({ detailType }) =>
        detailType === 'AccountCreated'
          ? entry(detailType, {
              ...inboundSamples.AccountCreated,
              accountId: 'acct-signup-refused',
              owner: { ...inboundSamples.AccountCreated.owner, email: 'refused@example.com' },
            })
          : entry(detailType, { ...inboundSamples[detailType], accountId: 'acct-never-provisioned' }),
      ),
      entry('NoSuchThing', { accountId: 'acct-never-provisioned' }),
    ]);
    // An intake dead letter of every route: an event EventBridge could not deliver to the intake
    // queue, in its dead-letter queue with EventBridge's attributes; and a refusal delivered twice.
    const text = (value: string) => ({ DataType: 'String', StringValue: value });
    const eventBody = (detailType: string, id: string) =>
      JSON.stringify({
        version: '0',
        id,
        'detail-type': detailType,
        source: runtime.inboundSource,
        account: '000000000000',
        time: new Date().toISOString(),
        region: runtime.region,
        resources: [],
        detail: { ...(inboundSamples as Record<string, object>)[detailType], accountId: 'acct-intake' },
      });
    for (const view of runtime.deployment.queueViews.filter(
      (candidate) => candidate.deadLettersOf === 'intake',
    )) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: view.url,
          MessageBody: eventBody(String(view.route), `intake-${view.route}`),
          MessageAttributes: {
            RULE_ARN: text('arn:aws:events:us-east-1:000000000000:rule/intake'),
            ERROR_CODE: text('SQS_PERMISSION_ERROR'),
            ERROR_MESSAGE: text('Access denied'),
          },
        }),
      );
    }
    const refusalQueueArn = runtime.functionEnvironment('refuse-unroutable')['REFUSAL_QUEUE_ARN'];
    const refusalQueue = runtime.deployment.queueViews.find((view) => view.arn === refusalQueueArn);
    for (let copy = 0; copy < 2; copy++) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: refusalQueue?.url,
          MessageBody: eventBody('NoSuchThing', 'refused-twice'),
        }),
      );
    }
    await vi.waitFor(() => expect(syncFailed() - before).toBeGreaterThanOrEqual(queueRoutes.length * 2 + 2), {
      timeout: 60_000,
      interval: 50,
    });
    await runtime.waitForIdle();

    // A refusal whose publish fails on every try: its idempotency record is removed and the
    // redelivery publishes it.
    runtime.putEventsFaults.failNext(['SyncFailed'], PUBLISH_TRIES);
    const refused = syncFailed();
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: refusalQueue?.url,
        MessageBody: eventBody('NoSuchThing', 'refused-late'),
      }),
    );
    await vi.waitFor(() => expect(syncFailed()).toBe(refused + 1), { timeout: 30_000, interval: 50 });

    // The watches: the trial nearing its end, its announcement's publish failing (released for
    // the next run) while the service fails every drift check; a day later the paid demo business,
    // moved to free by the service, its announcement failing the same way; then past the trial's
    // end with the request budget contended (the checks stay due).
    const announcements = ['TrialExpiring', 'TrialEnded', 'BusinessEditionChanged', 'BusinessGone'];
    await moveSandboxClock(runtime, 24);
    runtime.putEventsFaults.failNext(announcements, 100);
    await sandboxFaults(runtime, { rate: 1, kinds: ['500'], pathPrefix: '/connect/' });
    await runtime.runSchedules();
    await sandboxFaults(runtime, undefined);
    await sandboxCall(runtime, 'POST', `/_sandbox/businesses/${hostname}/edition`, {
      edition: 'SUBSCRIPTION_FREE',
    });
    await moveSandboxClock(runtime, 1);
    await runtime.runSchedules();
    runtime.putEventsFaults.clear();
    await moveSandboxClock(runtime, 7);
    await contendedProvisioningBudget(runtime, () => runtime.runSchedules());
    await runtime.waitForIdle();
  } finally {
    await sandboxFaults(runtime, undefined);
    eventBridge.destroy();
    sqs.destroy();
  }
}

/** The publisher's tries of an entry (functions/publisher/publisher.ts, maxAttempts). */
const PUBLISH_TRIES = 4;

/**
 * Runs `act` while the US provisioning budget's next slot is an hour away, as when other functions
 * used it all (functions/store/request-budget.ts): a take finds no slot, reads how far it is, and
 * the item waits for a later run.
 */
async function contendedProvisioningBudget(
  runtime: LocalRuntime,
  act: () => Promise<unknown>,
): Promise<void> {
  const client = new DynamoDBClient({
    region: runtime.region,
    endpoint: runtime.dynamoEndpoint,
    credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' },
  });
  const doc = DynamoDBDocumentClient.from(client);
  const Key = requestBudgetKey('root#US');
  try {
    await doc.send(
      new PutCommand({ TableName: runtime.tableName, Item: { ...Key, tat: Date.now() + 3_600_000 } }),
    );
    await act();
  } finally {
    await doc.send(new DeleteCommand({ TableName: runtime.tableName, Key }));
    client.destroy();
  }
}

async function moveSandboxClock(runtime: LocalRuntime, advanceDays: number): Promise<void> {
  await sandboxCall(runtime, 'POST', '/_sandbox/clock', { advanceDays });
}

async function sandboxCall(
  runtime: LocalRuntime,
  method: string,
  path: string,
  body: unknown,
): Promise<void> {
  const response = await fetch(`${runtime.sandboxUrl}${path}`, { method, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`the sandbox refused ${method} ${path}: ${await response.text()}`);
}

async function sandboxFaults(
  runtime: LocalRuntime,
  plan: Record<string, unknown> | undefined,
): Promise<void> {
  const response = await fetch(`${runtime.sandboxUrl}/_sandbox/faults`, {
    method: plan ? 'POST' : 'DELETE',
    ...(plan ? { body: JSON.stringify(plan) } : {}),
  });
  if (!response.ok) throw new Error(`the sandbox refused the fault plan: ${await response.text()}`);
}
