import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type TableKey, writeIfConditionHolds } from './claims.ts';
import { epochSeconds, type Store } from './store.ts';

/**
 * The exactly-once protocol of the watches' announcements (trial thresholds, drift notices): a
 * conditional put is a lease (`CLAIMED`) until `confirmAnnouncement` marks it `PUBLISHED`; an
 * unconfirmed lease older than CLAIM_LEASE_MS may be claimed again, so a run that crashed between
 * claim and publish has its announcement sent by a later run instead of losing it. A failed
 * publish releases the lease at once.
 */

/**
 * How long a claim may stay unconfirmed before another run may take it over. Longer than the
 * longest Lambda run (the function timeout is at most 900 seconds: Lambda Developer Guide, "Lambda
 * quotas"), so a live run's claim is never stolen.
 */
export const CLAIM_LEASE_MS = 20 * 60_000;

/**
 * Puts `announcement` (its key and fields) as a lease at `at`, kept until `expiresAt` (the table's
 * TTL): true for exactly one caller at a time.
 */
export function claimAnnouncement(
  store: Store,
  announcement: TableKey & Record<string, unknown>,
  { at, expiresAt }: { at: Date; expiresAt: Date },
): Promise<boolean> {
  return writeIfConditionHolds(() =>
    store.doc.send(
      new PutCommand({
        TableName: store.tableName,
        Item: {
          ...announcement,
          ttl: epochSeconds(expiresAt),
          claimState: 'CLAIMED',
          leaseUntil: at.getTime() + CLAIM_LEASE_MS,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR (claimState = :claimed AND leaseUntil < :now)',
        ExpressionAttributeValues: { ':claimed': 'CLAIMED', ':now': at.getTime() },
      }),
    ),
  );
}

/**
 * `claimed`: this caller announces now. `published`: announced before (a run died, or failed,
 * after it published). `held`: another run holds a live lease.
 */
export type AnnouncementClaim = 'claimed' | 'published' | 'held';

/** claimAnnouncement, telling apart, when it is refused, an announcement made from a live lease. */
export async function claimAnnouncementState(
  store: Store,
  announcement: TableKey & Record<string, unknown>,
  lease: { at: Date; expiresAt: Date },
): Promise<AnnouncementClaim> {
  if (await claimAnnouncement(store, announcement, lease)) return 'claimed';
  const { Item } = await store.doc.send(
    new GetCommand({
      TableName: store.tableName,
      Key: { pk: announcement.pk, sk: announcement.sk },
      ConsistentRead: true,
    }),
  );
  return Item?.['claimState'] === 'PUBLISHED' ? 'published' : 'held';
}

/** Marks a claimed announcement as published: it is never claimed again. */
export async function confirmAnnouncement(store: Store, key: TableKey): Promise<void> {
  await store.doc.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: key,
      UpdateExpression: 'SET claimState = :published REMOVE leaseUntil',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':published': 'PUBLISHED' },
    }),
  );
}

/** Undoes a claim whose announcement could not be published: the next run announces it. */
export async function releaseAnnouncement(store: Store, key: TableKey): Promise<void> {
  await store.doc.send(new DeleteCommand({ TableName: store.tableName, Key: key }));
}
