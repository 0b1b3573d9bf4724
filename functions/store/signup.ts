import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type BusinessRecord,
  businessSchema,
  getBusiness,
  TRIAL_EDITION,
  updateBusinessIf,
} from './business.ts';
import { type Claim, releaseMarker } from './claims.ts';
import { nextDriftCheck } from './drift-schedule.ts';
import { businessKey, driftShardOf, hostnameKey, trialShardOf, UNCONFIRMED_SIGNUPS_SHARD } from './keys.ts';
import {
  CONDITIONAL_CHECK_FAILED,
  cancellationReasons,
  conflictingItem,
  isConditionalCheckFailure,
  normalizeTimestamp,
  type Store,
} from './store.ts';

/**
 * A business's signup in the table: the claim of the right to call signup, its outcome (provisioned,
 * unconfirmed, failed) and the release of a claim. The business record itself: business.ts.
 */

/**
 * `resumesFailedSignup`: the account had FAILED after an earlier claim (signupMayHaveCommitted),
 * so the service may already hold its business and the signup must be a non-blind follow-up.
 */
export type SignupClaim =
  | { claimed: true; resumesFailedSignup?: true }
  | Extract<Claim<BusinessRecord>, { claimed: false }>;

/**
 * Takes the right to call signup for an account: the account has no record, or only RECEIVED (an
 * AccountCreated noted, no signup sent) or FAILED (a new AccountCreated after a failed one).
 * Exactly one of several concurrent deliveries wins. A redelivery of the claiming event finds its
 * own PENDING marker: the attempt counter is raised and returned so the use case can tell "my
 * earlier attempt may have reached the service".
 */
