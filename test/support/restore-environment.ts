import { afterAll } from 'vitest';

/**
 * Test files share worker processes (vitest.config.ts: `isolate: false`), and with them one
 * `process.env`. What a file changes there (a local runtime writes its functions' variables, a
 * test names its fake endpoints) is undone when the file ends: the next file in the process starts
 * from the environment this one started with. A setup file (vitest.config.ts `setupFiles`): it
 * runs before each test file, and its `afterAll` after the file's own.
 */
const before = { ...process.env };

afterAll(() => {
  for (const name of Object.keys(process.env)) {
    if (!(name in before)) delete process.env[name];
  }
  Object.assign(process.env, before);
});
