import { eventBridgeEnvelope, PIPE_INPUT_TEMPLATE } from '#functions/contracts/envelope.ts';
import type { SyncFailedDetail } from '#functions/contracts/outbound/sync-failed.ts';
import {
  INTAKE_UNDELIVERABLE,
  MESSAGE_GROUP_ID_PATTERN,
  unroutableReason,
} from '#functions/contracts/routing.ts';
import type { DeadLetterCopy } from '#functions/runtime/route-queue.ts';

/**
 * Use cases of the refusal function: refuse what no route can take, and answer what an intake
 * dead-letter queue holds, so that no inbound event stays parked there unanswered.
 *
 * refuseUnroutable — input: one event of the inbound source (every one reaches the refusal rule)
 * and the detail-types the deployment routes. Output: the SyncFailed to publish, or `undefined`
 * when a route takes the event (then that route answers it). Steps: read the event envelope; apply
 * the routing rule (contracts/routing.ts); name the event by its EventBridge id, and the account
 * only when its id is one a partner can correlate on.
 *
 * answerIntakeDeadLetter — input: the body of a message of a route's intake dead-letter queue
 * (the EventBridge event: EventBridge sends an event it could not deliver to the rule target's
 * dead-letter queue as it is, and an SQS redrive moves the intake message, whose body is the event,
 * unchanged) and what EventBridge said about it. Output: a refusal (the event no route can take,
 * e.g. an accountId that is no message group id: the pipe could never forward it), a routable
 * event to report INTAKE_UNDELIVERABLE and keep in the route's dead-letter queue in the shape the
 * pipe would have written, or an unreadable message.
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

/** What EventBridge adds to a message it puts in a rule target's dead-letter queue (absent after an SQS redrive). */
export interface IntakeDelivery {
  /** ERROR_CODE, e.g. SQS_PERMISSION_ERROR. */
  readonly errorCode?: string;
  /** ERROR_MESSAGE. Kept for the operator (dead-letter attributes), never put in a SyncFailed. */
  readonly errorMessage?: string;
}

/**
 * The route-DLQ copy of a routable intake dead letter, exactly as the intake pipe would have
 * written it on the FIFO queue (body `{"event": <the event>}`, group id = account id, deduplication
 * id = event id); the route's function never had it, so the handler adds no attempts.
 */
export type UndeliverableCopy = Omit<DeadLetterCopy, 'attempts' | 'receiveCount' | 'at'>;

export type IntakeDeadLetterAnswer =
  | { readonly kind: 'refused'; readonly refusal: NonNullable<Refusal> }
  | {
      readonly kind: 'undeliverable';
      readonly eventId: string;
      readonly detailType: string;
      readonly syncFailed: SyncFailedDetail;
      readonly copy: UndeliverableCopy;
    }
  | { readonly kind: 'unreadable'; readonly reason: string };

export function answerIntakeDeadLetter(
  body: string,
  delivery: IntakeDelivery,
  routedDetailTypes: readonly string[],
): IntakeDeadLetterAnswer {
  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch {
    return { kind: 'unreadable', reason: 'the body is not JSON' };
  }
  const envelope = eventBridgeEnvelope.safeParse(event);
  if (!envelope.success) return { kind: 'unreadable', reason: 'the body is not an EventBridge event' };
  const refusal = refuseUnroutable(envelope.data, routedDetailTypes);
  if (refusal) return { kind: 'refused', refusal };

  // Routable: the accountId is a valid message group id and a route handles the detail-type.
  const { id } = envelope.data;
  const detailType = envelope.data['detail-type'];
  const accountId = envelope.data.detail['accountId'] as string;
  const cause =
    delivery.errorCode === undefined
      ? 'the intake pipe could not forward it to the FIFO queue'
      : `EventBridge could not deliver it to the intake queue (${delivery.errorCode})`;
  const kept = `It is kept in the ${detailType} dead-letter queue for a redrive once the cause is fixed.`;
  return {
    kind: 'undeliverable',
    eventId: id,
    detailType,
    syncFailed: {
      accountId,
      causationId: id,
      sourceEventId: id,
      detailType,
      code: INTAKE_UNDELIVERABLE,
      message: `not delivered to its route: ${cause}. ${kept}`,
    },
    copy: {
      // The body as it is, not re-serialized: the route reads the event the partner published. (A
      // function replacement: a string one would read `$&` and the like inside the body.)
      body: PIPE_INPUT_TEMPLATE.replace('<$.body>', () => body),
      groupId: accountId,
      deduplicationId: id,
      code: INTAKE_UNDELIVERABLE,
      message:
        delivery.errorCode === undefined
          ? `${cause} (the intake queue's receives ran out; see the pipe's log group)`
          : `${cause}: ${delivery.errorMessage ?? 'no message'}`,
    },
  };
}
