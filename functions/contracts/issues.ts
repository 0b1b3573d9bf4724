import type * as z from 'zod';

/**
 * Turns zod issues into one line per problem, `detail.owner.email: Invalid email address`.
 *
 * Messages end up in logs and in SyncFailed events, so they must never carry the offending
 * value (it may be personal data). zod's own messages name types and limits only, never the
 * input; the one place data leaks is a key: unknown keys are listed and record keys appear
 * in paths. Keys that look like field names are kept (they are what a partner needs to see),
 * anything else is masked.
 */

const fieldNameShape = /^[A-Za-z_$][A-Za-z0-9_$-]{0,63}$/;
const MASKED_KEY = '[?]';
const MAX_REPORTED_ISSUES = 5;

type Issue = z.core.$ZodIssue;
type PathSegment = PropertyKey;

export function formatPath(path: readonly PathSegment[]): string {
  let rendered = '';
  for (const segment of path) {
    if (typeof segment === 'number') rendered += `[${segment}]`;
    else if (typeof segment === 'string' && fieldNameShape.test(segment))
      rendered += rendered === '' ? segment : `.${segment}`;
    else rendered += MASKED_KEY;
  }
  return rendered;
}

/** Depth of the deepest issue, so the union branch that got furthest wins. */
function depth(issues: readonly Issue[]): number {
  return Math.max(0, ...issues.map((issue) => issue.path.length));
}

/**
 * A union reports one generic "Invalid input" plus every branch's issues. Report what the
 * partner most likely meant: the branch with the fewest issues, the deepest on a tie. When
 * every branch failed on the type of the value itself, list the expected types instead.
 */
function explainUnion(
  issue: Extract<Issue, { code: 'invalid_union' }>,
  path: readonly PathSegment[],
): Line[] {
  const branches = issue.errors.filter((branch) => branch.length > 0);
  if (branches.length === 0) return [{ path, message: issue.message }];
  const typeOnly = branches.every((branch) =>
    branch.every((inner) => inner.code === 'invalid_type' && inner.path.length === 0),
  );
  if (typeOnly) {
    const expected = branches.flatMap((branch) =>
      branch.map((inner) => (inner.code === 'invalid_type' ? inner.expected : '')),
    );
    return [{ path, message: `Invalid input: expected ${[...new Set(expected)].join(' or ')}` }];
  }
  const best = [...branches].sort((a, b) => a.length - b.length || depth(b) - depth(a))[0] ?? [];
  return best.flatMap((inner) => explain(inner, [...path, ...inner.path]));
}

interface Line {
  path: readonly PathSegment[];
  message: string;
}

function explain(issue: Issue, path: readonly PathSegment[]): Line[] {
  switch (issue.code) {
    case 'invalid_union':
      return explainUnion(issue, path);
    case 'unrecognized_keys': {
      const shown = issue.keys.filter((key) => fieldNameShape.test(key));
      const hidden = issue.keys.length - shown.length;
      const names = [
        ...shown.map((key) => `"${key}"`),
        ...(hidden > 0 ? [`${hidden} ${shown.length > 0 ? 'more ' : ''}not shown`] : []),
      ];
      return [{ path, message: `Unrecognized key${issue.keys.length > 1 ? 's' : ''}: ${names.join(', ')}` }];
    }
    case 'invalid_key':
      return [
        {
          path,
          message: 'Invalid key in record (expected an API name: a letter, then letters, digits or _)',
        },
      ];
    default:
      return [{ path, message: issue.message }];
  }
}

/**
 * One message naming each failing field, prefixed by `root` (e.g. `detail`), capped so a
 * detail with hundreds of bad days stays a readable line.
 */
export function describeIssues(issues: readonly Issue[], root?: string): string {
  const lines = issues.flatMap((issue) => explain(issue, issue.path));
  const rendered = lines.slice(0, MAX_REPORTED_ISSUES).map((line) => {
    const path = formatPath(root === undefined ? line.path : [root, ...line.path]);
    return path === '' ? line.message : `${path}: ${line.message}`;
  });
  const more = lines.length - rendered.length;
  return rendered.join('; ') + (more > 0 ? `; and ${more} more` : '');
}
