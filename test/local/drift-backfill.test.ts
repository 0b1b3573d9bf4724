import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIAL_EDITION } from '#functions/store/business.ts';
import { driftChecksDueBefore } from '#functions/store/drift-index.ts';
import { nextDriftCheck } from '#functions/store/drift-schedule.ts';
import { claimSignup, recordProvisioned } from '#functions/store/signup.ts';
import { createStore, type Store } from '#functions/store/store.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { runCommand } from './child-process.ts';

/**
 * `npm run drift-backfill` against a running local runtime (`--local <endpoint>`), in its own
 * process as an operator runs it after upgrading to the drift watch.
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

const businessKey = (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: 'BUSINESS' });

async function rawBusinessItem(accountId: string) {
  const { Item } = await store.doc.send(
    new GetCommand({ TableName: store.tableName, Key: businessKey(accountId) }),
  );
  return Item;
}

/** An ACTIVE business recorded before the drift watch existed: no drift attributes. */
async function legacyBusiness(accountId: string): Promise<void> {
  await recordProvisioned(store, {
    accountId,
    hostname: `${accountId}.us.sandbox.test`,
    edition: TRIAL_EDITION,
    trialEndDate: '2030-02-01T00:00:00+00:00',
    region: 'US',
    eventId: 'evt-1',
  });
  await store.doc.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: businessKey(accountId),
      UpdateExpression: 'REMOVE driftShard, driftDueAt',
    }),
  );
}

async function trackedByDriftWatch(accountId: string): Promise<boolean> {
  for await (const page of driftChecksDueBefore(store, '2999-01-01T00:00:00Z')) {
    if (page.items.some((item) => item.accountId === accountId)) return true;
  }
  return false;
}

describe('npm run drift-backfill', () => {
  it('files the ACTIVE businesses without a drift due time, after a dry run that writes nothing', async () => {
    // Prepare: two legacy businesses, one that has its due time, one signup still pending.
    await legacyBusiness('acct-legacy-1');
    await legacyBusiness('acct-legacy-2');
    await recordProvisioned(store, {
      accountId: 'acct-current',
      hostname: 'acct-current.us.sandbox.test',
      edition: 'SUBSCRIPTION_FREE',
      trialEndDate: '2030-02-01T00:00:00+00:00',
      region: 'US',
      eventId: 'evt-1',
    });
    const currentDue = (await rawBusinessItem('acct-current'))?.['driftDueAt'];
    await claimSignup(store, { accountId: 'acct-pending', eventId: 'evt-1', region: 'US' });

    // Act
    const dryRun = await runCommand('scripts/drift-backfill.ts', [
      '--dry-run',
      '--local',
      runtime.eventsEndpoint,
    ]);
    const afterDryRun = await trackedByDriftWatch('acct-legacy-1');
    const run = await runCommand('scripts/drift-backfill.ts', [
      '--json',
      '--every-hours',
      '6',
      '--local',
      runtime.eventsEndpoint,
    ]);
    const again = await runCommand('scripts/drift-backfill.ts', ['--local', runtime.eventsEndpoint]);

    // Assess
    expect(dryRun.code, dryRun.output).toBe(0);
    expect(dryRun.output).toMatch(/2 ACTIVE business\(es\) without a drift due time/);
    expect(dryRun.output).toContain('would schedule acct-legacy-1');
    expect(dryRun.output).toContain('dry run: nothing written');
    expect(afterDryRun).toBe(false);

    expect(run.code, run.output).toBe(0);
    const result = JSON.parse(run.output) as { missing: number; scheduled: number; accountIds: string[] };
    expect(result).toMatchObject({ missing: 2, scheduled: 2, everyHours: 6 });
    expect([...result.accountIds].sort()).toEqual(['acct-legacy-1', 'acct-legacy-2']);
    for (const accountId of ['acct-legacy-1', 'acct-legacy-2']) {
      expect(await trackedByDriftWatch(accountId)).toBe(true);
      const dueAt = Date.parse(String((await rawBusinessItem(accountId))?.['driftDueAt']));
      // On the account's own slot of the 6-hour cadence, within one cadence.
      expect(nextDriftCheck(accountId, new Date(dueAt - 1), 6)).toBe(new Date(dueAt).toISOString());
      expect(dueAt - Date.now()).toBeLessThanOrEqual(6 * 3_600_000);
    }
    expect((await rawBusinessItem('acct-current'))?.['driftDueAt']).toBe(currentDue);
    expect(await rawBusinessItem('acct-pending')).not.toHaveProperty('driftDueAt');

    expect(again.code, again.output).toBe(0);
    expect(again.output).toMatch(/0 ACTIVE business\(es\) without a drift due time/);
  }, 90_000);

  it('prints its help, and refuses an unknown flag or a bad cadence', async () => {
    // Act
    const help = await runCommand('scripts/drift-backfill.ts', ['--help']);
    const unknown = await runCommand('scripts/drift-backfill.ts', ['--everything']);
    const badCadence = await runCommand('scripts/drift-backfill.ts', ['--every-hours', '0']);

    // Assess
    expect(help.code).toBe(0);
    expect(help.output).toMatch(/usage: npm run drift-backfill/);
    expect(unknown.code).toBe(2);
    expect(badCadence.code).toBe(2);
    expect(badCadence.output).toMatch(/--every-hours must be a whole number/);
  }, 60_000);
});
