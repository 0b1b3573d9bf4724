import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { payRateApplicationKey } from './keys.ts';
import {
  conflictingItem,
  epochSeconds,
  isConditionalCheckFailure,
  normalizeTimestamp,
  type Store,
} from './store.ts';

/**
 * Guard for setAwardFromLibrary, the one employee write the service does not make idempotent:
 * every call creates a new agreement. An intent marker is written per (install, event id) before
 * the call and the agreement id after it, so a redelivery of the same EmployeeChanged reuses the
 * recorded agreement instead of creating a second one.
 *
 * APPLYING: the call may or may not have reached the service. APPLIED: agreementId is known.
 */

/** Longer than any redelivery window (SQS retention is at most 14 days). */
export const PAY_RATE_APPLICATION_TTL_SECONDS = 30 * 24 * 60 * 60;


const applicationSchema = z.object({
  status: z.enum(['APPLYING', 'APPLIED']),
  eventId: z.string(),
  employeeId: z.number().int(),
  awardCode: z.string(),
  claimedAt: z.string(),
  agreementId: z.union([z.number(), z.string()]).optional(),
});

export type PayRateApplication = z.infer<typeof applicationSchema>;

export type PayRateClaim = { claimed: true } | { claimed: false; existing: PayRateApplication };

export async function getPayRateApplication(
  store: Store,
  hostname: string,
  eventId: string,
): Promise<PayRateApplication | undefined> {
  const { Item } = await store.doc.send(
    new GetCommand({
      TableName: store.tableName,
      Key: payRateApplicationKey(hostname, eventId),
      ConsistentRead: true,
    }),
  );
  return Item ? applicationSchema.parse(Item) : undefined;
}

/** Only the first caller per (install, event) may call setAwardFromLibrary; others get the marker. */
export async function claimPayRateApplication(
  store: Store,
  hostname: string,
  intent: { eventId: string; employeeId: number; awardCode: string; at?: Date },
): Promise<PayRateClaim> {
  const at = intent.at ?? new Date();
  try {
    await store.doc.send(
      new PutCommand({
        TableName: store.tableName,
        Item: {
          ...payRateApplicationKey(hostname, intent.eventId),
          type: 'PayRateApplication',
          hostname,
          status: 'APPLYING',
          eventId: intent.eventId,
          employeeId: intent.employeeId,
          awardCode: intent.awardCode,
          claimedAt: normalizeTimestamp(at),
          ttl: epochSeconds(at) + PAY_RATE_APPLICATION_TTL_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { claimed: true };
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
    const held = conflictingItem(error.Item);
    const existing = held
      ? applicationSchema.parse(held)
      : await getPayRateApplication(store, hostname, intent.eventId);
    if (!existing) return claimPayRateApplication(store, hostname, intent);
    return { claimed: false, existing };
  }
}

/** Records the agreement the service created; the same id again is a no-op. */
export async function recordPayRateApplied(
  store: Store,
  hostname: string,
  eventId: string,
  agreementId: number | string,
): Promise<void> {
  await store.doc.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: payRateApplicationKey(hostname, eventId),
      UpdateExpression: 'SET #status = :applied, agreementId = :agreementId',
      ConditionExpression:
        'attribute_exists(pk) AND (attribute_not_exists(agreementId) OR agreementId = :agreementId)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':applied': 'APPLIED', ':agreementId': agreementId },
    }),
  );
}

/** Drops this event's APPLYING marker when the call certainly created nothing, so a retry may claim again. */
export async function releasePayRateClaim(store: Store, hostname: string, eventId: string): Promise<boolean> {
  try {
    await store.doc.send(
      new DeleteCommand({
        TableName: store.tableName,
        Key: payRateApplicationKey(hostname, eventId),
        ConditionExpression: '#status = :applying',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':applying': 'APPLYING' },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}
