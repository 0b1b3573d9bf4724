import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { CLAIM_LEASE_MS } from '#functions/store/announcements.ts';
import {
  claimThresholdAnnouncement,
  confirmThresholdAnnouncement,
  listAnnouncedThresholds,
  releaseThresholdAnnouncement,
  TRIAL_NOTICE_RETENTION_DAYS,
} from '#functions/store/thresholds.ts';
import { useTestStore } from './support.ts';

const store = useTestStore();
let sequence = 0;
const newAccountId = () => `acct-${++sequence}`;
const trialEnd = '2030-02-01T00:00:00Z';

describe('claimThresholdAnnouncement', () => {
  it('is true the first time and false afterwards for the same threshold', async () => {
    // Prepare
    const accountId = newAccountId();

    // Act
    const first = await claimThresholdAnnouncement(store, accountId, trialEnd, 7);
    const second = await claimThresholdAnnouncement(store, accountId, trialEnd, 7);

    // Assess
    expect([first, second]).toEqual([true, false]);
  });

  it('is true for exactly one of two concurrent trial-watch runs', async () => {
    // Prepare
    const accountId = newAccountId();

    // Act
    const claims = await Promise.all([
      claimThresholdAnnouncement(store, accountId, trialEnd, 'ENDED'),
      claimThresholdAnnouncement(store, accountId, trialEnd, 'ENDED'),
    ]);

    // Assess
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it('treats the same instant written with another offset as the same trial end', async () => {
    // Prepare
    const accountId = newAccountId();
    await claimThresholdAnnouncement(store, accountId, '2030-02-01T00:00:00Z', 3);

    // Act
    const again = await claimThresholdAnnouncement(store, accountId, '2030-01-31T19:00:00-05:00', 3);

    // Assess
    expect(again).toBe(false);
  });

  it('announces again when the trial end moves', async () => {
    // Prepare
    const accountId = newAccountId();
    await claimThresholdAnnouncement(store, accountId, trialEnd, 1);

    // Act
    const forNewEnd = await claimThresholdAnnouncement(store, accountId, '2030-03-01T00:00:00Z', 1);

    // Assess
    expect(forNewEnd).toBe(true);
  });

  it('can be claimed again after a release for an announcement that was not published', async () => {
    // Prepare
    const accountId = newAccountId();
    await claimThresholdAnnouncement(store, accountId, trialEnd, 3);

    // Act
    await releaseThresholdAnnouncement(store, accountId, '2030-01-31T19:00:00-05:00', 3);
    const reclaimed = await claimThresholdAnnouncement(store, accountId, trialEnd, 3);

    // Assess
    expect(reclaimed).toBe(true);
  });

  it('lets a later run take over a claim that was never confirmed once its lease has passed', async () => {
    // Prepare
    const accountId = newAccountId();
    const claimedAt = new Date('2030-01-20T00:00:00Z');
    await claimThresholdAnnouncement(store, accountId, trialEnd, 7, claimedAt);

    // Act
    const duringLease = await claimThresholdAnnouncement(
      store,
      accountId,
      trialEnd,
      7,
      new Date(claimedAt.getTime() + CLAIM_LEASE_MS - 1000),
    );
    const afterLease = await claimThresholdAnnouncement(
      store,
      accountId,
      trialEnd,
      7,
      new Date(claimedAt.getTime() + CLAIM_LEASE_MS + 1000),
    );

    // Assess
    expect(duringLease).toBe(false);
    expect(afterLease).toBe(true);
  });

  it('never gives out a confirmed announcement again, even after the lease', async () => {
    // Prepare
    const accountId = newAccountId();
    const claimedAt = new Date('2030-01-20T00:00:00Z');
    await claimThresholdAnnouncement(store, accountId, trialEnd, 1, claimedAt);
    await confirmThresholdAnnouncement(store, accountId, trialEnd, 1);

    // Act
    const later = await claimThresholdAnnouncement(
      store,
      accountId,
      trialEnd,
      1,
      new Date(claimedAt.getTime() + 10 * CLAIM_LEASE_MS),
    );

    // Assess
    expect(later).toBe(false);
  });

  it('lists the thresholds already announced for a trial end', async () => {
    // Prepare
    const accountId = newAccountId();
    await claimThresholdAnnouncement(store, accountId, trialEnd, 7);
    await claimThresholdAnnouncement(store, accountId, trialEnd, 'ENDED');
    await claimThresholdAnnouncement(store, accountId, '2030-03-01T00:00:00Z', 3);

    // Act
    const announced = await listAnnouncedThresholds(store, accountId, trialEnd);

    // Assess
    expect(announced.sort()).toEqual([7, 'ENDED']);
  });

  it('expires the marker a retention period after the trial end', async () => {
    // Prepare
    const accountId = newAccountId();

    // Act
    await claimThresholdAnnouncement(store, accountId, trialEnd, 7);

    // Assess
    const { Item } = await store.doc.send(
      new GetCommand({
        TableName: store.tableName,
        Key: { pk: `ACCOUNT#${accountId}`, sk: 'TRIAL_NOTICE#2030-02-01T00:00:00.000Z#DAYS_7' },
      }),
    );
    const expected = Date.parse(trialEnd) / 1000 + TRIAL_NOTICE_RETENTION_DAYS * 86_400;
    expect(Item).toMatchObject({ type: 'TrialNotice', ttl: expected });
  });
});
