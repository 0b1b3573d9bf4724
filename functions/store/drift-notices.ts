import { DAY_MS } from '#functions/domain/time.ts';
import {
  type AnnouncementClaim,
  claimAnnouncementState,
  confirmAnnouncement,
  releaseAnnouncement,
} from './announcements.ts';
import { driftNoticeKey } from './keys.ts';
import { normalizeTimestamp, type Store } from './store.ts';

/** Long enough to stop any late duplicate of a drift announcement, then gone. */
export const DRIFT_NOTICE_RETENTION_DAYS = 90;

/**
 * `claimed`: this caller announces now. `published`: announced before (a run died before it
 * updated the business): only the table update is left. `held`: another run holds a live lease.
 */
export type DriftNoticeClaim = AnnouncementClaim;

/**
 * Exactly-once announcement of one change the drift watch found, with the lease protocol of
 * announcements.ts (as the trial notices).
 * `notice` names the change: `GONE#<hostname>` or `EDITION#<recorded since>#<new edition>`.
 */
export async function claimDriftNotice(
  store: Store,
  accountId: string,
  notice: string,
  at: Date,
): Promise<DriftNoticeClaim> {
  return claimAnnouncementState(
    store,
    {
      ...driftNoticeKey(accountId, notice),
      type: 'DriftNotice',
      accountId,
      notice,
      announcedAt: normalizeTimestamp(at),
    },
    { at, expiresAt: new Date(at.getTime() + DRIFT_NOTICE_RETENTION_DAYS * DAY_MS) },
  );
}

export function confirmDriftNotice(store: Store, accountId: string, notice: string): Promise<void> {
  return confirmAnnouncement(store, driftNoticeKey(accountId, notice));
}

/** Undoes a claim whose announcement could not be published: the next run announces it. */
export function releaseDriftNotice(store: Store, accountId: string, notice: string): Promise<void> {
  return releaseAnnouncement(store, driftNoticeKey(accountId, notice));
}
