import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * npm runs a script through `sh -c`, which does not pass npm's signals on, and the `tsx` command runs
 * the script in a child process of its own: a script that is `tsx file.ts` leaves its server running
 * when npm is stopped. `exec node --import tsx file.ts` makes the script one process that gets the
 * signal (the sandbox and `npm start` close their servers on it: test/sandbox/cli.test.ts,
 * test/local/start-signals.test.ts).
 */

const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };

describe('npm scripts', () => {
  const typeScriptEntries = Object.entries(scripts).filter(([, command]) => /\.ts\b/.test(command));

  it('run the TypeScript entry points of the tools, the sandbox and the local runtime', () => {
    // Assess
    expect(typeScriptEntries.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'start',
        'sandbox',
        'invoke',
        'chaos',
        'bench',
        'replay',
        'redrive',
        'schemas',
      ]),
    );
  });

  it.each(typeScriptEntries)(
    '%s replaces the shell with one node process that loads tsx itself (npm signals reach it)',
    (_name, command) => {
      // Assess
      expect(command).toMatch(/^(?:[A-Z_]+=\S+ )*exec node --import tsx [\w/.-]+\.ts$/);
    },
  );
});
