/**
 * EventBridge event pattern matching, as the EventBridge user guide describes it in "Amazon
 * EventBridge event patterns" and "Content filtering in Amazon EventBridge event patterns":
 *
 * - A pattern has the event's nested structure; every field it names must match (AND); the values
 *   of a leaf are an array of alternatives (OR). "If the value in the event is an array, the event
 *   pattern matches if the intersection of the event pattern array and the event array is non-empty."
 * - Exact values match strings, numbers, booleans and null by equality ("Matching null values").
 * - `prefix`, `suffix` and `wildcard` match string values; `equals-ignore-case` too (also inside
 *   prefix/suffix).
 * - `anything-but` matches "anything except what's provided": a value, a list of strings or of
 *   numbers, or one prefix / suffix / wildcard (or a list of wildcards) / equals-ignore-case.
 * - `numeric` compares JSON numbers (-5.0e9..+5.0e9).
 * - `exists` "works on the presence or absence of a field" and "only works on leaf nodes".
 * - `$or` holds alternative sub-patterns.
 *
 * A pattern using anything else (`cidr`, ...) is refused when it is compiled, so the local
 * runtime stops at start-up instead of routing an event where AWS would not.
 */

export type EventPattern = Record<string, unknown>;
type Matcher = (event: unknown) => boolean;
type ValueMatcher = (value: unknown, present: boolean) => boolean;

export class EventPatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventPatternError';
  }
}

/** Compiles a pattern into a predicate over events; throws for what is not modeled. */
export function compileEventPattern(pattern: unknown): (event: unknown) => boolean {
  if (!isObject(pattern)) throw new EventPatternError('an event pattern must be a JSON object');
  return compileObject(pattern, '');
}

function compileObject(pattern: Record<string, unknown>, path: string): Matcher {
  const matchers: Matcher[] = [];
  for (const [key, value] of Object.entries(pattern)) {
    if (key === '$or') {
      if (!Array.isArray(value) || value.length < 2) {
        throw new EventPatternError(`${path || 'pattern'}: $or takes an array of at least two patterns`);
      }
      const alternatives = value.map((alternative, index) => {
        if (!isObject(alternative)) throw new EventPatternError(`${path}$or[${index}] must be an object`);
        return compileObject(alternative, path);
      });
      matchers.push((event) => alternatives.some((match) => match(event)));
      continue;
    }
    const fieldPath = path ? `${path}.${key}` : key;
    if (Array.isArray(value)) {
      const leaf = compileLeaf(value, fieldPath);
      matchers.push((event) => {
        const present = isObject(event) && key in event;
        const fieldValue = present ? (event as Record<string, unknown>)[key] : undefined;
        if (present && Array.isArray(fieldValue)) {
          return fieldValue.length === 0
            ? leaf(undefined, false)
            : fieldValue.some((item) => leaf(item, true));
        }
        // Exists and the other operators look at leaf values only.
        if (present && isObject(fieldValue)) return leaf(undefined, false);
        return leaf(fieldValue, present);
      });
    } else if (isObject(value)) {
      const nested = compileObject(value, fieldPath);
      matchers.push((event) => isObject(event) && isObject(event[key]) && nested(event[key]));
    } else {
      throw new EventPatternError(`${fieldPath}: a pattern value must be an array or an object`);
    }
  }
  return (event) => matchers.every((match) => match(event));
}

function compileLeaf(alternatives: readonly unknown[], path: string): ValueMatcher {
  if (alternatives.length === 0) throw new EventPatternError(`${path}: an empty list matches nothing`);
  const matchers = alternatives.map((alternative) => compileCondition(alternative, path));
  return (value, present) => matchers.some((match) => match(value, present));
}

function compileCondition(condition: unknown, path: string): ValueMatcher {
  if (!isObject(condition)) {
    // An exact value: string, number, boolean or null.
    return (value, present) => present && value === condition;
  }
  const keys = Object.keys(condition);
  if (keys.length !== 1)
    throw new EventPatternError(`${path}: one operator per condition, got ${keys.join(', ')}`);
  const operator = keys[0] as string;
  const operand = condition[operator];
  switch (operator) {
    case 'prefix':
      return stringMatcher(path, operand, (value, text) => value.startsWith(text), 'prefix');
    case 'suffix':
      return stringMatcher(path, operand, (value, text) => value.endsWith(text), 'suffix');
    case 'equals-ignore-case':
      if (typeof operand !== 'string')
        throw new EventPatternError(`${path}: equals-ignore-case takes a string`);
      return (value) => typeof value === 'string' && value.toLowerCase() === operand.toLowerCase();
    case 'wildcard': {
      if (typeof operand !== 'string') throw new EventPatternError(`${path}: wildcard takes a string`);
      const regex = wildcardRegex(operand);
      return (value) => typeof value === 'string' && regex.test(value);
    }
    case 'exists':
      if (typeof operand !== 'boolean') throw new EventPatternError(`${path}: exists takes true or false`);
      return (_value, present) => present === operand;
    case 'numeric':
      return numericMatcher(operand, path);
    case 'anything-but':
      return anythingBut(operand, path);
    default:
      throw new EventPatternError(`${path}: the "${operator}" operator is not modeled by the local runtime`);
  }
}

