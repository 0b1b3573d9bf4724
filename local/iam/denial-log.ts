/**
 * Every call the local IAM enforcement denied in this process, whichever runtime denied it: what
 * the test suite's guard reads after each test file (test/support/iam-denials.ts), so that a test
 * passing only because nobody looked at its denials cannot happen. A test that denies on purpose
 * (a template with a grant removed) says so with `expectDenials()`.
 */

interface DenialLog {
  readonly denials: Array<{
    readonly principal: string;
    readonly action: string;
    readonly resource: string;
    readonly reason: string;
  }>;
  expected: boolean;
}

const KEY = Symbol.for('workforce-connector.local-iam.denials');
const holder = globalThis as { [KEY]?: DenialLog };

function log(): DenialLog {
  holder[KEY] ??= { denials: [], expected: false };
  return holder[KEY];
}

export function logDenial(denial: DenialLog['denials'][number]): void {
  log().denials.push(denial);
}

/** The running test file denies calls on purpose: the suite's guard lets its denials be. */
export function expectDenials(): void {
  log().expected = true;
}

/**
 * The denials since the last call that nobody said to expect; forgets them and the expectation.
 * The suite's guard calls it when every test file starts and when it ends, and test files share
 * worker processes (vitest.config.ts), so one file's `expectDenials()` never covers the next file's
 * denials.
 */
export function unexpectedDenials(): DenialLog['denials'] {
  const current = log();
  const unexpected = current.expected ? [] : [...current.denials];
  current.denials.length = 0;
  current.expected = false;
  return unexpected;
}
