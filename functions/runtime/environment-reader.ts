import { ConfigurationError } from '#functions/domain/errors.ts';

/**
 * How every function reads its settings from environment variables at cold start: plain readers,
 * no schema (a schema would be built for one parse per execution environment). Each reader records
 * what is wrong with its variable instead of throwing, so a bad environment fails the cold start
 * with one message naming every bad variable (`throwIfBad`), never echoing a value: a secret put in
 * the wrong variable must not reach the logs.
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

  /** A comma-separated list, each item trimmed, empty items dropped; [] when unset. */
  list(name: string): string[] {
    return (this.text(name) ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
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
   * `text` (the variable's value, or the part of it `where` names) as a whole number from
   * `rules.min` (default 1) to `rules.max`, counted in `rules.unit` when given ("days": "must be
   * at least 1 days"… reads "days must be at least 1"); undefined, with its problem recorded, when
   * it is not one.
   */
  wholeNumberIn(name: string, text: string, rules: WholeNumberRules, where?: string): number | undefined {
    const { min = 1, max, unit } = rules;
    const subject = unit === undefined ? 'must' : `${unit} must`;
    let problem: string | undefined;
    if (!/^\d+$/.test(text)) problem = `must be a whole number${unit === undefined ? '' : ` of ${unit}`}`;
    else if (Number(text) < min) problem = `${subject} be at least ${min}`;
    else if (Number(text) > max) problem = `${subject} be at most ${max}`;
    if (problem === undefined) return Number(text);
    this.problem(name, problem, where);
    return undefined;
  }

  /** `value` when it is one of `values`; undefined, with the choices named, when not. */
  oneOf<T extends string>(name: string, values: readonly T[], value: string): T | undefined {
    if ((values as readonly string[]).includes(value)) return value as T;
    this.problem(name, `must be one of ${values.join(', ')}`);
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

  /**
   * Throws one ConfigurationError for the whole environment when any variable is bad:
   * `invalid <what>, cold start aborted:` then a line per problem, `- NAME message`.
   */
  throwIfBad(what: string): void {
    if (this.ok) return;
    const lines = [...this.problems].flatMap(([name, messages]) =>
      messages.map((message) => `  - ${name} ${message}`),
    );
    throw new ConfigurationError(`invalid ${what}, cold start aborted:\n${lines.join('\n')}`);
  }
}

export interface WholeNumberRules {
  /** @default 1 */
  readonly min?: number;
  readonly max: number;
  /** What the number counts, named in its problems ("days"). */
  readonly unit?: string;
}
