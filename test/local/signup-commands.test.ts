import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBusiness } from '#functions/store/business.ts';
import { driftChecksDueBefore } from '#functions/store/drift-index.ts';
import { createStore, type Store } from '#functions/store/store.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { runCommand } from './child-process.ts';
import { lostSignup as lostSignupAt } from './samples.ts';

/**
 * `npm run signups -- --unconfirmed` and `npm run resolve-signup` against a running local runtime
 * (`--local <endpoint>`), each in its own process as an operator runs them.
 */

let runtime: LocalRuntime;
let store: Store;
let client: DynamoDBClient;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'SILENT', schedules: 'on-request' });
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

const lostSignup = (accountId: string) => lostSignupAt(runtime.sandboxUrl, store, accountId);

describe('npm run signups -- --unconfirmed', () => {
  it('lists each unconfirmed signup with its account, externalId, time and last error', async () => {
    // Prepare
    await lostSignup('acct-lost-1');

    // Act
    const { code, output } = await runCommand('scripts/signups.ts', [
      '--unconfirmed',
      '--local',
      runtime.eventsEndpoint,
    ]);

    // Assess
    expect(code, output).toBe(0);
    expect(output).toMatch(/unconfirmed signup/);
    expect(output).toMatch(/acct-lost-1\s+acct-lost-1\s+US\s+\S+\s+SIGNUP_UNCONFIRMED: signup answer lost/);
  }, 60_000);

  it('prints its help, and refuses a call without --unconfirmed', async () => {
    // Act
    const help = await runCommand('scripts/signups.ts', ['--help']);
    const bare = await runCommand('scripts/signups.ts', []);

    // Assess
    expect(help.code).toBe(0);
    expect(help.output).toMatch(/usage: npm run signups -- --unconfirmed/);
    expect(bare.code).toBe(2);
    expect(bare.output).toMatch(/--unconfirmed is required/);
  }, 60_000);
});

describe('npm run resolve-signup', () => {
  it('checks the hostname with the service and records the mapping', async () => {
    // Prepare
    const hostname = await lostSignup('acct-lost-2');

    // Act
    const { code, output } = await runCommand('scripts/resolve-signup.ts', [
      '--account',
      'acct-lost-2',
      '--hostname',
      hostname,
      '--local',
      runtime.eventsEndpoint,
    ]);

    // Assess
    expect(code, output).toBe(0);
    expect(output).toContain(`recorded: account acct-lost-2 is ACTIVE on ${hostname}`);
    expect(await getBusiness(store, 'acct-lost-2')).toMatchObject({
      status: 'ACTIVE',
      hostname,
      edition: 'SUBSCRIPTION_PRO_TRIAL',
    });
    const listed = await runCommand('scripts/signups.ts', [
      '--unconfirmed',
      '--local',
      runtime.eventsEndpoint,
    ]);
    expect(listed.output).not.toContain('acct-lost-2');
    let tracked = false;
    for await (const page of driftChecksDueBefore(store, '2999-01-01T00:00:00Z')) {
      tracked ||= page.items.some((item) => item.accountId === 'acct-lost-2');
    }
    expect(tracked).toBe(true);
  }, 60_000);

  it('refuses a hostname the service does not link to the partner, writing nothing', async () => {
    // Prepare
    await lostSignup('acct-lost-3');

    // Act
    const { code, output } = await runCommand('scripts/resolve-signup.ts', [
      '--account',
      'acct-lost-3',
      '--hostname',
      'someoneelse-99.us.sandbox.test',
      '--local',
      runtime.eventsEndpoint,
    ]);

    // Assess
    expect(code).toBe(1);
    expect(output).toMatch(/refused: the service does not link someoneelse-99\.us\.sandbox\.test/);
    expect(await getBusiness(store, 'acct-lost-3')).toMatchObject({ status: 'UNCONFIRMED' });
  }, 60_000);

  it('prints its help, and refuses a call without --account or --hostname', async () => {
    // Act
    const help = await runCommand('scripts/resolve-signup.ts', ['--help']);
    const bare = await runCommand('scripts/resolve-signup.ts', ['--account', 'a']);

    // Assess
    expect(help.code).toBe(0);
    expect(help.output).toMatch(/usage: npm run resolve-signup/);
    expect(bare.code).toBe(2);
    expect(bare.output).toMatch(/--account and --hostname are required/);
  }, 60_000);
});
