import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { DAY_MS } from '#functions/domain/time.ts';
import { claimAnnouncement, confirmAnnouncement, releaseAnnouncement } from './announcements.ts';
import { businessKey, trialNoticeKey, trialNoticePrefix } from './keys.ts';
import { normalizeTimestamp, type Store } from './store.ts';

/** Days before the trial end, or the end itself. */
export type TrialThreshold = number | 'ENDED';

/** Announcement markers outlive the trial long enough to stop late duplicates, then expire. */
export const TRIAL_NOTICE_RETENTION_DAYS = 90;

const announcedSchema = z.object({ threshold: z.union([z.number().int(), z.literal('ENDED')]) });

const thresholdName = (threshold: TrialThreshold) => (threshold === 'ENDED' ? 'ENDED' : `DAYS_${threshold}`);

const noticeKey = (accountId: string, trialEndDate: string, thresholdDays: TrialThreshold) =>
  trialNoticeKey(accountId, normalizeTimestamp(trialEndDate), thresholdName(thresholdDays));

/**
 * True for exactly one caller per (account, trial end, threshold) at a time, however many
 * trial-watch runs overlap. Keyed on the trial end too, so a business whose trial end moves is
 * announced again for its new end. The lease protocol of announcements.ts: a crash between claim
 * and publish delays the announcement to a later run rather than losing it.
 */
export async function claimThresholdAnnouncement(
  store: Store,
  accountId: string,
  trialEndDate: string,
  thresholdDays: TrialThreshold,
  at: Date = new Date(),
): Promise<boolean> {
  const trialEndsAt = normalizeTimestamp(trialEndDate);
  const expiresAt = new Date(Date.parse(trialEndsAt) + TRIAL_NOTICE_RETENTION_DAYS * DAY_MS);
  return claimAnnouncement(
    store,
    {
      ...noticeKey(accountId, trialEndDate, thresholdDays),
      type: 'TrialNotice',
      accountId,
      trialEndDate,
      threshold: thresholdDays,
      announcedAt: normalizeTimestamp(at),
    },
    { at, expiresAt },
  );
}

/** Marks a claimed announcement as published: it is never claimed again. */
export function confirmThresholdAnnouncement(
  store: Store,
  accountId: string,
  trialEndDate: string,
  thresholdDays: TrialThreshold,
): Promise<void> {
  return confirmAnnouncement(store, noticeKey(accountId, trialEndDate, thresholdDays));
}

/**
 * Undoes a claim whose announcement could not be published, so the next trial-watch run
 * announces it instead of the announcement being lost.
 */
export function releaseThresholdAnnouncement(
  store: Store,
  accountId: string,
  trialEndDate: string,
  thresholdDays: TrialThreshold,
): Promise<void> {
  return releaseAnnouncement(store, noticeKey(accountId, trialEndDate, thresholdDays));
}

/** Thresholds already announced for this trial end, in one Query. */
export async function listAnnouncedThresholds(
  store: Store,
  accountId: string,
  trialEndDate: string,
): Promise<TrialThreshold[]> {
  const { Items } = await store.doc.send(
    new QueryCommand({
      TableName: store.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': businessKey(accountId).pk,
        ':prefix': trialNoticePrefix(normalizeTimestamp(trialEndDate)),
      },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []).map((item) => announcedSchema.parse(item).threshold);
}
