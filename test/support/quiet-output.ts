import { beforeEach } from 'vitest';

/**
 * Tests print test results, not logs (issue 16). The handlers under test log as deployed: Powertools
 * writes JSON lines (logs, EMF metrics) straight to `process.stdout`/`process.stderr` through its own
 * `Console`, past Vitest's console capture. This setup file (vitest.config.ts `setupFiles`) holds
 * everything a test file's code writes to those streams and hands it to Vitest only when a test
 * fails: it is then printed under that test, like its `console` output (`silent: 'passed-only'`).
 *
 * Tests that read what was written (`captureOutput`) spy on `write` themselves and see every line
 * as before. What a test that passed wrote is dropped when it ends; of the rest, only the last
 * MAX_HELD_CHARACTERS are kept: what led to a failure is at the end.
 */

const MAX_HELD_CHARACTERS = 200_000;

let held = '';

function hold(chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
  held += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString();
  if (held.length > MAX_HELD_CHARACTERS) held = held.slice(-MAX_HELD_CHARACTERS);
  const done = typeof encoding === 'function' ? encoding : callback;
  if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
  return true;
}

process.stdout.write = hold as typeof process.stdout.write;
process.stderr.write = hold as typeof process.stderr.write;

beforeEach(({ onTestFailed, onTestFinished }) => {
  onTestFailed(() => {
    if (held.trim() === '') return;
    // Through the console Vitest captures, so the output appears under the failed test.
    console.log(
      `output written since the file's last passed test (last ${held.length} characters):\n${held}`,
    );
    held = '';
  });
  // A passed test's output is not shown: it is dropped, so it neither stays in memory nor appears
  // under a later test that fails.
  onTestFinished(({ task }) => {
    if (task.result?.state === 'pass') held = '';
  });
});
