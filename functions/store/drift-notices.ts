import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { writeIfConditionHolds } from './claims.ts';
import { driftNoticeKey } from './keys.ts';
import { epochSeconds, normalizeTimestamp, type Store } from './store.ts';
import { CLAIM_LEASE_MS } from './thresholds.ts';

/** Long enough to stop any late duplicate of a drift announcement, then gone. */
export const DRIFT_NOTICE_RETENTION_DAYS = 90;

const DAY_MS = 86_400_000;

/**
 * `claimed`: this caller announces now. `published`: announced before (a run died before it
 * updated the business): only the table update is left. `held`: another run holds a live lease.
 */
export type DriftNoticeClaim = 'claimed' | 'published' | 'held';

/**
 * Exactly-once announcement of one change the drift watch found, with the trial notices'
 * protocol (thresholds.ts): a conditional put is a lease until confirmed; a lease older than
 * CLAIM_LEASE_MS (a run that crashed between claim and publish) may be taken over.
 * `notice` names the change: `GONE#<hostname>` or `EDITION#<recorded since>#<new edition>`.
 */
export async function claimDriftNotice(
  store: Store,
  accountId: string,
  notice: string,
  at: Date,
): Promise<DriftNoticeClaim> {
  const claimed = await writeIfConditionHolds(() =>
    store.doc.send(
      new PutCommand({
        TableName: store.tableName,
        Item: {
          ...driftNoticeKey(accountId, notice),
          type: 'DriftNotice',
          accountId,
          notice,
          announcedAt: normalizeTimestamp(at),
          claimState: 'CLAIMED',
          leaseUntil: at.getTime() + CLAIM_LEASE_MS,
          ttl: epochSeconds(new Date(at.getTime() + DRIFT_NOTICE_RETENTION_DAYS * DAY_MS)),
        },
        ConditionExpression: 'attribute_not_exists(pk) OR (claimState = :claimed AND leaseUntil < :now)',
        ExpressionAttributeValues: { ':claimed': 'CLAIMED', ':now': at.getTime() },
      }),
    ),
  );
  if (claimed) return 'claimed';
  const { Item } = await store.doc.send(
    new GetCommand({
      TableName: store.tableName,
      Key: driftNoticeKey(accountId, notice),
      ConsistentRead: true,
    }),
  );
  return Item?.['claimState'] === 'PUBLISHED' ? 'published' : 'held';
}

export async function confirmDriftNotice(store: Store, accountId: string, notice: string): Promise<void> {
  await store.doc.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: driftNoticeKey(accountId, notice),
      UpdateExpression: 'SET claimState = :published REMOVE leaseUntil',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':published': 'PUBLISHED' },
    }),
  );
}

/** Undoes a claim whose announcement could not be published: the next run announces it. */
export async function releaseDriftNotice(store: Store, accountId: string, notice: string): Promise<void> {
  await store.doc.send(
    new DeleteCommand({ TableName: store.tableName, Key: driftNoticeKey(accountId, notice) }),
  );
}
