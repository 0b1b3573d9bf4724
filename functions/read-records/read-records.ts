import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type {
  RecordCondition,
  RecordsRequestedDetail,
} from '#functions/contracts/inbound/records-requested.ts';
import type { RecordsReportedDetail } from '#functions/contracts/outbound/records-reported.ts';
import {
  compareRecordIds,
  decodeCursor,
  encodeCursor,
  type RecordId,
} from '#functions/contracts/records-cursor.ts';
import { PermanentError, ServiceRejectedError } from '#functions/domain/errors.ts';
import { provisionedBusinessOf } from '#functions/domain/provisioned-business.ts';
import { serviceRejection } from '#functions/domain/service-rejection.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import { detailRoomBytes, splitIntoParts } from '#functions/publisher/split-answer.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import type { UseCaseInput } from '#functions/runtime/use-case.ts';
import type { QueryCondition } from '#functions/service/install-query.ts';
import { recordSyncSuccess } from '#functions/store/business.ts';

const DETAIL_TYPE = 'RecordsReported';

/** The runtime fills causationId with the inbound event id; set here so that the split measures it. */
type AnswerDetail = Omit<RecordsReportedDetail, 'causationId'>;

/** Every record the install API answers carries an `Id` (its records' common fields). */
const installRecord = z.looseObject({ Id: z.union([z.int(), z.string().min(1)]) });
type InstallRecord = z.output<typeof installRecord>;

/** A resource the deployment does not let partners read: no retry changes that. */
export class UnknownResourceError extends PermanentError {
  constructor(resource: string, allowed: readonly string[]) {
    super(
      'UNKNOWN_RESOURCE',
      `resource ${resource} is not one the connector reads; the resources are ${allowed.join(', ')} (serviceAssumptions.recordResources)`,
    );
  }
}

/**
 * reportRecords — RecordsRequested → one QUERY of the resource → one page of RecordsReported.
 *
 * Input: the RecordsRequested detail (accountId, resource, where?, cursor?, pageSize).
 * Output: `RecordsReported` {hostname, resource, where?, cursor?, records, nextCursor?, answerId,
 * part, parts}: the page's records split over parts that each fit one event.
 *
 * Steps:
 * 1. The resource's QUERY name from serviceAssumptions.recordResources; another resource →
 *    SyncFailed UNKNOWN_RESOURCE naming the allowed ones.
 * 2. Resolve the account's install from the table (provisionedBusinessOf).
 * 3. One QUERY (queryComplete) with one of the conditions: the first `eq`, else the first `lk`,
 *    else none. How several conditions combine is not shown, so only one is sent; every
 *    condition is then matched here (`lk` may answer more than asked: the spec-faithful reading
 *    is "contains"). An answer that reaches serviceAssumptions.queryMaxRecords may be cut →
 *    SyncFailed QUERY_LIMIT_REACHED (a narrower `where`, an `eq` first, reads fewer). A refusal →
 *    SyncFailed with the service's code.
 * 4. The matching records in id order; those after the cursor's id; the first pageSize of them.
 *    nextCursor (records-cursor.ts) when more match after the page's last.
 * 5. Split the page over parts under EventBridge's entry limit (split-answer.ts).
 */
export async function reportRecords(
  { event, detail }: UseCaseInput<RecordsRequestedDetail>,
  { store, service, clock, config }: Dependencies,
): Promise<OutboundEvent[]> {
  const resources = config.serviceAssumptions.recordResources;
  const queryName = Object.hasOwn(resources, detail.resource) ? resources[detail.resource] : undefined;
  if (queryName === undefined) throw new UnknownResourceError(detail.resource, Object.keys(resources));

  const business = await provisionedBusinessOf(store, detail.accountId);
  const install = service.install(business.hostname);
  const where = detail.where ?? [];
  const sent = serverCondition(where);
  let answer: InstallRecord[];
  try {
    answer = await install.queryComplete(queryName, { conditions: sent ? [sent] : [] }, installRecord);
  } catch (error) {
    if (error instanceof ServiceRejectedError) {
      throw serviceRejection(`reading ${detail.resource} records`, error);
    }
    throw error;
  }

  const after = detail.cursor === undefined ? undefined : cursorPosition(detail);
  const matching = uniqueById(answer.filter((record) => where.every((item) => matches(record, item))))
    .sort((a, b) => compareRecordIds(a.Id, b.Id))
    .filter((record) => after === undefined || compareRecordIds(record.Id, after) > 0);
  const page = matching.slice(0, detail.pageSize);
  const last = page.at(-1);
  const nextCursor =
    matching.length > page.length && last !== undefined ? encodeCursor(detail, last.Id) : undefined;

  const base = {
    accountId: detail.accountId,
    causationId: event.id,
    answerId: randomUUID(),
    hostname: business.hostname,
    resource: detail.resource,
    ...(detail.where ? { where: detail.where } : {}),
    ...(detail.cursor ? { cursor: detail.cursor } : {}),
    ...(nextCursor ? { nextCursor } : {}),
  };
  const parts = splitIntoParts(base, { records: page }, detailRoomBytes(config.outboundSource, DETAIL_TYPE));
  await recordSyncSuccess(store, detail.accountId, clock.now());
  return parts.map((part) => ({ detailType: DETAIL_TYPE, detail: part as unknown as AnswerDetail }));
}

/** The condition sent to the service: an `eq` when there is one (exact in every reading), else an `lk`. */
export function serverCondition(where: readonly RecordCondition[]): QueryCondition | undefined {
  const chosen = where.find((item) => item.op === 'eq') ?? where[0];
  return chosen ? { field: chosen.field, type: chosen.op, data: chosen.value } : undefined;
}

/** The contract checked the cursor; read again here for its position. */
function cursorPosition(detail: RecordsRequestedDetail): RecordId | undefined {
  if (detail.cursor === undefined) return undefined;
  const decoded = decodeCursor(detail.cursor, detail);
  if (!decoded.ok) throw new PermanentError('INVALID_CURSOR', `cursor ${decoded.reason}`);
  return decoded.after;
}

function uniqueById(records: readonly InstallRecord[]): InstallRecord[] {
  const byId = new Map<string, InstallRecord>();
  for (const record of records) byId.set(`${typeof record.Id}:${record.Id}`, record);
  return [...byId.values()];
}

/** A condition as the contract defines it (records-requested.ts), on the record's own field. */
export function matches(record: Record<string, unknown>, condition: RecordCondition): boolean {
  const value = record[condition.field];
  if (condition.op === 'eq') {
    if (value === condition.value) return true;
    const comparable = (candidate: unknown) => typeof candidate === 'number' || typeof candidate === 'string';
    return comparable(value) && comparable(condition.value) && String(value) === String(condition.value);
  }
  if (typeof value !== 'string' && typeof value !== 'number') return false;
  return likeMatches(String(value), String(condition.value));
}

/** `lk`: the whole text, case-insensitive, `%` at the start or end standing for any text. */
function likeMatches(text: string, pattern: string): boolean {
  const value = text.toLowerCase();
  let core = pattern.toLowerCase();
  const open = core.startsWith('%');
  if (open) core = core.slice(1);
  const close = core.endsWith('%');
  if (close) core = core.slice(0, -1);
  if (open && close) return value.includes(core);
  if (open) return value.endsWith(core);
  if (close) return value.startsWith(core);
  return value === core;
}
