import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { type Claim, claimMarker, releaseMarker, writeIfConditionHolds } from './claims.ts';
import { businessKey, hostnameKey, trialShardOf } from './keys.ts';
import {
  CONDITIONAL_CHECK_FAILED,
  cancellationReasons,
  isConditionalCheckFailure,
  normalizeTimestamp,
  type Store,
} from './store.ts';

/** The only edition that keeps a business in the trial index. */
export const TRIAL_EDITION = 'SUBSCRIPTION_PRO_TRIAL';

/**
 * PENDING: a signup is (or was) in flight for this account; nobody else may start one.
 * ACTIVE: signup answered; hostname known.
 * UNCONFIRMED: a signup may have committed in the service but its answer was lost, so the
 * service may hold a business whose hostname we never learned. Needs reconciliation; no new
 * signup is started for the account.
 */
export type BusinessStatus = 'PENDING' | 'ACTIVE' | 'UNCONFIRMED';

const lastErrorSchema = z.object({ code: z.string(), message: z.string(), at: z.string() });

const businessSchema = z.object({
  accountId: z.string(),
  status: z.enum(['PENDING', 'ACTIVE', 'UNCONFIRMED']),
  region: z.string(),
  eventId: z.string(),
  attempts: z.number().int(),
  claimedAt: z.string(),
  hostname: z.string().optional(),
  edition: z.string().optional(),
  trialEndDate: z.string().optional(),
  provisionedAt: z.string().optional(),
  editionSyncedAt: z.string().optional(),
  lastSyncAt: z.string().optional(),
  lastError: lastErrorSchema.optional(),
});

export type BusinessRecord = z.infer<typeof businessSchema>;
export type SyncError = z.infer<typeof lastErrorSchema>;

const hostnameSchema = z.object({ accountId: z.string() });

export async function getBusiness(store: Store, accountId: string): Promise<BusinessRecord | undefined> {
  const { Item } = await store.doc.send(
    new GetCommand({ TableName: store.tableName, Key: businessKey(accountId), ConsistentRead: true }),
  );
  return Item ? businessSchema.parse(Item) : undefined;
}

export async function getAccountByHostname(store: Store, hostname: string): Promise<string | undefined> {
  const { Item } = await store.doc.send(
    new GetCommand({ TableName: store.tableName, Key: hostnameKey(hostname), ConsistentRead: true }),
  );
  return Item ? hostnameSchema.parse(Item).accountId : undefined;
}

export type SignupClaim = Claim<BusinessRecord>;

/**
 * Takes the right to call signup for an account. Exactly one of several concurrent deliveries
 * wins. A redelivery of the claiming event finds its own PENDING marker: the attempt counter is
 * raised and returned so the use case can tell "my earlier attempt may have reached the service".
 */
export async function claimSignup(
  store: Store,
  claim: { accountId: string; eventId: string; region: string; at?: Date },
): Promise<SignupClaim> {
  const outcome = await claimMarker(
    store,
    {
      ...businessKey(claim.accountId),
      type: 'Business',
      accountId: claim.accountId,
      status: 'PENDING',
      region: claim.region,
      eventId: claim.eventId,
      attempts: 1,
      claimedAt: normalizeTimestamp(claim.at ?? new Date()),
    },
    { parse: (item) => businessSchema.parse(item), read: () => getBusiness(store, claim.accountId) },
  );
  if (outcome.claimed) return outcome;
  const { existing } = outcome;
  if (existing.status === 'PENDING' && existing.eventId === claim.eventId) {
    return { claimed: false, existing: await countSignupAttempt(store, existing) };
  }
  return outcome;
}

async function countSignupAttempt(store: Store, pending: BusinessRecord): Promise<BusinessRecord> {
  try {
    const { Attributes } = await store.doc.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: businessKey(pending.accountId),
        UpdateExpression: 'ADD attempts :one',
        ConditionExpression: '#status = :pending AND eventId = :eventId',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':one': 1, ':pending': 'PENDING', ':eventId': pending.eventId },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return businessSchema.parse(Attributes);
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
    // The claim moved on (provisioned, unconfirmed or released) meanwhile: report what it is now.
    return (await getBusiness(store, pending.accountId)) ?? pending;
  }
}

