import { DAY_MS } from '#functions/domain/time.ts';
import {
  type AnnouncementClaim,
  claimAnnouncementState,
  confirmAnnouncement,
  releaseAnnouncement,
} from './announcements.ts';
import { payReturnsCompletedKey } from './keys.ts';
import { normalizeTimestamp, type Store } from './store.ts';

/**
 * Longer than a record can come back: 14 days in its route queue, then up to 14 in the dead-letter
 * queue a redrive takes it from (SQS keeps a message at most 14 days).
 */
export const PAY_RETURNS_COMPLETED_RETENTION_DAYS = 30;

/**
 * The PayReturnsCompleted of one request, announced once with the lease protocol of
 * announcements.ts: claimed before the publish, confirmed after it, released when it failed.
 */
export function claimPayReturnsCompleted(
  store: Store,
  hostname: string,
  eventId: string,
  at: Date,
): Promise<AnnouncementClaim> {
  return claimAnnouncementState(
    store,
    {
      ...payReturnsCompletedKey(hostname, eventId),
      type: 'PayReturnsCompleted',
      hostname,
      eventId,
      announcedAt: normalizeTimestamp(at),
    },
    { at, expiresAt: new Date(at.getTime() + PAY_RETURNS_COMPLETED_RETENTION_DAYS * DAY_MS) },
  );
}

export function confirmPayReturnsCompleted(store: Store, hostname: string, eventId: string): Promise<void> {
  return confirmAnnouncement(store, payReturnsCompletedKey(hostname, eventId));
}

export function releasePayReturnsCompleted(store: Store, hostname: string, eventId: string): Promise<void> {
  return releaseAnnouncement(store, payReturnsCompletedKey(hostname, eventId));
}
