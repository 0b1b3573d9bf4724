/**
 * Which inbound events a route can take at all. Two things must hold, or no route ever sees the
 * event and the refusal rule answers it with a SyncFailed instead:
 *
 * - its detail-type is one a route handles;
 * - its `detail.accountId` can be an SQS message group id, because the intake pipe sends it to the
 *   route's FIFO queue with MessageGroupId = accountId. SendMessage API reference: "The maximum
 *   length of MessageGroupId is 128 characters. Valid values: alphanumeric characters and
 *   punctuation (!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~)."
 *
 * The refusal function (functions/refuse-unroutable) and the route decoders use this one rule, so
 * an event is refused exactly once, by the refusal rule, whatever reaches a route.
 *
 * An event pattern cannot say "a valid message group id" (no regular expressions), so a route rule
 * also takes an event whose accountId exists but is no group id: the pipe cannot forward it, and
 * after the intake queue's receives it lands in the route's intake dead-letter queue, which the
 * refusal function also reads. It answers such an event with this same rule (idempotent on the
 * event id: the partner hears once), and a routable event found there with INTAKE_UNDELIVERABLE.
 */

/**
 * The SendMessage rule as a pattern: 0x21-0x7e is every printable ASCII character but the space,
 * i.e. exactly the letters, digits and the 32 punctuation characters the API reference lists
 * (SQS API Reference, SendMessage, MessageGroupId:
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html).
 */
export const MESSAGE_GROUP_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
export const MESSAGE_GROUP_ID_RULE =
  '1-128 ASCII letters, digits or punctuation characters (no spaces), as an SQS message group id takes';

export type RefusalCode = 'UNKNOWN_DETAIL_TYPE' | 'MISSING_ACCOUNT_ID' | 'INVALID_ACCOUNT_ID';

/**
 * SyncFailed code for a routable event that an intake dead-letter queue holds: EventBridge could
 * not deliver it to the route's intake queue, or the pipe could not forward it to the FIFO queue
 * (its role, a deleted queue, retries run out). The operator fixes the cause; the event is kept in
 * the route's dead-letter queue for `npm run redrive`.
 */
export const INTAKE_UNDELIVERABLE = 'INTAKE_UNDELIVERABLE';

export interface Unroutable {
  readonly code: RefusalCode;
  /** Names the field and the rule, never the offending value. */
  readonly message: string;
}

export function unroutableReason(
  detailType: string,
  detail: Readonly<Record<string, unknown>>,
  routedDetailTypes: readonly string[],
): Unroutable | undefined {
  if (!routedDetailTypes.includes(detailType)) {
    return {
      code: 'UNKNOWN_DETAIL_TYPE',
      message: `detail-type: no route handles it (expected one of ${routedDetailTypes.join(', ')})`,
    };
  }
  const accountId = detail['accountId'];
  if (accountId === undefined || accountId === null) {
    return { code: 'MISSING_ACCOUNT_ID', message: 'detail.accountId: required' };
  }
  if (typeof accountId !== 'string' || !MESSAGE_GROUP_ID_PATTERN.test(accountId)) {
    return { code: 'INVALID_ACCOUNT_ID', message: `detail.accountId: expected ${MESSAGE_GROUP_ID_RULE}` };
  }
  return undefined;
}
