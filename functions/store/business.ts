import { GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { writeIfConditionHolds } from './claims.ts';
import { DEFAULT_DRIFT_EVERY_HOURS, nextDriftCheck } from './drift-schedule.ts';
import { businessKey, driftShardOf, hostnameKey, trialShardOf } from './keys.ts';
import { normalizeTimestamp, type Store } from './store.ts';

/** The only edition that keeps a business in the trial index. */
export const TRIAL_EDITION = 'SUBSCRIPTION_PRO_TRIAL';

/**
 * RECEIVED: an AccountCreated of the account reached its function (noted before anything can hold
 * it back, even a missing token), no signup has been sent for it yet.
 * PENDING: a signup is (or was) in flight for this account; nobody else may start one.
 * ACTIVE: signup answered; hostname known.
 * UNCONFIRMED: a signup may have committed in the service but its answer was lost, so the
 * service may hold a business whose hostname we never learned. Needs reconciliation; no new
 * signup is started for the account.
 * FAILED: the account's last AccountCreated ended in a SyncFailed (refused, or given up with
 * RETRIES_EXHAUSTED): `failure` names it. The account's other events end at once (SyncFailed
 * BUSINESS_NOT_PROVISIONED naming it); a new AccountCreated may claim the account again.
 * GONE: the drift watch found the hostname no longer linked to the partner (the service deleted
 * the business); nothing calls it again and the account's events end in SyncFailed BUSINESS_GONE.
 *
 * RECEIVED, PENDING and UNCONFIRMED are "the business is on its way": the account's other events
 * wait for it without using their attempts (domain/provisioned-business.ts).
 */
export type BusinessStatus = 'RECEIVED' | 'PENDING' | 'ACTIVE' | 'UNCONFIRMED' | 'FAILED' | 'GONE';

const BUSINESS_STATUSES = ['RECEIVED', 'PENDING', 'ACTIVE', 'UNCONFIRMED', 'FAILED', 'GONE'] as const;

const lastErrorSchema = z.object({ code: z.string(), message: z.string(), at: z.string() });

/** The SyncFailed an AccountCreated ended in (status FAILED). */
const signupFailureSchema = z.object({
  eventId: z.string(),
  code: z.string(),
  message: z.string(),
  at: z.string(),
});

export const businessSchema = z.object({
  accountId: z.string(),
  status: z.enum(BUSINESS_STATUSES),
  region: z.string(),
  /** The AccountCreated that holds the record: received it, claimed the signup, or failed. */
  eventId: z.string(),
  /** Signup attempts of the claim (absent while RECEIVED, or FAILED without a claim). */
  attempts: z.number().int().optional(),
  claimedAt: z.string().optional(),
  /** When an AccountCreated was last noted as received (RECEIVED). */
  receivedAt: z.string().optional(),
  /** Status FAILED: which AccountCreated ended how. */
  failure: signupFailureSchema.optional(),
  /**
   * A signup was claimed (PENDING) before the account FAILED, so the service may hold a business
   * for it: the next claim makes a non-blind follow-up signup (a duplicate refusal = committed).
   */
  signupMayHaveCommitted: z.boolean().optional(),
  hostname: z.string().optional(),
  edition: z.string().optional(),
  trialEndDate: z.string().optional(),
  provisionedAt: z.string().optional(),
  editionSyncedAt: z.string().optional(),
  lastSyncAt: z.string().optional(),
  lastError: lastErrorSchema.optional(),
  /** When the drift watch next compares this business with the service (drift index). */
  driftDueAt: z.string().optional(),
  /** Set by change-plan before its call, removed when it records the result (drift watch waits). */
  planChangeRequestedAt: z.string().optional(),
  goneAt: z.string().optional(),
});

export type BusinessRecord = z.infer<typeof businessSchema>;
export type SyncError = z.infer<typeof lastErrorSchema>;
export type SignupFailure = z.infer<typeof signupFailureSchema>;

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

/**
 * Records the edition the service reported at `syncedAt`. Observations only move forward in
 * time, so the trial watch's older subscription-status answer cannot undo a plan change written
 * meanwhile. Leaving the trial removes the trial-index attributes: the sparse index shrinks to
 * the businesses still on trial. Returns false when a newer observation (or no active business)
 * was found. Like recordSyncSuccess it files an ACTIVE business recorded before the drift watch
 * existed in the drift index (`if_not_exists`), so the trial watch heals the trials it touches.
 */
export async function updateEdition(
  store: Store,
  accountId: string,
  observed: {
    edition: string;
    trialEndDate?: string;
    syncedAt: Date | string;
    /** change-plan recording its own result: its marker for the drift watch goes. */
    settlesPlanChange?: boolean;
    /** The drift watch's cadence for a first drift due time (recordSyncSuccess). @default 24 */
    driftEveryHours?: number;
  },
): Promise<boolean> {
  const syncedAt = normalizeTimestamp(observed.syncedAt);
  const sets = ['edition = :edition', 'editionSyncedAt = :syncedAt', FIRST_DRIFT_CHECK];
  const removes: string[] = observed.settlesPlanChange ? ['planChangeRequestedAt'] : [];
  const values: Record<string, unknown> = {
    ':edition': observed.edition,
    ':syncedAt': syncedAt,
    ':active': 'ACTIVE',
    ...firstDriftCheckValues(accountId, syncedAt, observed.driftEveryHours),
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
  return updateBusinessIf(store, accountId, {
    UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
    ConditionExpression:
      '#status = :active AND (attribute_not_exists(editionSyncedAt) OR editionSyncedAt <= :syncedAt)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: values,
  });
}

/**
 * Last successful sync. Deliveries of different routes run concurrently, so the timestamp only
 * moves forward; an older report is ignored (returns false), as is an unknown account.
 *
 * Self-healing drift schedule: a business recorded before the drift watch existed has no drift due
 * time, so the watch would never look at it. Every successful use case runs on an ACTIVE business,
 * so the same UpdateItem files it in the drift index when it is not there yet (`if_not_exists`:
 * a due time already set is never moved). `npm run drift-backfill` does the same for the
 * businesses that see no event.
 */
export async function recordSyncSuccess(
  store: Store,
  accountId: string,
  at: Date | string,
  options: {
    /** The drift watch's cadence (DRIFT_CHECK_EVERY_HOURS) for a first due time. @default 24 */
    driftEveryHours?: number;
  } = {},
): Promise<boolean> {
  const syncedAt = normalizeTimestamp(at);
  return updateBusinessIf(store, accountId, {
    UpdateExpression: `SET lastSyncAt = :at, ${FIRST_DRIFT_CHECK}`,
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(lastSyncAt) OR lastSyncAt <= :at)',
    ExpressionAttributeValues: {
      ':at': syncedAt,
      ...firstDriftCheckValues(accountId, syncedAt, options.driftEveryHours),
    },
  });
}

/** Files a business in the drift index unless it is there: a due time already set never moves. */
const FIRST_DRIFT_CHECK =
  'driftShard = if_not_exists(driftShard, :firstDriftShard), driftDueAt = if_not_exists(driftDueAt, :firstDriftDueAt)';

function firstDriftCheckValues(
  accountId: string,
  after: string,
  everyHours: number = DEFAULT_DRIFT_EVERY_HOURS,
): Record<string, string> {
  return {
    ':firstDriftShard': driftShardOf(accountId),
    ':firstDriftDueAt': nextDriftCheck(accountId, after, everyHours),
  };
}

/**
 * `npm run drift-backfill`: the first drift due time of an ACTIVE business recorded before the
 * drift watch existed. Returns false (writing nothing) when it has one by now, or is not ACTIVE.
 */
export async function scheduleFirstDriftCheck(
  store: Store,
  accountId: string,
  at: Date | string,
  everyHours: number = DEFAULT_DRIFT_EVERY_HOURS,
): Promise<boolean> {
  return updateBusinessIf(store, accountId, {
    UpdateExpression: `SET ${FIRST_DRIFT_CHECK}`,
    ConditionExpression:
      '#status = :active AND attribute_exists(hostname) AND attribute_not_exists(driftDueAt)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':active': 'ACTIVE',
      ...firstDriftCheckValues(accountId, normalizeTimestamp(at), everyHours),
    },
  });
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
  return updateBusinessIf(store, accountId, {
    UpdateExpression: 'SET lastError = :lastError',
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(lastError) OR lastError.#at <= :at)',
    ExpressionAttributeNames: { '#at': 'at' },
    ExpressionAttributeValues: {
      ':lastError': { code: failure.code, message: failure.message, at },
      ':at': at,
    },
  });
}