function stringMatcher(
  path: string,
  operand: unknown,
  test: (value: string, text: string) => boolean,
  name: string,
): ValueMatcher {
  if (typeof operand === 'string') return (value) => typeof value === 'string' && test(value, operand);
  if (
    isObject(operand) &&
    typeof operand['equals-ignore-case'] === 'string' &&
    Object.keys(operand).length === 1
  ) {
    const text = (operand['equals-ignore-case'] as string).toLowerCase();
    return (value) => typeof value === 'string' && test(value.toLowerCase(), text);
  }
  throw new EventPatternError(`${path}: ${name} takes a string or {"equals-ignore-case": string}`);
}

function anythingBut(operand: unknown, path: string): ValueMatcher {
  let excluded: (value: unknown) => boolean;
  if (Array.isArray(operand)) {
    const strings = operand.every((item) => typeof item === 'string');
    const numbers = operand.every((item) => typeof item === 'number');
    if (!strings && !numbers) {
      throw new EventPatternError(`${path}: anything-but takes a list of only strings or only numbers`);
    }
    const listed: readonly unknown[] = operand;
    excluded = (value) => listed.includes(value);
  } else if (typeof operand === 'string' || typeof operand === 'number') {
    excluded = (value) => value === operand;
  } else if (isObject(operand) && Object.keys(operand).length === 1) {
    const [inner] = Object.keys(operand) as [string];
    const innerOperand = operand[inner];
    if (inner === 'wildcard' && Array.isArray(innerOperand)) {
      const regexes = innerOperand.map((item) => {
        if (typeof item !== 'string')
          throw new EventPatternError(`${path}: anything-but wildcard takes strings`);
        return wildcardRegex(item);
      });
      excluded = (value) => typeof value === 'string' && regexes.some((regex) => regex.test(value));
    } else if (['prefix', 'suffix', 'wildcard', 'equals-ignore-case'].includes(inner)) {
      const condition = compileCondition({ [inner]: innerOperand }, path);
      excluded = (value) => condition(value, true);
    } else {
      throw new EventPatternError(
        `${path}: anything-but with "${inner}" is not modeled by the local runtime`,
      );
    }
  } else {
    throw new EventPatternError(`${path}: anything-but takes a value, a list, or one operator`);
  }
  // A missing field is not "anything": only exists:false matches an absent field.
  return (value, present) => present && !excluded(value);
}

function numericMatcher(operand: unknown, path: string): ValueMatcher {
  if (!Array.isArray(operand) || operand.length === 0 || operand.length % 2 !== 0) {
    throw new EventPatternError(`${path}: numeric takes [operator, number, ...]`);
  }
  const checks: Array<(value: number) => boolean> = [];
  for (let index = 0; index < operand.length; index += 2) {
    const op = operand[index];
    const bound = operand[index + 1];
    if (typeof bound !== 'number') throw new EventPatternError(`${path}: numeric bounds must be numbers`);
    switch (op) {
      case '<':
        checks.push((value) => value < bound);
        break;
      case '<=':
        checks.push((value) => value <= bound);
        break;
      case '>':
        checks.push((value) => value > bound);
        break;
      case '>=':
        checks.push((value) => value >= bound);
        break;
      case '=':
        checks.push((value) => value === bound);
        break;
      default:
        throw new EventPatternError(`${path}: numeric operator ${String(op)} is not one of < <= > >= =`);
    }
  }
  return (value) => typeof value === 'number' && checks.every((check) => check(value));
}

/** `*` matches any run of characters (none included); `\*` is a literal star. */
function wildcardRegex(pattern: string): RegExp {
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index] as string;
    if (char === '\\' && pattern[index + 1] === '*') {
      source += '\\*';
      index++;
    } else if (char === '*') source += '.*';
    else source += char.replace(/[.+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
