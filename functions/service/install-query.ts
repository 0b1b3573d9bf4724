/**
 * The install API's QUERY (POST /api/v1/resource/{resource}/QUERY): the conditions and joins a
 * query asks for, the body that asks them, and `lk` matched again on the answer.
 */

export type QueryJoin = 'TimesheetObject' | 'PayRuleObject';

export interface QueryCondition {
  field: string;
  type: 'lk' | 'eq';
  data: string | number | boolean | null;
}

export interface QueryOptions {
  conditions?: QueryCondition[];
  join?: QueryJoin[];
}

/** `lk` read as "contains", case-insensitive, `%` as a wildcard; no name: anything matches. */
export function contains(value: string, name: string | undefined): boolean {
  if (name === undefined) return true;
  const parts = name
    .toLowerCase()
    .split('%')
    .filter((part) => part !== '');
  const text = value.toLowerCase();
  let from = 0;
  for (const part of parts) {
    const at = text.indexOf(part, from);
    if (at < 0) return false;
    from = at + part.length;
  }
  return true;
}

/** `{ search: { s1, s2, ... }, join }`; no body at all when there is nothing to say (all records). */
export function queryBody(options: QueryOptions): Record<string, unknown> | undefined {
  const conditions = options.conditions ?? [];
  const join = options.join ?? [];
  if (conditions.length === 0 && join.length === 0) return undefined;
  const body: Record<string, unknown> = {};
  if (conditions.length > 0) {
    body.search = Object.fromEntries(
      conditions.map((condition, index) => [
        `s${index + 1}`,
        { field: condition.field, type: condition.type, data: condition.data },
      ]),
    );
  }
  if (join.length > 0) body.join = [...join];
  return body;
}
