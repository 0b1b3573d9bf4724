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
    return value === undefined ? fallback : this.checkedWholeNumber(name, value, max);
  }

  /** A required whole number from 1 to `max`. */
  requiredWholeNumber(name: string, description: string, max: number): number {
    const value = this.text(name);
    if (value === undefined) {
      this.problem(name, `is required (${description})`);
      return 0;
    }
    return this.checkedWholeNumber(name, value, max);
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

  /** One line per bad variable: `NAME message; message`, joined by `separator`. */
  describe(separator: string): string {
    return [...this.problems].map(([name, messages]) => `${name} ${messages.join('; ')}`).join(separator);
  }

  private checkedWholeNumber(name: string, value: string, max: number): number {
    const problem = wholeNumberProblem(value, 1, max);
    if (problem !== undefined) {
      this.problem(name, problem);
      return 0;
    }
    return Number(value);
  }
}

/** What is wrong with `value` as a whole number from `min` to `max` written as text, if anything. */
export function wholeNumberProblem(value: string, min: number, max: number): string | undefined {
  if (!/^\d+$/.test(value)) return 'must be a whole number';
  const number = Number(value);
  if (number < min) return `must be at least ${min}`;
  if (number > max) return `must be at most ${max}`;
  return undefined;
}

/**
 * Parse options for a schema that parses once per execution environment (a JSON setting at cold
 * start, a refusal function's settings): zod compiles a fast path for an object schema on its
 * first synchronous parse (`new Function`), which costs more than it saves on a parse that runs once.
 */
export const PARSED_ONCE = { jitless: true } as const;