/**
 * change-plan is about to call the service: until it records the result (updateEdition with
 * `settlesPlanChange`), the drift watch does not take an edition change it sees for its own.
 */
export async function notePlanChangeRequested(store: Store, accountId: string, at: Date): Promise<boolean> {
  return updateBusinessIf(store, accountId, {
    UpdateExpression: 'SET planChangeRequestedAt = :at',
    ConditionExpression: '#status = :active',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':at': normalizeTimestamp(at), ':active': 'ACTIVE' },
  });
}

/**
 * The service no longer links the hostname to the partner: the business becomes GONE and leaves
 * both indexes (nothing checks or announces it again). Only an ACTIVE business on that hostname
 * moves; returns false otherwise (already gone, or re-provisioned on another hostname).
 */
export async function markBusinessGone(
  store: Store,
  accountId: string,
  gone: { hostname: string; reason: string; at: Date | string },
): Promise<boolean> {
  const at = normalizeTimestamp(gone.at);
  return updateBusinessIf(store, accountId, {
    UpdateExpression:
      'SET #status = :gone, goneAt = :at, lastError = :lastError REMOVE driftShard, driftDueAt, trialShard, trialEndsAt',
    ConditionExpression: '#status = :active AND hostname = :hostname',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':gone': 'GONE',
      ':active': 'ACTIVE',
      ':hostname': gone.hostname,
      ':at': at,
      ':lastError': {
        code: 'BUSINESS_GONE',
        message: `${gone.hostname} is no longer linked to the partner (${gone.reason})`,
        at,
      },
    },
  });
}

