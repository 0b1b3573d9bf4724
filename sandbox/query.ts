import { invalid } from './errors.ts';
import { isObject } from './fields.ts';
import type { InstallRecord } from './records.ts';

type Operator = 'lk' | 'eq';

interface Condition {
  field: string;
  type: Operator;
  data: string | number | boolean | null;
}

export interface QueryRequest {
  conditions: Condition[];
  joins: string[];
}

/** Attaches a related object (e.g. TimesheetObject) to one record of the queried resource. */
export type JoinResolver = (record: InstallRecord) => unknown;

export function parseQuery(body: unknown): QueryRequest {
  if (body === undefined || body === null) return { conditions: [], joins: [] };
  if (!isObject(body)) throw invalid('request body must be a JSON object');
  const conditions: Condition[] = [];
  const search = body['search'];
  if (search !== undefined && search !== null) {
    if (!isObject(search)) throw invalid('search must be an object of conditions');
    for (const [name, condition] of Object.entries(search)) {
      if (!isObject(condition)) throw invalid(`search.${name} must be an object`);
      const { field, type, data } = condition;
      if (typeof field !== 'string' || field === '') throw invalid(`search.${name}.field is required`);
      if (type !== 'lk' && type !== 'eq') throw invalid(`search.${name}.type must be lk or eq`);
      if (data === undefined) throw invalid(`search.${name}.data is required`);
      if (
        data !== null &&
        typeof data !== 'string' &&
        typeof data !== 'number' &&
        typeof data !== 'boolean'
      ) {
        throw invalid(`search.${name}.data must be a string, number or boolean`);
      }
      conditions.push({ field, type, data });
    }
  }
  const join = body['join'];
  let joins: string[] = [];
  if (join !== undefined && join !== null) {
    if (!Array.isArray(join) || !join.every((name) => typeof name === 'string')) {
      throw invalid('join must be an array of object names');
    }
    joins = join;
  }
  return { conditions, joins };
}

function matchesLike(value: unknown, pattern: string): boolean {
  if (typeof value !== 'string' && typeof value !== 'number') return false;
  const text = String(value).toLowerCase();
  let core = pattern.toLowerCase();
  const open = core.startsWith('%');
  if (open) core = core.slice(1);
  const close = core.endsWith('%');
  if (close) core = core.slice(0, -1);
  if (open && close) return text.includes(core);
  if (open) return text.endsWith(core);
  if (close) return text.startsWith(core);
  return text === core;
}

/**
 * The spec's `lk`: SQL LIKE, case-insensitive, with an implicit `%` at both ends. `%` anywhere is any
 * run of characters and `_` any one character, so a full name also finds the records that
 * merely contain it ("With `lk`, more than one record can come back even for a full name").
 */
function matchesLikeBroadly(value: unknown, pattern: string): boolean {
  if (typeof value !== 'string' && typeof value !== 'number') return false;
  const source = [...pattern.toLowerCase()]
    .map((character) =>
      character === '%' ? '.*' : character === '_' ? '.' : character.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(source, 's').test(String(value).toLowerCase());
}

function matchesEqual(value: unknown, data: Condition['data']): boolean {
  if (value === data) return true;
  // Ids travel as numbers or numeric strings depending on the caller; both identify the record.
  const comparable = (candidate: unknown) => typeof candidate === 'number' || typeof candidate === 'string';
  return comparable(value) && comparable(data) && String(value) === String(data);
}

function matches(record: InstallRecord, condition: Condition, lkExact: boolean): boolean {
  const value = record[condition.field];
  if (condition.type === 'eq') return matchesEqual(value, condition.data);
  if (condition.data === null) return false;
  return lkExact
    ? matchesLike(value, String(condition.data))
    : matchesLikeBroadly(value, String(condition.data));
}

/** The lenient QUERY readings (sandbox/mode.ts); each false by default, as the spec reads. */
export interface QueryMode {
  /** `lk-exact`: `%` only at the ends, and without `%` an exact match. */
  lkExact?: boolean;
  /** `and-conditions`: several conditions ANDed. */
  andConditions?: boolean;
  /** The answer is cut after this many records. @default no cut */
  maxRecords?: number;
}

/**
 * Several conditions are ORed (how they combine is "not shown", and OR returns the most; the spec
 * shows only single-condition searches), unless `andConditions`; the answer is cut after
 * `maxRecords` records (the maximum per response is "not shown" either).
 */
export function runQuery(
  resource: string,
  records: readonly InstallRecord[],
  query: QueryRequest,
  availableJoins: Readonly<Record<string, JoinResolver>>,
  mode: QueryMode = {},
): InstallRecord[] {
  for (const name of query.joins) {
    if (!(name in availableJoins)) throw invalid(`join ${name} is not available on ${resource}`);
  }
  const lkExact = mode.lkExact ?? false;
  const selected = records.filter((record) =>
    query.conditions.length === 0
      ? true
      : mode.andConditions
        ? query.conditions.every((condition) => matches(record, condition, lkExact))
        : query.conditions.some((condition) => matches(record, condition, lkExact)),
  );
  return selected.slice(0, mode.maxRecords ?? selected.length).map((record) => {
    const copy = structuredClone(record);
    for (const name of query.joins) copy[name] = structuredClone(availableJoins[name]?.(record) ?? null);
    return copy;
  });
}
