import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { type Claim, claimMarker, reclaimMarker, recordMarkerId, releaseMarker } from './claims.ts';
import { payRateApplicationKey } from './keys.ts';
import { epochSeconds, normalizeTimestamp, type Store } from './store.ts';

/**
 * Guard for setAwardFromLibrary, the one employee write the service does not make idempotent:
 * every call creates a new agreement. An intent marker is written per (install, event id) before
 * the call and the agreement id after it, so a redelivery of the same EmployeeChanged reuses the
 * recorded agreement instead of creating a second one.
 *
 * APPLYING: the call may or may not have reached the service. APPLIED: agreementId is known.
 * `callMayHaveBeenSent` is set on the APPLYING marker right before the call is sent: without it
 * the call was never sent, so a retry sends it without reconciling first.
 */

/** Longer than any redelivery window (SQS retention is at most 14 days). */
export const PAY_RATE_APPLICATION_TTL_SECONDS = 30 * 24 * 60 * 60;

const applicationSchema = z
  .object({
    status: z.enum(['APPLYING', 'APPLIED']),
    eventId: z.string(),
    employeeId: z.number().int(),
    awardCode: z.string(),
    claimedAt: z.string(),
    agreementId: z.union([z.number(), z.string()]).optional(),
    callMayHaveBeenSent: z.boolean().optional(),
  })
  .transform(({ callMayHaveBeenSent, ...marker }) => ({
    ...marker,
    callMayHaveBeenSent: callMayHaveBeenSent === true,
  }));

export type PayRateApplication = z.infer<typeof applicationSchema>;

export type PayRateClaim = Claim<PayRateApplication>;

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
  return claimMarker(
    store,
    {
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
    {
      parse: (item) => applicationSchema.parse(item),
      read: () => getPayRateApplication(store, hostname, intent.eventId),
    },
  );
}

/** Records the agreement the service created; the same id again is a no-op. */
export async function recordPayRateApplied(
  store: Store,
  hostname: string,
  eventId: string,
  agreementId: number | string,
): Promise<void> {
  await recordMarkerId(
    store,
    { key: payRateApplicationKey(hostname, eventId) },
    { status: 'APPLIED', idAttribute: 'agreementId', id: agreementId },
  );
}

/** Drops this event's APPLYING marker when the call certainly created nothing, so a retry may claim again. */
export async function releasePayRateClaim(store: Store, hostname: string, eventId: string): Promise<boolean> {
  return releaseMarker(
    store,
    { key: payRateApplicationKey(hostname, eventId) },
    { claimedStatus: 'APPLYING', eventId },
  );
}

/**
 * Marks this event's APPLYING marker "the call may have been sent", with a new claim time, right
 * before the call is sent (a fresh claim, or an earlier attempt found to have created nothing).
 * False when the marker changed since it was read; the caller must not call then.
 */
export async function reclaimPayRateApplication(
  store: Store,
  hostname: string,
  held: Pick<PayRateApplication, 'eventId' | 'claimedAt'>,
  at: Date,
): Promise<boolean> {
  return reclaimMarker(
    store,
    { key: payRateApplicationKey(hostname, held.eventId) },
    { claimedStatus: 'APPLYING', eventId: held.eventId, claimedAt: held.claimedAt },
    { eventId: held.eventId, claimedAt: normalizeTimestamp(at), extra: { callMayHaveBeenSent: true } },
  );
}
