import { invalid } from './errors.ts';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

export function requireBodyObject(body: unknown): JsonObject {
  if (!isObject(body)) throw invalid('request body must be a JSON object');
  return body;
}

export function requiredObject(source: JsonObject, key: string, path = key): JsonObject {
  const value = source[key];
  if (value === undefined || value === null) throw invalid(`${path} is required`);
  if (!isObject(value)) throw invalid(`${path} must be an object`);
  return value;
}

export function requiredString(source: JsonObject, key: string, path = key): string {
  const value = source[key];
  if (isAbsent(value)) throw invalid(`${path} is required`);
  if (typeof value !== 'string') throw invalid(`${path} must be a string`);
  return value;
}

export function optionalString(source: JsonObject, key: string, path = key): string | undefined {
  const value = source[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`${path} must be a string`);
  return value;
}

export function requiredInteger(source: JsonObject, key: string, path = key): number {
  const value = source[key];
  if (value === undefined || value === null) throw invalid(`${path} is required`);
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid(`${path} must be an integer`);
  return value;
}

export function optionalInteger(source: JsonObject, key: string, path = key): number | undefined {
  const value = source[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid(`${path} must be an integer`);
  return value;
}

export function requiredNumber(source: JsonObject, key: string, path = key): number {
  const value = source[key];
  if (value === undefined || value === null) throw invalid(`${path} is required`);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(`${path} must be a number`);
  return value;
}

/** Reads a 0/1 flag; the service's location and area payloads use integers, not booleans. */
export function optionalFlag(source: JsonObject, key: string, path = key): 0 | 1 | undefined {
  const value = optionalInteger(source, key, path);
  if (value === undefined) return undefined;
  if (value !== 0 && value !== 1) throw invalid(`${path} must be 0 or 1`);
  return value;
}

export function optionalBoolean(source: JsonObject, key: string, path = key): boolean | undefined {
  const value = source[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalid(`${path} must be a boolean`);
  return value;
}
