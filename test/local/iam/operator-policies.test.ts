import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TRIAL_EDITION } from '#functions/store/business.ts';
import { recordProvisioned } from '#functions/store/signup.ts';
import { createStore, type Store } from '#functions/store/store.ts';
import { expectDenials } from '#local/iam/denial-log.ts';
import { type OperatorCommand, operatorAccessKeyId } from '#local/iam/operators.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { parseRedriveArgs, redrive } from '#scripts/redrive.ts';
import { parseReplayArgs, replay } from '#scripts/replay.ts';
import { runCommand } from '#test/local/child-process.ts';
import { lostSignup, sampleEntry } from '#test/local/samples.ts';

/**
 * The operator policies of docs/deploy.md (docs/policies/operator-<command>.json), proven the way
 * the functions' grants are (issue 26, point 4): each operator command runs against the local
 * runtime with the access key `LOCAL.operator.<command>`, which the runtime's IAM enforcement
 * takes for a principal whose identity policy is that command's documented policy, filled in from
 * the template's outputs (local/iam/operators.ts). Every call the command really makes must be
 * allowed; a call outside its policy is denied as AWS denies it (the replay's calls under the
 * redrive policy).
 */

expectDenials();

let runtime: LocalRuntime;
let store: Store;
let client: DynamoDBClient;

const credentialsOf = (command: OperatorCommand) => ({
  accessKeyId: operatorAccessKeyId(command),
  secretAccessKey: 'local-operator',
});
const operatorPrincipal = (command: OperatorCommand) =>
  `arn:aws:sts::000000000000:assumed-role/operator-${command}/${command}`;
const deniedTo = (command: OperatorCommand) =>
  runtime.denied().filter((denial) => denial.principal === operatorPrincipal(command));
const usedBy = (command: OperatorCommand) =>
  runtime
    .iam!.iam.used()
    .filter((use) => use.roleArn === `arn:aws:iam::000000000000:role/operator-${command}`)
    .map((use) => use.action);

beforeAll(async () => {
  // Visibility timeouts scaled to a few ms: a record gives up (and reaches its DLQ) quickly.
  runtime = await startLocalRuntime({ logLevel: 'SILENT', timeScale: 1 / 10_000 });
  client = new DynamoDBClient({
    region: runtime.region,
    endpoint: runtime.dynamoEndpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  store = createStore({ tableName: runtime.tableName, client });
}, 120_000);

afterAll(async () => {
  client?.destroy();
  await runtime?.close();
});

describe('the redrive and replay operator policies', () => {
  const sqsAs = (command: OperatorCommand) =>
    new SQSClient({
      region: runtime.region,
      endpoint: runtime.eventsEndpoint,
      credentials: credentialsOf(command),
    });
  const eventsAs = (command: OperatorCommand) =>
    new EventBridgeClient({
      region: runtime.region,
      endpoint: runtime.eventsEndpoint,
      credentials: credentialsOf(command),
    });
  // As docs/deploy.md gives the command with its policy: naming the archive (the stack's output).
  const replayOptions = () => ({
    ...parseReplayArgs([
      '--from',
      new Date(Date.now() - 3_600_000).toISOString(),
      '--to',
      new Date().toISOString(),
      '--archive',
      runtime.archives()[0]!.name,
    ]),
    inboundSource: runtime.inboundSource,
  });
  // The replay waits 10 minutes after the window's end (ARCHIVE_DELAY_MS): its clock says they passed.
  const replayTiming = { now: () => new Date(Date.now() + 11 * 60_000), pollIntervalMs: 5 };

  it('lets npm run redrive move a route’s dead letters back to its queue', async () => {
    // Prepare: an employee change for an account never provisioned gives up into its route's DLQ.
    const eventBridge = eventsAs('replay');
    const developer = new EventBridgeClient({
      region: runtime.region,
      endpoint: runtime.eventsEndpoint,
      credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' },
    });
    await developer.send(
      new PutEventsCommand({
        Entries: [sampleEntry('EmployeeChanged', { accountId: 'acct-never-provisioned' })],
      }),
    );
    developer.destroy();
    eventBridge.destroy();
    const deadLetters = runtime
      .resources()
      .queues.find((queue) => queue.route === 'EmployeeChanged' && queue.deadLettersOf === 'route')!;
    await vi.waitFor(
      () => expect(runtime.dlq().some((entry) => entry.queue === deadLetters.name)).toBe(true),
      {
        timeout: 30_000,
        interval: 50,
      },
    );
    await runtime.waitForIdle();
    const sqs = sqsAs('redrive');

    // Act
    const lines: string[] = [];
    const outcome = await redrive(sqs, parseRedriveArgs([deadLetters.name]), (line) => lines.push(line));
    sqs.destroy();

    // Assess
    expect(outcome.kind, lines.join('\n')).toBe('started');
    expect(deniedTo('redrive')).toEqual([]);
    expect(new Set(usedBy('redrive'))).toEqual(
      new Set([
        'sqs:GetQueueUrl',
        'sqs:GetQueueAttributes',
        'sqs:ListDeadLetterSourceQueues',
        'sqs:StartMessageMoveTask',
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'sqs:SendMessage',
      ]),
    );
  });

  it('lets npm run replay replay the archive to the connector bus', async () => {
    // Prepare
    const eventBridge = eventsAs('replay');

    // Act
    const outcome = await replay(eventBridge, replayOptions(), () => undefined, replayTiming);
    eventBridge.destroy();

    // Assess
    expect(outcome).toMatchObject({ kind: 'finished', state: 'COMPLETED' });
    expect(deniedTo('replay')).toEqual([]);
    expect(new Set(usedBy('replay'))).toEqual(
      new Set(['events:DescribeArchive', 'events:ListRules', 'events:StartReplay', 'events:DescribeReplay']),
    );
  });

  it('refuses the replay’s calls under the redrive policy, as AWS does', async () => {
    // Prepare
    const eventBridge = eventsAs('redrive');

    // Act
    const refused = replay(eventBridge, replayOptions(), () => undefined, replayTiming);

    // Assess
    await expect(refused).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringMatching(
        new RegExp(
          `^User: ${operatorPrincipal('redrive')} is not authorized to perform: events:\\w+ on resource: \\S+ because no identity-based policy allows the events:\\w+ action$`,
        ),
      ),
    });
    eventBridge.destroy();
    expect(deniedTo('redrive').length).toBeGreaterThan(0);
    expect(deniedTo('redrive').every((denial) => denial.action.startsWith('events:'))).toBe(true);
  });
});

