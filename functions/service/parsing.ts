import * as z from 'zod';
import { describeIssues } from '#functions/contracts/issues.ts';
import { InvalidRequestError, ResponseShapeError } from '#functions/domain/errors.ts';
import { isRecord } from './http.ts';

/**
 * Parsing where the service client meets data: a service answer checked against a record schema
 * (a mismatch is a ResponseShapeError) and what is sent checked against a request schema (an
 * InvalidRequestError), a record's array schema built once, an id read under configured names,
 * and the fields that hold JSON text decoded.
 */

/**
 * A service answer, or a part of it, checked against `schema`; a mismatch is a ResponseShapeError
 * naming the field path(s). `at` is where a part checked on its own sits in the answer: the
 * message names the field by its path in the whole answer (`[0].TimesheetObject.Employee`).
 */
export function parseResponse<T extends z.ZodType>(
  schema: T,
  value: unknown,
  context: string,
  at: readonly PropertyKey[] = [],
): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => ({ ...issue, path: [...at, ...issue.path] }));
    throw new ResponseShapeError(
      `${context}: unexpected response: ${describeIssues(issues) || '(root): invalid'}`,
    );
  }
  return result.data;
}

/** What is sent, checked against `schema`; a mismatch is an InvalidRequestError naming the field path(s). */
export function validInput<T extends z.ZodType>(schema: T, value: unknown, name: string): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new InvalidRequestError(`${name} is invalid: ${describeIssues(result.error.issues)}`);
  return result.data;
}

const arrays = new WeakMap<z.ZodType, z.ZodArray<z.ZodType>>();

/**
 * `z.array(schema)`, built once per schema: building a zod schema costs far more than parsing a
 * small answer with it, and a query's answer is parsed with its array on every call.
 */
export function arrayOf<T extends z.ZodType>(schema: T): z.ZodArray<T> {
  let array = arrays.get(schema);
  if (!array) {
    array = z.array(schema);
    arrays.set(schema, array);
  }
  return array as z.ZodArray<T>;
}

/** The first id under the configured names, in their order: a number or a non-empty string. */
export function firstId(payload: unknown, fields: readonly string[]): string | number | undefined {
  if (!isRecord(payload)) return undefined;
  for (const field of fields) {
    const value = payload[field];
    if (typeof value === 'number' || (typeof value === 'string' && value !== '')) return value;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Decoding helpers

/**
 * A string holding a JSON object the connector only passes on (a pay rule's Config, a timesheet's
 * Metadata): decoded when it can be; otherwise kept as given under `unparsed`, never a reason to
 * fail the record.
 */
export function lenientJsonObject<T extends z.ZodType<Record<string, unknown>>>(schema: T) {
  return z
    .unknown()
    .optional()
    .transform((value): z.output<T> | null => {
      if (value === undefined || value === null || value === '') return null;
      // Every key of these objects is optional, so `{unparsed}` is one of them (an unknown key).
      const unparsed = { unparsed: value } as unknown as z.output<T>;
      let decoded: unknown = value;
      if (typeof value === 'string') {
        try {
          decoded = JSON.parse(value);
        } catch {
          return unparsed;
        }
      }
      const parsed = schema.safeParse(decoded);
      return parsed.success ? parsed.data : unparsed;
    });
}

/**
 * A field holding JSON text: decoded, then validated. null, absent or '' mean "no value" (null).
 * Bad JSON or a non-string is an issue on that very field, so the error names it.
 */
export function optionalJsonText<T extends z.ZodType>(schema: T) {
  return z
    .preprocess((value, ctx) => {
      if (value === undefined || value === null || value === '') return null;
      if (typeof value !== 'string') {
        ctx.addIssue({ code: 'custom', message: 'must be a string holding JSON', input: value });
        return z.NEVER;
      }
      try {
        return JSON.parse(value) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'is not valid JSON', input: value });
        return z.NEVER;
      }
    }, schema.nullable())
    .optional()
    .transform((value): z.output<T> | null => value ?? null);
}
