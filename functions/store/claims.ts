import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conflictingItem, isConditionalCheckFailure, type Store } from './store.ts';

/**
 * The intent-marker protocol shared by the guards of non-idempotent service calls (signup,
 * location and area creates, pay-rate applications): claim a marker before the call, record the
 * service's id after it, or release the marker when the call certainly did nothing. Keys come
 * from keys.ts; this module only knows where a marker sits and which status it carries.
 */

export type Claim<T> = { claimed: true } | { claimed: false; existing: T };

export interface TableKey {
  pk: string;
  sk: string;
}

/** A marker is a whole item, or a map entry nested in one (an area inside its location). */
export interface MarkerRef {
  key: TableKey;
  nested?: { path: string; names: Record<string, string> };
}

/**
 * Runs a conditional write: true when it was written, false when its condition did not hold.
 * Any other failure propagates.
 */
export async function writeIfConditionHolds(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}

/**
 * Puts `marker` unless its key is taken; only the first caller gets `claimed: true`. Others get
 * the marker they lost to: from the failed put when DynamoDB returns it, else read again.
 */
export async function claimMarker<T>(
  store: Store,
  marker: TableKey & Record<string, unknown>,
  held: { parse: (item: Record<string, unknown>) => T; read: () => Promise<T | undefined> },
): Promise<Claim<T>> {
  for (;;) {
    try {
      await store.doc.send(
        new PutCommand({
          TableName: store.tableName,
          Item: marker,
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { claimed: true };
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      const returned = conflictingItem(error.Item);
      const existing = returned ? held.parse(returned) : await held.read();
      // Undefined only when the holder released it between our put and our read: claim again.
      if (existing) return { claimed: false, existing };
    }
  }
}

function attributesOf(marker: MarkerRef) {
  const prefix = marker.nested ? `${marker.nested.path}.` : '';
  return {
    prefix,
    existence: marker.nested?.path ?? 'pk',
    names: { '#status': 'status', ...marker.nested?.names },
  };
}

/**
 * Sets the marker's status and the id the service returned. Repeating the same id is a no-op;
 * a missing marker or another recorded id fails the condition, reported as `conflict()` when
 * given, else as DynamoDB's own ConditionalCheckFailedException.
 */
export async function recordMarkerId(
  store: Store,
  marker: MarkerRef,
  recorded: { status: string; idAttribute: string; id: number | string },
  conflict?: () => Error,
): Promise<void> {
  const { prefix, existence, names } = attributesOf(marker);
  const id = `${prefix}${recorded.idAttribute}`;
  try {
    await store.doc.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: marker.key,
        UpdateExpression: `SET ${prefix}#status = :status, ${id} = :id`,
        ConditionExpression: `attribute_exists(${existence}) AND (attribute_not_exists(${id}) OR ${id} = :id)`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':status': recorded.status, ':id': recorded.id },
      }),
    );
  } catch (error) {
    if (conflict && isConditionalCheckFailure(error)) throw conflict();
    throw error;
  }
}

/**
 * Removes the marker while it is still `claimedStatus` and held by `eventId`, so a retry may
 * claim again. False when it is not (or no longer) that event's claim; nothing is removed then.
 */
export function releaseMarker(
  store: Store,
  marker: MarkerRef,
  claim: { claimedStatus: string; eventId: string },
): Promise<boolean> {
  const { prefix, names } = attributesOf(marker);
  const condition = {
    ConditionExpression: `${prefix}#status = :claimed AND ${prefix}eventId = :eventId`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ':claimed': claim.claimedStatus, ':eventId': claim.eventId },
  };
  return writeIfConditionHolds(() =>
    marker.nested
      ? store.doc.send(
          new UpdateCommand({
            TableName: store.tableName,
            Key: marker.key,
            UpdateExpression: `REMOVE ${marker.nested.path}`,
            ...condition,
          }),
        )
      : store.doc.send(new DeleteCommand({ TableName: store.tableName, Key: marker.key, ...condition })),
  );
}

/**
 * Takes over an unfinished marker after its holder's outcome was found out to be "nothing was
 * created": sets the new holder's `eventId` and `claimedAt` (and `extra` attributes) while the
 * marker is still exactly the one that was examined (same status, holder and claim time). Only
 * one of several concurrent reconcilers wins, so only one of them sends the create again.
 */
export function reclaimMarker(
  store: Store,
  marker: MarkerRef,
  held: { claimedStatus: string; eventId: string; claimedAt: string },
  next: { eventId: string; claimedAt: string; extra?: Record<string, unknown> },
): Promise<boolean> {
  const { prefix, names } = attributesOf(marker);
  const extra = Object.entries(next.extra ?? {});
  // The claim time tells holders apart when the event is the same: it must change.
  const claimedAt =
    next.claimedAt === held.claimedAt
      ? new Date(Date.parse(held.claimedAt) + 1).toISOString()
      : next.claimedAt;
  const assignments = [
    `${prefix}eventId = :nextEventId`,
    `${prefix}claimedAt = :nextClaimedAt`,
    ...extra.map((_, index) => `${prefix}#extra${index} = :extra${index}`),
  ];
  return writeIfConditionHolds(() =>
    store.doc.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: marker.key,
        UpdateExpression: `SET ${assignments.join(', ')}`,
        ConditionExpression: `${prefix}#status = :claimed AND ${prefix}eventId = :eventId AND ${prefix}claimedAt = :claimedAt`,
        ExpressionAttributeNames: {
          ...names,
          ...Object.fromEntries(extra.map(([name], index) => [`#extra${index}`, name])),
        },
        ExpressionAttributeValues: {
          ':claimed': held.claimedStatus,
          ':eventId': held.eventId,
          ':claimedAt': held.claimedAt,
          ':nextEventId': next.eventId,
          ':nextClaimedAt': claimedAt,
          ...Object.fromEntries(extra.map(([, value], index) => [`:extra${index}`, value])),
        },
      }),
    ),
  );
}