export type ProvisionedRecording =
  | { recorded: true }
  | { recorded: false; reason: 'HOSTNAME_TAKEN' | 'ACCOUNT_HAS_OTHER_HOSTNAME' };

/**
 * Records a successful signup atomically: the business becomes ACTIVE (and enters the trial
 * index while on trial) together with the hostname → account mapping. Replaying the same
 * hostname is a no-op success; a hostname owned by another account, or an account already
 * active on another hostname, is refused without writing anything.
 */
export async function recordProvisioned(
  store: Store,
  provisioned: {
    accountId: string;
    hostname: string;
    edition: string;
    trialEndDate: string;
    region: string;
    eventId: string;
    at?: Date;
  },
): Promise<ProvisionedRecording> {
  const at = normalizeTimestamp(provisioned.at ?? new Date());
  const onTrial = provisioned.edition === TRIAL_EDITION;
  const sets = [
    '#type = :type',
    'accountId = :accountId',
    '#status = :active',
    '#region = :region',
    'hostname = :hostname',
    'edition = :edition',
    'trialEndDate = :trialEndDate',
    'provisionedAt = :at',
    'editionSyncedAt = :at',
    'eventId = if_not_exists(eventId, :eventId)',
    'attempts = if_not_exists(attempts, :one)',
    'claimedAt = if_not_exists(claimedAt, :at)',
  ];
  const values: Record<string, unknown> = {
    ':type': 'Business',
    ':accountId': provisioned.accountId,
    ':active': 'ACTIVE',
    ':region': provisioned.region,
    ':hostname': provisioned.hostname,
    ':edition': provisioned.edition,
    ':trialEndDate': provisioned.trialEndDate,
    ':at': at,
    ':eventId': provisioned.eventId,
    ':one': 1,
  };
  if (onTrial) {
    sets.push('trialShard = :trialShard', 'trialEndsAt = :trialEndsAt');
    values[':trialShard'] = trialShardOf(provisioned.accountId);
    values[':trialEndsAt'] = normalizeTimestamp(provisioned.trialEndDate);
  }
  try {
    await store.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: store.tableName,
              Key: businessKey(provisioned.accountId),
              UpdateExpression: `SET ${sets.join(', ')}${onTrial ? '' : ' REMOVE trialShard, trialEndsAt'}`,
              ConditionExpression:
                'attribute_not_exists(#status) OR #status <> :active OR hostname = :hostname',
              ExpressionAttributeNames: { '#type': 'type', '#status': 'status', '#region': 'region' },
              ExpressionAttributeValues: values,
            },
          },
          {
            Put: {
              TableName: store.tableName,
              Item: {
                ...hostnameKey(provisioned.hostname),
                type: 'HostnameMapping',
                hostname: provisioned.hostname,
                accountId: provisioned.accountId,
                recordedAt: at,
              },
              ConditionExpression: 'attribute_not_exists(pk) OR accountId = :accountId',
              ExpressionAttributeValues: { ':accountId': provisioned.accountId },
            },
          },
        ],
      }),
    );
    return { recorded: true };
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    if (reasons[1]?.Code === CONDITIONAL_CHECK_FAILED) return { recorded: false, reason: 'HOSTNAME_TAKEN' };
    if (reasons[0]?.Code === CONDITIONAL_CHECK_FAILED) {
      return { recorded: false, reason: 'ACCOUNT_HAS_OTHER_HOSTNAME' };
    }
    throw error;
  }
}

/**
 * Moves this event's PENDING claim to UNCONFIRMED. Returns false when the claim is not this
 * event's (or no longer pending), which leaves the record untouched.
 */
