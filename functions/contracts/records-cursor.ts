import { createHash } from 'node:crypto';

/**
 * The cursor of RecordsRequested / RecordsReported: opaque to the partner, it is base64url of
 * `{"after": <the last record id of the page>, "query": <fingerprint of resource and where>}`.
 * A page holds the matching records with an id after `after` (numbers before strings, numbers by
 * value, strings by their characters), so the next page starts where the last one ended even when
 * records were added or removed in between. The fingerprint ties a cursor to the question it
 * answers: one given with another resource or `where` is refused.
 */

export type RecordId = number | string;

export interface RecordsQuery {
  resource: string;
  where?: ReadonlyArray<{ field: string; op: string; value: unknown }>;
}

export interface CursorContent {
  after: RecordId;
  query: string;
}

/** 16 hex characters of SHA-256 over the resource and the conditions, in the order given. */
export function queryFingerprint(query: RecordsQuery): string {
  const text = JSON.stringify([
    query.resource,
    (query.where ?? []).map((condition) => [condition.field, condition.op, condition.value]),
  ]);
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

export function encodeCursor(query: RecordsQuery, after: RecordId): string {
  const content: CursorContent = { after, query: queryFingerprint(query) };
  return Buffer.from(JSON.stringify(content), 'utf8').toString('base64url');
}

/** The cursor's content, or why it is not one of ours. */
export function decodeCursor(
  cursor: string,
  query: RecordsQuery,
): { ok: true; after: RecordId } | { ok: false; reason: string } {
  let content: unknown;
  try {
    content = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'is not a cursor of a RecordsReported' };
  }
  if (typeof content !== 'object' || content === null) {
    return { ok: false, reason: 'is not a cursor of a RecordsReported' };
  }
  const { after, query: fingerprint } = content as Record<string, unknown>;
  const usableId =
    (typeof after === 'number' && Number.isFinite(after)) || (typeof after === 'string' && after !== '');
  if (!usableId || typeof fingerprint !== 'string') {
    return { ok: false, reason: 'is not a cursor of a RecordsReported' };
  }
  if (fingerprint !== queryFingerprint(query)) {
    return {
      ok: false,
      reason: 'belongs to another resource or where: give the same ones as the first page',
    };
  }
  return { ok: true, after };
}

/** Ids in page order: numbers before strings, numbers by value, strings by code unit. */
export function compareRecordIds(a: RecordId, b: RecordId): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
