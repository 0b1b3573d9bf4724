/**
 * The environment this worker process started with, read once per process: by the first test file
 * it runs (test files share worker processes, vitest.config.ts), before that file changed anything.
 */
export const workerEnvironment: Readonly<Record<string, string | undefined>> = { ...process.env };

/** Vitest sets these for each test file it runs (the worker's and the pool's ids). */
const ownedByVitest = (name: string) => name.startsWith('VITEST_');

/**
 * Makes `environment` what `baseline` was: every variable an earlier test file added is removed and
 * every one it changed or removed is set back, except Vitest's own for the file now starting.
 */
export function restoreEnvironment(
  environment: Record<string, string | undefined>,
  baseline: Readonly<Record<string, string | undefined>> = workerEnvironment,
): void {
  for (const name of Object.keys(environment)) {
    if (!ownedByVitest(name) && !(name in baseline)) delete environment[name];
  }
  for (const [name, value] of Object.entries(baseline)) {
    if (!ownedByVitest(name) && value !== undefined) environment[name] = value;
  }
}
