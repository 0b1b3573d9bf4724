import { afterEach, describe, expect, it } from 'vitest';
import {
  acceptsConnections,
  killLeftovers,
  type ProcessInfo,
  processTree,
  type RunningScript,
  startNpmScript,
  stillRunning,
} from '#test/support/npm-script.ts';

/**
 * `npm start` stopped as a terminal or a process manager stops it: SIGTERM (or SIGINT) to npm. Every
 * server the local runtime started (sandbox, DynamoDB, AWS endpoint) closes, no process is left, and
 * the exit says how it ended.
 */

let script: RunningScript | undefined;
let tree: ProcessInfo[] = [];
afterEach(async () => {
  // Whatever the test got to (a wait that ran out records no tree): npm's process group, then what
  // the test saw under npm.
  await script?.killTree();
  await killLeftovers(tree.map((info) => info.pid));
  script = undefined;
  tree = [];
});

const URL_PORT = /http:\/\/127\.0\.0\.1:(\d+)/.source;

async function portsTakingConnections(ports: readonly number[]): Promise<number[]> {
  const taking = await Promise.all(ports.map((port) => acceptsConnections(port)));
  return ports.filter((_, index) => taking[index]);
}

describe('npm start -- --serve', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'closes the sandbox, DynamoDB and the AWS endpoint and exits 0 when npm gets %s, leaving no process',
    async (signal) => {
      // Prepare
      script = startNpmScript('start', [
        '--serve',
        '--sandbox-port',
        '0',
        '--dynamo-port',
        '0',
        '--events-port',
        '0',
      ]);
      const banner = await script.waitFor(
        new RegExp(
          `sandbox\\s+${URL_PORT}[^\\n]*\\n\\s+DynamoDB\\s+${URL_PORT}[^\\n]*\\n\\s+AWS\\s+${URL_PORT}`,
        ),
        18_000,
      );
      const ports = [banner[1], banner[2], banner[3]].map(Number);
      tree = await processTree(script.child.pid ?? -1);
      const servingBefore = await portsTakingConnections(ports);

      // Act
      script.child.kill(signal);
      const exit = await script.exitedWithin(10_000);

      // Assess
      expect(tree.some((info) => info.args.includes('local/cli.ts --serve'))).toBe(true);
      expect(servingBefore).toEqual(ports);
      expect(exit, script.output().slice(-3000)).toEqual({ code: 0, signal: null });
      expect(script.output()).toContain(`${signal}: stopping`);
      expect(await stillRunning(tree.map((info) => info.pid))).toEqual([]);
      expect(await portsTakingConnections(ports)).toEqual([]);
    },
    // Longer than the test's own waits together, so a slow machine shows which wait ran out.
    45_000,
  );
});

describe('npm start (the scenario)', () => {
  it('stops the scenario when npm gets SIGTERM: the runtime closed, no summary, exit non-zero, no process left', async () => {
    // Prepare
    script = startNpmScript('start', []);
    const started = await script.waitFor(
      new RegExp(`sandbox ${URL_PORT}, DynamoDB ${URL_PORT}, AWS endpoint ${URL_PORT}`),
      15_000,
    );
    const ports = [started[1], started[2], started[3]].map(Number);
    await script.waitFor(/\[1\/\d+\]/, 10_000);
    tree = await processTree(script.child.pid ?? -1);

    // Act
    script.child.kill('SIGTERM');
    const exit = await script.exitedWithin(10_000);

    // Assess
    expect(tree.some((info) => info.args.includes('local/cli.ts'))).toBe(true);
    expect(exit).not.toBe('still running');
    expect(exit === 'still running' ? undefined : exit.code, script.output().slice(-3000)).toBe(143);
    expect(script.output()).toContain('Scenario stopped by SIGTERM before its end');
    expect(script.output()).not.toContain('Summary');
    expect(await stillRunning(tree.map((info) => info.pid))).toEqual([]);
    expect(await portsTakingConnections(ports)).toEqual([]);
  }, 45_000);
});