export async function claimSignup(
  store: Store,
  claim: { accountId: string; eventId: string; region: string; at?: Date },
): Promise<SignupClaim> {
  for (;;) {
    try {
      const { Attributes } = await store.doc.send(
        new UpdateCommand({
          TableName: store.tableName,
          Key: businessKey(claim.accountId),
          UpdateExpression:
            'SET #type = :type, accountId = :accountId, #status = :pending, #region = :region, eventId = :eventId, attempts = :one, claimedAt = :at REMOVE failure, receivedAt, signupMayHaveCommitted',
          ConditionExpression: 'attribute_not_exists(pk) OR #status IN (:received, :failed)',
          ExpressionAttributeNames: { '#type': 'type', '#status': 'status', '#region': 'region' },
          ExpressionAttributeValues: {
            ':type': 'Business',
            ':accountId': claim.accountId,
            ':pending': 'PENDING',
            ':received': 'RECEIVED',
            ':failed': 'FAILED',
            ':region': claim.region,
            ':eventId': claim.eventId,
            ':one': 1,
            ':at': normalizeTimestamp(claim.at ?? new Date()),
          },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return Attributes?.['signupMayHaveCommitted'] === true
        ? { claimed: true, resumesFailedSignup: true }
        : { claimed: true };
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      const returned = conflictingItem(error.Item);
      const existing = returned ? businessSchema.parse(returned) : await getBusiness(store, claim.accountId);
      // Undefined only when the holder released it between our write and our read: claim again.
      if (existing === undefined) continue;
      if (existing.status === 'RECEIVED' || existing.status === 'FAILED') continue; // claimable now
      if (existing.status === 'PENDING' && existing.eventId === claim.eventId) {
        return { claimed: false, existing: await countSignupAttempt(store, existing) };
      }
      return { claimed: false, existing };
    }
  }
}

/**
 * Notes that an AccountCreated of the account reached its function, before anything can hold it
 * back (a missing token, too little time): from now on the account's other events wait for its
 * business instead of using their attempts. Writes only over nothing, RECEIVED, or a FAILED
 * record of another event (a new AccountCreated after a failed one; a redelivery of the failed
 * event itself leaves FAILED as it is). Returns true when written.
 */
export async function noteAccountCreatedReceived(
  store: Store,
  received: { accountId: string; eventId: string; region: string; at?: Date },
): Promise<boolean> {
  return updateBusinessIf(store, received.accountId, {
    UpdateExpression:
      'SET #type = :type, accountId = :accountId, #status = :received, #region = :region, eventId = :eventId, receivedAt = :at REMOVE failure',
    ConditionExpression:
      'attribute_not_exists(pk) OR #status = :received OR (#status = :failed AND failure.eventId <> :eventId)',
    ExpressionAttributeNames: { '#type': 'type', '#status': 'status', '#region': 'region' },
    ExpressionAttributeValues: {
      ':type': 'Business',
      ':accountId': received.accountId,
      ':received': 'RECEIVED',
      ':failed': 'FAILED',
      ':region': received.region,
      ':eventId': received.eventId,
      ':at': normalizeTimestamp(received.at ?? new Date()),
    },
  });
}

/**
 * Records that the account's AccountCreated `eventId` ended in SyncFailed `code` (refused, or
 * given up): the account's waiting events end at once, naming it. Only a business on its way
 * becomes FAILED — no record (a claim released after a refusal), RECEIVED, PENDING (then
 * `signupMayHaveCommitted`: the next claim's signup is a follow-up) or FAILED; an ACTIVE,
 * UNCONFIRMED or GONE business stays as it is (e.g. a second AccountCreated refused
 * ACCOUNT_ALREADY_PROVISIONED). Returns true when written.
 */
export async function recordSignupFailed(
  store: Store,
  failed: { accountId: string; eventId: string; region: string; code: string; message: string; at?: Date },
): Promise<boolean> {
  const at = normalizeTimestamp(failed.at ?? new Date());
  const values = {
    ':type': 'Business',
    ':accountId': failed.accountId,
    ':failedStatus': 'FAILED',
    ':region': failed.region,
    ':eventId': failed.eventId,
    ':failure': { eventId: failed.eventId, code: failed.code, message: failed.message, at },
  };
  const sets =
    'SET #type = :type, accountId = :accountId, #status = :failedStatus, #region = if_not_exists(#region, :region), eventId = :eventId, failure = :failure';
  const names = { '#type': 'type', '#status': 'status', '#region': 'region' };
  // A claim was taken: the signup may have reached the service.
  const fromPending = await updateBusinessIf(store, failed.accountId, {
    UpdateExpression: `${sets}, signupMayHaveCommitted = :true`,
    ConditionExpression: '#status = :pending',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ...values, ':pending': 'PENDING', ':true': true },
  });
  if (fromPending) return true;
  return updateBusinessIf(store, failed.accountId, {
    UpdateExpression: sets,
    ConditionExpression: 'attribute_not_exists(pk) OR #status IN (:received, :failedStatus)',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ...values, ':received': 'RECEIVED' },
  });
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
    /** The drift watch's cadence; the first check is spread over it (drift-schedule.ts). @default 24 */
    driftEveryHours?: number;
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
    'driftShard = :driftShard',
    'driftDueAt = :driftDueAt',
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
    ':driftShard': driftShardOf(provisioned.accountId),
    ':driftDueAt': nextDriftCheck(provisioned.accountId, at, provisioned.driftEveryHours),
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
              UpdateExpression: `SET ${sets.join(', ')} REMOVE ${onTrial ? '' : 'trialShard, trialEndsAt, '}goneAt`,
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
  return updateBusinessIf(store, accountId, {
    // Filed under the drift index's UNCONFIRMED partition: listed by `npm run signups` and counted
    // on the dashboard (listUnconfirmedSignups) without a scan.
    UpdateExpression:
      'SET #status = :unconfirmed, lastError = :lastError, driftShard = :unconfirmedShard, driftDueAt = :at',
    ConditionExpression: '(#status = :pending OR #status = :unconfirmed) AND eventId = :eventId',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':unconfirmedShard': UNCONFIRMED_SIGNUPS_SHARD,
      ':at': at,
      ':unconfirmed': 'UNCONFIRMED',
      ':pending': 'PENDING',
      ':eventId': outcome.eventId,
      ':lastError': { code: 'SIGNUP_UNCONFIRMED', message: outcome.message, at },
    },
  });
}

/**
 * Deletes this event's PENDING claim when the signup certainly did not happen (the service
 * rejected it), so a later, corrected event may try again. Returns false if it was not ours.
 */
export async function releaseSignupClaim(store: Store, accountId: string, eventId: string): Promise<boolean> {
  return releaseMarker(store, { key: businessKey(accountId) }, { claimedStatus: 'PENDING', eventId });
}
