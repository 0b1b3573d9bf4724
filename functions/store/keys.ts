import { createHash } from 'node:crypto';
import { DRIFT_SHARD_COUNT, TRIAL_SHARD_COUNT } from './table.ts';

/**
 * Every key of the table is built here and nowhere else. Prefixes keep entity kinds apart in
 * one table; Powertools idempotency records use `idempotency#...`, which none of these start with.
 */

export type CustomFieldSystem = 'Employee' | 'Timesheet';

export const businessKey = (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: 'BUSINESS' });

export const hostnameKey = (hostname: string) => ({ pk: `HOSTNAME#${hostname}`, sk: 'ACCOUNT' });

export const trialNoticePrefix = (trialEndsAt: string) => `TRIAL_NOTICE#${trialEndsAt}#`;

export const trialNoticeKey = (accountId: string, trialEndsAt: string, threshold: string) => ({
  pk: `ACCOUNT#${accountId}`,
  sk: `${trialNoticePrefix(trialEndsAt)}${threshold}`,
});

export const installPartition = (hostname: string) => `INSTALL#${hostname}`;

export const slotNamePrefix = (system: CustomFieldSystem) => `SLOT_NAME#${system}#`;

export const slotNameKey = (hostname: string, system: CustomFieldSystem, apiName: string) => ({
  pk: installPartition(hostname),
  sk: `${slotNamePrefix(system)}${apiName}`,
});

export const slotNumberKey = (hostname: string, system: CustomFieldSystem, slot: number) => ({
  pk: installPartition(hostname),
  sk: `SLOT_NUMBER#${system}#${String(slot).padStart(3, '0')}`,
});

export const LOCATION_PREFIX = 'LOCATION#';

export const locationKey = (hostname: string, locationRef: string) => ({
  pk: installPartition(hostname),
  sk: `${LOCATION_PREFIX}${locationRef}`,
});

export const awardKey = (hostname: string, awardCode: string) => ({
  pk: installPartition(hostname),
  sk: `AWARD#${awardCode}`,
});

/** One bucket of the shared request budget (request-budget.ts): `root#US`, `install#<hostname>`, `all`. */
export const requestBudgetKey = (bucket: string) => ({ pk: `BUDGET#${bucket}`, sk: 'BUDGET' });

/** Reference data of one install cached as one item per kind (reference-cache.ts). */
/** `STATES#<countryId>`: the states of one country, read with `Country eq id`. */
export type ReferenceCacheKind = 'COUNTRIES' | 'STATES' | `STATES#${number}`;

export const referenceCacheKey = (hostname: string, kind: ReferenceCacheKind) => ({
  pk: installPartition(hostname),
  sk: `REFERENCE#${kind}`,
});

export const payRateApplicationKey = (hostname: string, eventId: string) => ({
  pk: installPartition(hostname),
  sk: `PAY_RATE_APPLICATION#${eventId}`,
});

/** The PayReturnsCompleted of one PayReturnsRequested event (pay-return-completions.ts). */
export const payReturnsCompletedKey = (hostname: string, eventId: string) => ({
  pk: installPartition(hostname),
  sk: `PAY_RETURNS_COMPLETED#${eventId}`,
});

export const TIMESHEET_FIELD_PREFIX = 'TIMESHEET_FIELD#';

export const timesheetFieldKey = (hostname: string, apiName: string) => ({
  pk: installPartition(hostname),
  sk: `${TIMESHEET_FIELD_PREFIX}${apiName}`,
});

export const payRateBulkKey = (hostname: string, eventId: string) => ({
  pk: installPartition(hostname),
  sk: `PAY_RATE_BULK#${eventId}`,
});

export const POSITION_PREFIX = 'POSITION#';

/**
 * The position (occurredAt, event id) of the last event applied to one thing of an install
 * (positions.ts): `plan`, `employee#<id>#...`, `budget#...`, `location#<locationRef>`.
 */
export const positionKey = (hostname: string, thing: string) => ({
  pk: installPartition(hostname),
  sk: `${POSITION_PREFIX}${thing}`,
});

/** The retry budget of one SQS message on one route (record-attempts.ts). */
export const recordAttemptsKey = (route: string, messageId: string) => ({
  pk: `RECORD#${messageId}`,
  sk: `ATTEMPTS#${route}`,
});

/** That an event with this detail-type and detail was applied (applied-events.ts). */
export const appliedEventKey = (detailType: string, contentDigest: string) => ({
  pk: `APPLIED#${detailType}#${contentDigest}`,
  sk: 'APPLIED',
});

export const trialShardValue = (shard: number) => `TRIAL_SHARD#${String(shard).padStart(2, '0')}`;

/** Stable across processes and deployments (unlike a seeded hash), so a business never moves shard. */
export function trialShardOf(accountId: string): string {
  const digest = createHash('sha256').update(accountId).digest();
  return trialShardValue(digest.readUInt32BE(0) % TRIAL_SHARD_COUNT);
}

export const allTrialShards = (): string[] =>
  Array.from({ length: TRIAL_SHARD_COUNT }, (_, shard) => trialShardValue(shard));

/** What the drift watch announced for a business (drift-notices.ts): `GONE#<hostname>` or `EDITION#<since>#<edition>`. */
export const driftNoticeKey = (accountId: string, notice: string) => ({
  pk: `ACCOUNT#${accountId}`,
  sk: `DRIFT_NOTICE#${notice}`,
});

export const driftShardValue = (shard: number) => `DRIFT_SHARD#${String(shard).padStart(2, '0')}`;

/** Stable like trialShardOf: a business never moves drift shard. */
export function driftShardOf(accountId: string): string {
  const digest = createHash('sha256').update(accountId).digest();
  return driftShardValue(digest.readUInt32BE(0) % DRIFT_SHARD_COUNT);
}

/**
 * UNCONFIRMED signups sit in the drift index too, in a partition the drift watch never reads: the
 * list of unconfirmed signups (and its dashboard count) is one Query, not a scan.
 */
export const UNCONFIRMED_SIGNUPS_SHARD = 'DRIFT_SHARD#UNCONFIRMED';

export const allDriftShards = (): string[] =>
  Array.from({ length: DRIFT_SHARD_COUNT }, (_, shard) => driftShardValue(shard));