describe('the signups, resolve-signup and drift-backfill operator policies', () => {
  const run = (command: OperatorCommand, args: readonly string[]) =>
    runCommand(`scripts/${command}.ts`, [...args, '--local', runtime.eventsEndpoint], {
      AWS_ACCESS_KEY_ID: operatorAccessKeyId(command),
      AWS_SECRET_ACCESS_KEY: 'local-operator',
    });

  it('lets each command list, resolve and backfill with its own policy, and nothing it does is denied', async () => {
    // Prepare: an unconfirmed signup, and an ACTIVE business recorded before the drift watch existed.
    const hostname = await lostSignup(runtime.sandboxUrl, store, 'acct-operator-lost');
    await recordProvisioned(store, {
      accountId: 'acct-operator-legacy',
      hostname: 'acct-operator-legacy.us.sandbox.test',
      edition: TRIAL_EDITION,
      trialEndDate: '2030-02-01T00:00:00+00:00',
      region: 'US',
      eventId: 'evt-legacy',
    });
    await store.doc.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: { pk: 'ACCOUNT#acct-operator-legacy', sk: 'BUSINESS' },
        UpdateExpression: 'REMOVE driftShard, driftDueAt',
      }),
    );

    // Act
    const signups = await run('signups', ['--unconfirmed']);
    const resolved = await run('resolve-signup', ['--account', 'acct-operator-lost', '--hostname', hostname]);
    const backfill = await run('drift-backfill', []);

    // Assess
    expect(signups.code, signups.output).toBe(0);
    expect(signups.output).toContain('acct-operator-lost');
    expect(resolved.code, resolved.output).toBe(0);
    expect(backfill.code, backfill.output).toBe(0);
    expect(backfill.output).toMatch(/1 ACTIVE business\(es\) without a drift due time\s+scheduled 1/);
    for (const command of ['signups', 'resolve-signup', 'drift-backfill'] as const) {
      expect(deniedTo(command), command).toEqual([]);
    }
    expect(new Set(usedBy('signups'))).toEqual(new Set(['dynamodb:Query', 'dynamodb:GetItem']));
    expect(new Set(usedBy('resolve-signup'))).toEqual(
      new Set([
        'dynamodb:GetItem',
        'dynamodb:UpdateItem',
        'dynamodb:PutItem',
        'secretsmanager:GetSecretValue',
      ]),
    );
    expect(new Set(usedBy('drift-backfill'))).toEqual(new Set(['dynamodb:Scan', 'dynamodb:UpdateItem']));
  }, 90_000);
});