/**
 * When the drift watch looks at the business next. Only an ACTIVE business with a hostname is
 * (re)filed in the drift index.
 */
export async function scheduleDriftCheck(store: Store, accountId: string, dueAt: string): Promise<boolean> {
  return updateBusinessIf(store, accountId, {
    UpdateExpression: 'SET driftShard = :shard, driftDueAt = :dueAt',
    ConditionExpression: '#status = :active AND attribute_exists(hostname)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':shard': driftShardOf(accountId),
      ':dueAt': normalizeTimestamp(dueAt),
      ':active': 'ACTIVE',
    },
  });
}

/** Takes a business that is not ACTIVE (or has no hostname) out of the drift index. */
export async function unscheduleDriftCheck(store: Store, accountId: string): Promise<void> {
  await updateBusinessIf(store, accountId, {
    UpdateExpression: 'REMOVE driftShard, driftDueAt',
    ConditionExpression: 'attribute_exists(pk)',
  });
}

/** A conditional update of one business: true when written, false when its condition did not hold. */
export function updateBusinessIf(
  store: Store,
  accountId: string,
  update: Omit<UpdateCommandInput, 'TableName' | 'Key'>,
): Promise<boolean> {
  return writeIfConditionHolds(() =>
    store.doc.send(new UpdateCommand({ TableName: store.tableName, Key: businessKey(accountId), ...update })),
  );
}
