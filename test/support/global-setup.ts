import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { queueRoutes, refusalFunction, scheduledFunctions } from '#functions/routes.ts';
import { functionBundle } from '#local/function-bundles.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A directory of this test run, removed when it ends: what test files share (test/support/cdk-synth.ts). */
    runDirectory: string;
  }
}

/**
 * Once before any test file runs (vitest.config.ts `globalSetup`): the deployed bundle of every
 * function the template has, which every local runtime of the run imports in its execution
 * environments (local/function-bundles.ts). Built here, in one process and all at once, instead
 * of by whichever test worker needs one first (both workers at once on a clean clone).
 *
 * Also a directory for the run (`inject('runDirectory')`), removed when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const entries = [...queueRoutes, ...scheduledFunctions, refusalFunction].map((fn) => fn.entry);
  await Promise.all(entries.map((entry) => functionBundle(entry)));
  const runDirectory = mkdtempSync(join(tmpdir(), 'connector-test-run-'));
  project.provide('runDirectory', runDirectory);
  // Watch mode reruns tests in the same run: what they share is made again from the changed code.
  project.onTestsRerun(() => {
    for (const entry of readdirSync(runDirectory))
      rmSync(join(runDirectory, entry), { recursive: true, force: true });
  });
  return () => rmSync(runDirectory, { recursive: true, force: true });
}
