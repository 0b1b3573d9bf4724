/**
 * The JSON path subset EventBridge evaluates in input templates and dynamic path parameters:
 * "dot notation (for example, $.detail), dashes, underscores, alphanumeric characters, array
 * indices, wildcards (*), forward slashes" (EventBridge user guide, "Amazon EventBridge Pipes input
 * transformation" and "Amazon EventBridge input transformation"). Wildcards select several values,
 * which no template of the connector uses, so a path with one is refused rather than guessed at.
 */

export type JsonPathSegment = string | number;

const SEGMENT = /^(?:\.([A-Za-z0-9_\-/]+)|\[(\d+)\])/;

export class JsonPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPathError';
  }
}

/** Parses `$.a.b[0]` into its segments; throws for anything outside the documented subset. */
export function parseJsonPath(path: string): JsonPathSegment[] {
  if (!path.startsWith('$')) throw new JsonPathError(`JSON path ${path} does not start with $`);
  if (path.includes('*')) throw new JsonPathError(`JSON path ${path}: wildcards are not modeled locally`);
  const segments: JsonPathSegment[] = [];
  let rest = path.slice(1);
  while (rest.length > 0) {
    const match = SEGMENT.exec(rest);
    if (!match) throw new JsonPathError(`JSON path ${path}: cannot read "${rest}"`);
    segments.push(match[1] !== undefined ? match[1] : Number(match[2]));
    rest = rest.slice(match[0].length);
  }
  return segments;
}

/** The value at `segments`, or `undefined` when any step is missing. */
export function selectJsonPath(root: unknown, segments: readonly JsonPathSegment[]): unknown {
  let current: unknown = root;
  for (const segment of segments) {
    if (typeof segment === 'number') {
      if (!Array.isArray(current)) return undefined;
      current = current[segment];
    } else {
      if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    }
    if (current === undefined) return undefined;
  }
  return current;
}
