import { eventBridgeEnvelope, PIPE_EVENT_KEY } from './envelope.ts';
import { describeIssues } from './issues.ts';
import type { EventContract, InboundDetail, InboundDetailType, inboundContracts } from './registry.ts';
import { type RefusalCode, unroutableReason } from './routing.ts';

/**
 * Decoding of inbound SQS bodies without the contract registry: a route's handler gives the one
 * contract it consumes, so its bundle builds that schema only (zod schemas are constructed when
 * their module loads, and that dominated the connector's own share of a cold start).
 * Every route's handler decodes with it (the bench and the tests too).
 */

/**
 * The registry's inbound detail-types, in its order, as plain names: telling "another route's
 * event" from "no such event" must not load every contract.
 */
export const INBOUND_DETAIL_TYPES = [
  'AccountCreated',
  'PlanChosen',
  'SubscriptionStatusRequested',
  'EmployeeChanged',
  'LocationCreated',
  'BudgetSet',
  'PayReturnsRequested',
  'PayRatesRequested',
  'ReferenceDataRequested',
  'RecordsRequested',
  'TimesheetFieldsDefined',
  'PayRateAssigned',
] as const satisfies readonly InboundDetailType[];

/**
 * EventBridge refuses entries over 256 KiB, so a larger detail did not come through the bus
 * as a partner event; refusing it before validation also bounds the work spent on it.
 */
export const MAX_DETAIL_BYTES = 256 * 1024;

/** An inbound contract module, with the schema type the registry gives its detail-type. */
export type InboundContract<K extends InboundDetailType = InboundDetailType> = EventContract<K> & {
  readonly schema: (typeof inboundContracts)[K]['schema'];
};

export type InboundEvent = {
  [K in InboundDetailType]: {
    id: string;
    detailType: K;
    source: string;
    time: string;
    detail: InboundDetail<K>;
    /** Set on an event EventBridge replays from the archive (its `replay-name`). */
    replayName?: string;
  };
}[InboundDetailType];

export type DecodeFailureCode =
  | 'INVALID_JSON'
  | 'INVALID_ENVELOPE'
  | RefusalCode
  | 'UNEXPECTED_SOURCE'
  | 'INVALID_DETAIL'
  | 'DETAIL_TOO_LARGE'
  /** An inbound detail-type of another route (route decoders only). */
  | 'WRONG_ROUTE';

export interface DecodeFailure {
  ok: false;
  code: DecodeFailureCode;
  /** Names fields and limits, never the offending values. */
  message: string;
  /**
   * The refusal rule answers this event itself (no usable accountId, no route): a route that
   * receives it anyway acknowledges it without a second SyncFailed.
   */
  refusedByRule?: boolean;
  eventId?: string;
  detailType?: string;
  accountId?: string;
}

export type DecodeResult = { ok: true; event: InboundEvent } | DecodeFailure;

export interface DecodeOptions {
  /** The configured inbound source; events from any other source are refused. */
  source: string;
}

/** Ids are echoed into SyncFailed events and logs, so only id-shaped strings are. */
const idShape = /^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,127}$/;

function idOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && idShape.test(value) ? value : undefined;
}

function failure(
  code: DecodeFailureCode,
  message: string,
  known: Partial<DecodeFailure> = {},
): DecodeFailure {
  const result: DecodeFailure = { ok: false, code, message };
  if (known.eventId !== undefined) result.eventId = known.eventId;
  if (known.detailType !== undefined) result.detailType = known.detailType;
  if (known.accountId !== undefined) result.accountId = known.accountId;
  return result;
}

function byteLength(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    // Only a structure too deep to serialize gets here; it is certainly not a valid detail.
    return Number.POSITIVE_INFINITY;
  }
}

function isInboundDetailTypeName(value: string): value is InboundDetailType {
  return (INBOUND_DETAIL_TYPES as readonly string[]).includes(value);
}

