import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { type Claim, claimMarker, reclaimMarker, releaseMarker } from './claims.ts';
import { payRateBulkKey } from './keys.ts';
import { PAY_RATE_APPLICATION_TTL_SECONDS } from './pay-rate-applications.ts';
import { epochSeconds, normalizeTimestamp, type Store } from './store.ts';

/**
 * Guard for the bulk assignment of a PayRateAssigned's agreement (employees:bulk, whose effect on
 * a repeat the spec does not show): one marker per (install, event), written before the call and
 * holding every employee's outcome after it, so a redelivery answers from the marker instead of
 * assigning again, and no employee's outcome is lost between the call and the answer event.
 *
 * ASSIGNING: the call may or may not have reached the service (`callMayHaveBeenSent` set right
 * before it is sent). ASSIGNED: `results` holds one outcome per employee of the call.
 */

const resultSchema = z.discriminatedUnion('applied', [
  z.object({
    employeeId: z.number().int(),
    applied: z.literal(true),
    agreementId: z.union([z.number(), z.string()]).optional(),
  }),
  z.object({
    employeeId: z.number().int(),
    applied: z.literal(false),
    code: z.string(),
    message: z.string(),
  }),
]);
export type BulkOutcome = z.infer<typeof resultSchema>;

const markerSchema = z
  .object({
    status: z.enum(['ASSIGNING', 'ASSIGNED']),
    eventId: z.string(),
    claimedAt: z.string(),
    agreementId: z.union([z.number(), z.string()]),
    employeeIds: z.array(z.number().int()),
    callMayHaveBeenSent: z.boolean().optional(),
    results: z.array(resultSchema).optional(),
  })
  .transform(({ callMayHaveBeenSent, ...marker }) => ({
    ...marker,
    callMayHaveBeenSent: callMayHaveBeenSent === true,
  }));
export type PayRateBulkMarker = z.infer<typeof markerSchema>;

export async function getPayRateBulk(
  store: Store,
  hostname: string,
  eventId: string,
): Promise<PayRateBulkMarker | undefined> {
  const { Item } = await store.doc.send(
    new GetCommand({
      TableName: store.tableName,
      Key: payRateBulkKey(hostname, eventId),
      ConsistentRead: true,
    }),
  );
  return Item ? markerSchema.parse(Item) : undefined;
}

/** Only the first runner per (install, event) may send the bulk call; others get the marker. */
export function claimPayRateBulk(
  store: Store,
  hostname: string,
  intent: { eventId: string; agreementId: number | string; employeeIds: readonly number[]; at: Date },
): Promise<Claim<PayRateBulkMarker>> {
  return claimMarker(
    store,
    {
      ...payRateBulkKey(hostname, intent.eventId),
      type: 'PayRateBulk',
      hostname,
      status: 'ASSIGNING',
      eventId: intent.eventId,
      claimedAt: normalizeTimestamp(intent.at),
      agreementId: intent.agreementId,
      employeeIds: [...intent.employeeIds],
      ttl: epochSeconds(intent.at) + PAY_RATE_APPLICATION_TTL_SECONDS,
    },
    {
      parse: (item) => markerSchema.parse(item),
      read: () => getPayRateBulk(store, hostname, intent.eventId),
    },
  );
}

/**
 * Marks the ASSIGNING marker "the call may have been sent", with a new claim time, right before
 * the call; false when the marker changed since it was read (the caller must not call then).
 */
export function markPayRateBulkSending(
  store: Store,
  hostname: string,
  held: Pick<PayRateBulkMarker, 'eventId' | 'claimedAt'>,
  at: Date,
): Promise<boolean> {
  return reclaimMarker(
    store,
    { key: payRateBulkKey(hostname, held.eventId) },
    { claimedStatus: 'ASSIGNING', eventId: held.eventId, claimedAt: held.claimedAt },
    { eventId: held.eventId, claimedAt: normalizeTimestamp(at), extra: { callMayHaveBeenSent: true } },
  );
}

/** Records every employee's outcome; a redelivery answers from them. */
export async function recordPayRateBulkAssigned(
  store: Store,
  hostname: string,
  eventId: string,
  results: readonly BulkOutcome[],
): Promise<void> {
  await store.doc.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: payRateBulkKey(hostname, eventId),
      UpdateExpression: 'SET #status = :assigned, results = :results',
      ConditionExpression: 'eventId = :eventId',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':assigned': 'ASSIGNED', ':results': results, ':eventId': eventId },
    }),
  );
}

/** Drops the ASSIGNING marker when the call certainly assigned nothing, so a retry may claim again. */
export function releasePayRateBulk(store: Store, hostname: string, eventId: string): Promise<boolean> {
  return releaseMarker(
    store,
    { key: payRateBulkKey(hostname, eventId) },
    { claimedStatus: 'ASSIGNING', eventId },
  );
}