export async function markSignupUnconfirmed(
  store: Store,
  accountId: string,
  outcome: { eventId: string; message: string; at?: Date },
): Promise<boolean> {
  const at = normalizeTimestamp(outcome.at ?? new Date());
  return writeIfConditionHolds(() =>
    store.doc.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: businessKey(accountId),
        UpdateExpression: 'SET #status = :unconfirmed, lastError = :lastError',
        ConditionExpression: '(#status = :pending OR #status = :unconfirmed) AND eventId = :eventId',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':unconfirmed': 'UNCONFIRMED',
          ':pending': 'PENDING',
          ':eventId': outcome.eventId,
          ':lastError': { code: 'SIGNUP_UNCONFIRMED', message: outcome.message, at },
        },
      }),
    ),
  );
}

/**
 * Deletes this event's PENDING claim when the signup certainly did not happen (the service
 * rejected it), so a later, corrected event may try again. Returns false if it was not ours.
 */
export async function releaseSignupClaim(store: Store, accountId: string, eventId: string): Promise<boolean> {
  return releaseMarker(store, { key: businessKey(accountId) }, { claimedStatus: 'PENDING', eventId });
}

/**
 * Records the edition the service reported at `syncedAt`. Observations only move forward in
 * time, so the trial watch's older subscription-status answer cannot undo a plan change written
 * meanwhile. Leaving the trial removes the trial-index attributes: the sparse index shrinks to
 * the businesses still on trial. Returns false when a newer observation (or no active business)
 * was found.
 */
export async function updateEdition(
  store: Store,
  accountId: string,
  observed: { edition: string; trialEndDate?: string; syncedAt: Date | string },
): Promise<boolean> {
  const syncedAt = normalizeTimestamp(observed.syncedAt);
  const sets = ['edition = :edition', 'editionSyncedAt = :syncedAt'];
  const removes: string[] = [];
  const values: Record<string, unknown> = {
    ':edition': observed.edition,
    ':syncedAt': syncedAt,
    ':active': 'ACTIVE',
  };
  if (observed.trialEndDate !== undefined) {
    sets.push('trialEndDate = :trialEndDate');
    values[':trialEndDate'] = observed.trialEndDate;
  }
  if (observed.edition === TRIAL_EDITION) {
    if (observed.trialEndDate !== undefined) {
      sets.push('trialShard = :trialShard', 'trialEndsAt = :trialEndsAt');
      values[':trialShard'] = trialShardOf(accountId);
      values[':trialEndsAt'] = normalizeTimestamp(observed.trialEndDate);
    }
  } else {
    removes.push('trialShard', 'trialEndsAt');
  }
  return writeIfConditionHolds(() =>
    store.doc.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: businessKey(accountId),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression:
          '#status = :active AND (attribute_not_exists(editionSyncedAt) OR editionSyncedAt <= :syncedAt)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
      }),
    ),
  );
}

/**
 * Last successful sync. Deliveries of different routes run concurrently, so the timestamp only
 * moves forward; an older report is ignored (returns false), as is an unknown account.
 */
export async function recordSyncSuccess(
  store: Store,
  accountId: string,
  at: Date | string,
): Promise<boolean> {
  const syncedAt = normalizeTimestamp(at);
  return writeIfConditionHolds(() =>
    store.doc.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: businessKey(accountId),
        UpdateExpression: 'SET lastSyncAt = :at',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(lastSyncAt) OR lastSyncAt <= :at)',
        ExpressionAttributeValues: { ':at': syncedAt },
      }),
    ),
  );
}

/**
 * Last failed sync (code and message as published in SyncFailed; never a token or personal
 * data). Kept after later successes: comparing `lastError.at` with `lastSyncAt` tells whether it
 * is still the latest outcome. Only moves forward in time, like recordSyncSuccess.
 */
export async function recordSyncError(
  store: Store,
  accountId: string,
  failure: { code: string; message: string; at: Date | string },
): Promise<boolean> {
  const at = normalizeTimestamp(failure.at);
  return writeIfConditionHolds(() =>
    store.doc.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: businessKey(accountId),
        UpdateExpression: 'SET lastError = :lastError',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(lastError) OR lastError.#at <= :at)',
        ExpressionAttributeNames: { '#at': 'at' },
        ExpressionAttributeValues: {
          ':lastError': { code: failure.code, message: failure.message, at },
          ':at': at,
        },
      }),
    ),
  );
}
