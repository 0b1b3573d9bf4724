import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  recordSyncSuccess,
  scheduleFirstDriftCheck,
  TRIAL_EDITION,
  updateEdition,
} from '#functions/store/business.ts';
import { nextDriftCheck } from '#functions/store/drift-schedule.ts';
import { driftShardOf } from '#functions/store/keys.ts';
import { claimSignup, recordProvisioned } from '#functions/store/signup.ts';
import { useTestStore } from './support.ts';

/**
 * Businesses recorded before the drift watch existed have no drift due time: every successful
 * event (recordSyncSuccess) and every edition update (the trial watch's too) files them in the
 * drift index with `if_not_exists`; `npm run drift-backfill` uses scheduleFirstDriftCheck.
 */

const store = useTestStore();
let sequence = 0;
const newAccountId = () => `acct-backfill-${++sequence}`;

async function rawBusinessItem(accountId: string) {
  const { Item } = await store.doc.send(
    new GetCommand({ TableName: store.tableName, Key: { pk: `ACCOUNT#${accountId}`, sk: 'BUSINESS' } }),
  );
  return Item;
}

/** An ACTIVE business as the connector recorded it before the drift watch: no drift attributes. */
async function legacyBusiness(accountId: string): Promise<void> {
  await recordProvisioned(store, {
    accountId,
    hostname: `${accountId}.us.sandbox.test`,
    edition: TRIAL_EDITION,
    trialEndDate: '2030-02-01T00:00:00+00:00',
    region: 'US',
    eventId: 'evt-1',
    at: new Date('2030-01-02T00:00:00Z'),
  });
  await store.doc.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: { pk: `ACCOUNT#${accountId}`, sk: 'BUSINESS' },
      UpdateExpression: 'REMOVE driftShard, driftDueAt',
    }),
  );
}

describe('self-healing drift schedule', () => {
  it('files a legacy business on its next slot when an event succeeds, with the given cadence', async () => {
    // Prepare
    const accountId = newAccountId();
    await legacyBusiness(accountId);

    // Act
    await recordSyncSuccess(store, accountId, '2030-01-05T00:00:00Z', { driftEveryHours: 12 });

    // Assess
    expect(await rawBusinessItem(accountId)).toMatchObject({
      lastSyncAt: '2030-01-05T00:00:00.000Z',
      driftShard: driftShardOf(accountId),
      driftDueAt: nextDriftCheck(accountId, '2030-01-05T00:00:00.000Z', 12),
    });
  });

  it('never moves a due time already set', async () => {
    // Prepare: recordProvisioned set the first due time.
    const accountId = newAccountId();
    await recordProvisioned(store, {
      accountId,
      hostname: `${accountId}.us.sandbox.test`,
      edition: 'SUBSCRIPTION_FREE',
      trialEndDate: '2030-02-01T00:00:00+00:00',
      region: 'US',
      eventId: 'evt-1',
      at: new Date('2030-01-02T00:00:00Z'),
    });
    const before = (await rawBusinessItem(accountId))?.['driftDueAt'];

    // Act
    await recordSyncSuccess(store, accountId, '2030-01-09T00:00:00Z');
    await updateEdition(store, accountId, { edition: 'SUBSCRIPTION_FREE', syncedAt: '2030-01-09T00:00:00Z' });

    // Assess
    expect(before).toBe(nextDriftCheck(accountId, '2030-01-02T00:00:00.000Z'));
    expect((await rawBusinessItem(accountId))?.['driftDueAt']).toBe(before);
  });

  it('files a legacy business when its edition is updated (the trial watch), not one that is not ACTIVE', async () => {
    // Prepare
    const legacy = newAccountId();
    await legacyBusiness(legacy);
    const pending = newAccountId();
    await claimSignup(store, { accountId: pending, eventId: 'evt-1', region: 'US' });

    // Act
    await updateEdition(store, legacy, { edition: 'SUBSCRIPTION_FREE', syncedAt: '2030-02-01T00:00:00Z' });
    await updateEdition(store, pending, { edition: 'SUBSCRIPTION_FREE', syncedAt: '2030-02-01T00:00:00Z' });

    // Assess
    expect(await rawBusinessItem(legacy)).toMatchObject({
      driftShard: driftShardOf(legacy),
      driftDueAt: nextDriftCheck(legacy, '2030-02-01T00:00:00.000Z'),
    });
    expect(await rawBusinessItem(pending)).not.toHaveProperty('driftDueAt');
  });
});

describe('scheduleFirstDriftCheck (npm run drift-backfill)', () => {
  it('schedules only an ACTIVE business without a due time', async () => {
    // Prepare
    const legacy = newAccountId();
    await legacyBusiness(legacy);
    const pending = newAccountId();
    await claimSignup(store, { accountId: pending, eventId: 'evt-1', region: 'US' });

    // Act
    const results = [
      await scheduleFirstDriftCheck(store, legacy, '2030-03-01T00:00:00Z', 6),
      await scheduleFirstDriftCheck(store, legacy, '2030-04-01T00:00:00Z', 6),
      await scheduleFirstDriftCheck(store, pending, '2030-03-01T00:00:00Z', 6),
      await scheduleFirstDriftCheck(store, newAccountId(), '2030-03-01T00:00:00Z', 6),
    ];

    // Assess
    expect(results).toEqual([true, false, false, false]);
    expect((await rawBusinessItem(legacy))?.['driftDueAt']).toBe(
      nextDriftCheck(legacy, '2030-03-01T00:00:00.000Z', 6),
    );
    expect(await rawBusinessItem(pending)).not.toHaveProperty('driftShard');
  });
});