/**
 * Decodes one route FIFO message body (`{"event": <EventBridge event>}`, as the intake pipe writes
 * it) with the contract `contractOf` gives for its detail-type; `undefined` means the detail-type
 * belongs to another route (WRONG_ROUTE). Never throws: a batch handler turns a failure into a
 * SyncFailed event and acknowledges the record, because retrying cannot fix it.
 */
function decodeWithContracts(
  body: string,
  opts: DecodeOptions,
  contractOf: (detailType: InboundDetailType) => InboundContract | undefined,
): DecodeResult {
  let wrapper: unknown;
  try {
    wrapper = JSON.parse(body);
  } catch {
    return failure('INVALID_JSON', 'body is not valid JSON');
  }
  const parsed =
    typeof wrapper === 'object' && wrapper !== null && !Array.isArray(wrapper)
      ? (wrapper as Record<string, unknown>)[PIPE_EVENT_KEY]
      : undefined;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return failure(
      'INVALID_ENVELOPE',
      `body: expected the intake pipe's message {"${PIPE_EVENT_KEY}": <EventBridge event>}`,
    );
  }

  const envelope = eventBridgeEnvelope.safeParse(parsed);
  if (!envelope.success) {
    const raw = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
    return failure('INVALID_ENVELOPE', describeIssues(envelope.error.issues) || 'not an EventBridge event', {
      eventId: idOrUndefined(raw['id']),
      detailType: idOrUndefined(raw['detail-type']),
    });
  }

  const { id, source, time, detail } = envelope.data;
  const detailType = envelope.data['detail-type'];
  const known = {
    eventId: idOrUndefined(id),
    detailType: idOrUndefined(detailType),
    accountId: idOrUndefined(detail['accountId']),
  };

  if (source !== opts.source) {
    return failure('UNEXPECTED_SOURCE', `source: not the configured inbound source "${opts.source}"`, known);
  }
  const unroutable = unroutableReason(detailType, detail, INBOUND_DETAIL_TYPES);
  if (unroutable || !isInboundDetailTypeName(detailType)) {
    const refused = unroutable ?? { code: 'UNKNOWN_DETAIL_TYPE' as const, message: 'detail-type: no route' };
    return { ...failure(refused.code, refused.message, known), refusedByRule: true };
  }
  if (Buffer.byteLength(body, 'utf8') > MAX_DETAIL_BYTES && byteLength(detail) > MAX_DETAIL_BYTES) {
    return failure('DETAIL_TOO_LARGE', `detail: larger than ${MAX_DETAIL_BYTES} bytes`, known);
  }

  const contract = contractOf(detailType);
  if (contract === undefined) {
    return failure('WRONG_ROUTE', `detail-type ${detailType} belongs to another route`, known);
  }
  const result = contract.schema.safeParse(detail);
  if (!result.success) {
    return failure('INVALID_DETAIL', describeIssues(result.error.issues, 'detail'), known);
  }
  // The contract parsed by this detail-type produced this detail, so the pairing holds.
  const event = { id, detailType, source, time, detail: result.data } as InboundEvent;
  const replayName = (envelope.data as Record<string, unknown>)['replay-name'];
  if (typeof replayName === 'string' && replayName !== '') event.replayName = replayName;
  return { ok: true, event };
}

/**
 * A decoder for the contracts a route takes (a handler passes its one contract; tools and tests may
 * pass several): their events decode, every other inbound one is WRONG_ROUTE.
 */
export function createRouteDecoder(
  contracts: InboundContract | readonly InboundContract[],
): (body: string, opts: DecodeOptions) => DecodeResult {
  const list: readonly InboundContract[] = Array.isArray(contracts)
    ? contracts
    : [contracts as InboundContract];
  const byType = new Map<string, InboundContract>(list.map((contract) => [contract.detailType, contract]));
  return (body, opts) => decodeWithContracts(body, opts, (detailType) => byType.get(detailType));
}
