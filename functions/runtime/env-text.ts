/**
 * Reading settings from environment variables at cold start, without building a schema.
 *
 * Every function reads two dozen variables once per execution environment. Built as zod schemas
 * they were hundreds of schema objects, more than a route's contracts, constructed at import and
 * used for one parse: a share of every cold start (issue #17; test/runtime/config.test.ts counts
 * what is built now). These plain readers check the same rules with the same messages; the
 * settings that are JSON documents (provisioning URLs, service assumptions, request budget) are
 * still checked by their zod schemas, which are built on their first parse only. Its own module,
 * so a function that reads a few variables (route-queue.ts) does not load the whole configuration.
 */

/**
 * Collects what is wrong with each variable, in the order they are read, so a bad environment
 * fails the cold start with one message naming every bad variable.
 */
export class EnvironmentReader {
  private readonly problems = new Map<string, string[]>();

  constructor(private readonly env: Readonly<Record<string, string | undefined>>) {}

  /** The variable trimmed; unset and empty are the same (templates often emit ""). */
  text(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  /** The variable as set (trimmed), or undefined only when it is not set at all. */
  raw(name: string): string | undefined {
    return this.env[name]?.trim();
  }

  /** A variable that must be set; '' (never used: the reader then has a problem) when it is not. */
  required(name: string, description: string): string {
    const value = this.text(name);
    if (value === undefined) this.problem(name, `is required (${description})`);
    return value ?? '';
  }

  /** A whole number from 1 to `max`; `fallback` when unset. */
  wholeNumber(name: string, fallback: number, max: number): number {
    const value = this.text(name);
    return value === undefined ? fallback : (this.wholeNumberIn(name, value, { max }) ?? 0);
  }

  /** A required whole number from 1 to `max`. */
  requiredWholeNumber(name: string, description: string, max: number): number {
    const value = this.text(name);
    if (value === undefined) {
      this.problem(name, `is required (${description})`);
      return 0;
    }
    return this.wholeNumberIn(name, value, { max }) ?? 0;
  }

  /**
   * `text` (the variable's value, or the part of it `where` names) as a whole number by `rules`;
   * undefined, with its problems recorded, when it is not one.
   */
  wholeNumberIn(name: string, text: string, rules: WholeNumberRules, where?: string): number | undefined {
    const problems = wholeNumberProblems(text, rules);
    for (const problem of problems) this.problem(name, problem, where);
    return problems.length === 0 ? Number(text) : undefined;
  }

  /** `value` when it is one of `values`; undefined, with `message` recorded, when not. */
  oneOf<T extends string>(name: string, values: readonly T[], value: string, message: string): T | undefined {
    if ((values as readonly string[]).includes(value)) return value as T;
    this.problem(name, message);
    return undefined;
  }

  /** Records a problem of `name` (`where`: a part of its value, such as `item 2`). */
  problem(name: string, message: string, where?: string): void {
    const messages = this.problems.get(name) ?? [];
    messages.push(where === undefined ? message : `${where}: ${message}`);
    this.problems.set(name, messages);
  }

  get ok(): boolean {
    return this.problems.size === 0;
  }

  /** One entry per bad variable, `NAME message; message`, joined by `separator`. */
  describe(separator: string): string {
    return [...this.problems].map(([name, messages]) => `${name} ${messages.join('; ')}`).join(separator);
  }

  /** One entry per problem, `NAME message`, joined by `separator`. */
  describeEach(separator: string): string {
    return [...this.problems]
      .flatMap(([name, messages]) => messages.map((message) => `${name} ${message}`))
      .join(separator);
  }
}

export interface WholeNumberRules {
  /** @default 1 */
  readonly min?: number;
  readonly max: number;
  /** @default 'must be a whole number' */
  readonly notWhole?: string;
  /** @default `must be at least ${min}` */
  readonly belowMin?: string;
  /** @default `must be at most ${max}` */
  readonly aboveMax?: string;
}

/**
 * What is wrong with `value` as a whole number written as text, in the order (and with the
 * messages) the zod schemas these readers replaced gave: not digits; then not a safe integer (a
 * number past 2^53), under the minimum, over the maximum, each that applies.
 */
function wholeNumberProblems(value: string, rules: WholeNumberRules): string[] {
  const { min = 1, max } = rules;
  if (!/^\d+$/.test(value)) return [rules.notWhole ?? 'must be a whole number'];
  const number = Number(value);
  const problems: string[] = [];
  if (!Number.isSafeInteger(number))
    problems.push(`Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`);
  if (number < min) problems.push(rules.belowMin ?? `must be at least ${min}`);
  if (number > max) problems.push(rules.aboveMax ?? `must be at most ${max}`);
  return problems;
}
