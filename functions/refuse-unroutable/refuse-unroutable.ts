import { eventBridgeEnvelope } from '#functions/commons/contracts/envelope.ts';
import type { SyncFailedDetail } from '#functions/commons/contracts/outbound/sync-failed.ts';
import { MESSAGE_GROUP_ID_PATTERN, unroutableReason } from '#functions/commons/contracts/routing.ts';

/**
 * Use case: refuse what no route can take.
 *
 * Input: one event of the inbound source (every one reaches the refusal rule) and the detail-types
 * the deployment routes. Output: the SyncFailed to publish, or `undefined` when a route takes the
 * event (then that route answers it).
 *
 * Steps: read the event envelope; apply the routing rule (contracts/routing.ts); name the event by
 * its EventBridge id, and the account only when its id is one a partner can correlate on.
 */
export type Refusal = { readonly eventId: string; readonly detail: SyncFailedDetail } | undefined;

export function refuseUnroutable(event: unknown, routedDetailTypes: readonly string[]): Refusal {
  const envelope = eventBridgeEnvelope.safeParse(event);
  // A rule target always receives an EventBridge event; anything else is not an inbound event.
  if (!envelope.success) return undefined;
  const { id, detail } = envelope.data;
  const detailType = envelope.data['detail-type'];
  const reason = unroutableReason(detailType, detail, routedDetailTypes);
  if (!reason) return undefined;
  const accountId = detail['accountId'];
  return {
    eventId: id,
    detail: {
      ...(typeof accountId === 'string' && MESSAGE_GROUP_ID_PATTERN.test(accountId) ? { accountId } : {}),
      causationId: id,
      sourceEventId: id,
      detailType,
      code: reason.code,
      message: reason.message,
    },
  };
}
