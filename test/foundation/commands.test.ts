import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The wiring behind `npm ci && npm test` on a clean clone, and the README that tells partners
 * the two commands. `npm start` itself is run end to end in test/local/commands.test.ts.
 */

const packageJson = JSON.parse(readFileSync('package.json', 'utf8')) as {
  scripts: Record<string, string>;
  imports: Record<string, string>;
};

describe('npm test and CI', () => {
  it('runs the lint, then the type-check beside the whole vitest suite, failing when either fails', () => {
    // Act
    const script = readFileSync(packageJson.scripts.test?.replace(/^bash /, '') ?? '', 'utf8');
    const commands = script.split('\n').map((line) => line.trim());

    // Assess
    expect(packageJson.scripts.test).toBe('bash scripts/test.sh');
    expect(commands).toContain('npx biome check . || exit 1');
    expect(commands).toContain('npx tsc --noEmit -p tsconfig.json > .tmp/typecheck.log 2>&1 &');
    expect(commands).toContain('npx vitest run');
    // The type check is waited for, and its failure fails the run.
    expect(script).toMatch(/if wait "\$typecheck"; then[\s\S]*exit 1\nfi\nexit "\$tests"/);
  });

  it('runs npm ci and then npm test in .ci/run, stopping at the first failure', () => {
    // Act
    const script = readFileSync('.ci/run', 'utf8');
    const commands = script.split('\n').map((line) => line.trim());

    // Assess
    expect(script).toMatch(/^#!\/usr\/bin\/env bash/);
    expect(script).toContain('set -euo pipefail');
    const ci = commands.findIndex((line) => line.startsWith('npm ci'));
    const test = commands.indexOf('npm test');
    expect(ci).toBeGreaterThan(-1);
    expect(test).toBeGreaterThan(ci);
  });

  it('maps every # subpath import to its top-level folder', () => {
    // Assess
    expect(packageJson.imports).toEqual({
      '#functions/*': './functions/*',
      '#lib/*': './lib/*',
      '#sandbox/*': './sandbox/*',
      '#local/*': './local/*',
      '#test/*': './test/*',
      '#scripts/*': './scripts/*',
      '#bench/*': './bench/*',
    });
  });
});

describe('README', () => {
  it('gives the two commands and how to start the sandbox, its URLs and its control API', () => {
    // Act
    const readme = readFileSync('README.md', 'utf8');

    // Assess
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    expect(readme).toContain('npm run sandbox -- --port 8787');
    expect(readme).toContain('/connect/v1/partner/acme/signup');
    expect(readme).toContain('http://127.0.0.1:8787/installs/{hostname}');
    for (const control of [
      'GET|POST /_sandbox/clock',
      'POST|DELETE /_sandbox/faults',
      'GET /_sandbox/businesses',
      'GET /_sandbox/installs/{hostname}',
      'GET /_sandbox/requests',
      'POST /_sandbox/reset',
    ]) {
      expect(readme).toContain(control);
    }
  });
});
