import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LENIENT_READING_NAMES } from '#sandbox/mode.ts';
import {
  acceptsConnections,
  killLeftovers,
  type ProcessInfo,
  processesNamed,
  processTree,
  type RunningScript,
  startNpmScript,
  stillRunning,
} from '#test/support/npm-script.ts';
import { killGroup } from '#test/support/process-groups.ts';
import { spawnInGroup } from '#test/support/watched-child.ts';

let child: ChildProcess | undefined;
afterEach(() => {
  // The CLI leads a process group of its own (startCli): the group goes, whatever the test got to
  // (the CLI itself may be gone and have left tsx's esbuild service behind).
  if (child?.pid !== undefined) killGroup(child.pid);
  child = undefined;
});

/** A port the OS just confirmed free: listen on 0, read it, release it. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function startCli(args: string[]): {
  process: ChildProcess;
  output: () => string;
  listening: Promise<string>;
} {
  // node --import tsx avoids an extra npx/tsx wrapper process between the test and the signal; its
  // own process group, for afterEach to kill whole.
  const started = spawnInGroup(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', ...args]);
  child = started.child;
  // The whole line that names the URL; rejects if the CLI exits first.
  const listening = started.waitFor(/^.*http:\/\/127\.0\.0\.1:\d+.*(?=\n)/m, 15_000).then(([line]) => line);
  return { process: started.child, output: started.output, listening };
}

describe('sandbox CLI', () => {
  it('prints its URL once listening, serves with the given token and partner, and stops cleanly on SIGTERM', async () => {
    // Prepare
    const port = await freePort();
    const cli = startCli([
      '--port',
      String(port),
      '--partner',
      'globex',
      '--token',
      'cli-token',
      '--rate-limit',
      '50',
    ]);

    // Act
    const line = await cli.listening;
    const signup = await fetch(`http://127.0.0.1:${port}/connect/v1/partner/globex/signup`, {
      method: 'POST',
      headers: { authorization: 'Bearer cli-token', 'content-type': 'application/json' },
      body: JSON.stringify({
        userData: { firstName: 'Cli', lastName: 'User', email: 'cli@example.test' },
        businessData: { externalId: 'cli-1', portfolioName: 'CLI Shop' },
      }),
    });
    const exited = new Promise<number | null>((resolve) => cli.process.once('exit', (code) => resolve(code)));
    cli.process.kill('SIGTERM');

    // Assess
    expect(line).toContain(`http://127.0.0.1:${port}`);
    expect(cli.output()).toContain('/connect/v1/partner/globex/signup');
    expect(signup.status).toBe(200);
    expect(await exited).toBe(0);
  });

  it('accepts port 0 and reports the port it got', async () => {
    // Prepare
    const cli = startCli(['--port', '0']);

    // Act
    const line = await cli.listening;
    const port = Number(/http:\/\/127\.0\.0\.1:(\d+)/.exec(line)?.[1]);
    const clock = await fetch(`http://127.0.0.1:${port}/_sandbox/clock`);
    const exited = new Promise<number | null>((resolve) => cli.process.once('exit', (code) => resolve(code)));
    cli.process.kill('SIGINT');

    // Assess
    expect(port).toBeGreaterThan(0);
    expect(clock.status).toBe(200);
    expect(await exited).toBe(0);
  });

  it('defaults to partner acme and token sandbox-token', async () => {
    // Prepare
    const cli = startCli(['--port', '0']);
    const line = await cli.listening;
    const url = /http:\/\/127\.0\.0\.1:\d+/.exec(line)?.[0];
    const signup = (token: string) =>
      fetch(`${url}/connect/v1/partner/acme/signup`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          userData: { firstName: 'Def', lastName: 'Ault', email: 'default@example.test' },
          businessData: { externalId: 'default-1', portfolioName: 'Default Shop' },
        }),
      });

    // Act
    const withDefaultToken = await signup('sandbox-token');
    const withOtherToken = await signup('cli-token');

    // Assess
    expect(cli.output()).toContain('/connect/v1/partner/acme/signup');
    expect(withDefaultToken.status).toBe(200);
    expect(withOtherToken.status).toBe(401);
  });

  it('answers 429 with Retry-After beyond --rate-limit requests per second', async () => {
    // Prepare
    const cli = startCli(['--port', '0', '--rate-limit', '2']);
    const line = await cli.listening;
    const url = /http:\/\/127\.0\.0\.1:\d+/.exec(line)?.[0];

    // Act
    const replies = await Promise.all(
      Array.from({ length: 4 }, () =>
        fetch(`${url}/installs/nobody-1.us.sandbox.test/api/v1/resource/Country/QUERY`, {
          method: 'POST',
          headers: { authorization: 'Bearer sandbox-token' },
        }),
      ),
    );

    // Assess
    const limited = replies.filter((reply) => reply.status === 429);
    expect(limited).toHaveLength(2);
    expect(limited[0]?.headers.get('retry-after')).toBe('1');
  });

  it('answers as the spec by default, turns on the readings --lenient names, and runs the roots --regions names', async () => {
    // Prepare
    const cli = startCli(['--port', '0', '--lenient', 'lk-exact,and-conditions', '--regions', 'us,AU']);
    const line = await cli.listening;
    const url = /http:\/\/127\.0\.0\.1:\d+/.exec(line)?.[0];

    // Act
    const mode = await fetch(`${url}/_sandbox/mode`);
    const uk = await fetch(`${url}/regions/uk/connect/v1/partner/acme/signup`, { method: 'POST' });

    // Assess
    expect(await mode.json()).toMatchObject({
      strict: false,
      lenient: ['lk-exact', 'and-conditions'],
      regions: ['US', 'AU'],
    });
    expect(uk.status).toBe(503);
  });

  it('lists every lenient reading under --help, and refuses an unknown one with exit code 2', async () => {
    // Act
    const help = spawnInGroup(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', '--help']);
    const helpCode = await new Promise<number | null>((resolve) => help.child.once('close', resolve));
    const wrong = startCli(['--lenient', 'lk-exact,lk-fuzzy']);
    wrong.listening.catch(() => undefined);
    const wrongCode = await new Promise<number | null>((resolve) => wrong.process.once('close', resolve));

    // Assess
    expect(helpCode).toBe(0);
    for (const name of LENIENT_READING_NAMES) expect(help.output()).toContain(name);
    expect(wrongCode).toBe(2);
    expect(wrong.output()).toContain('unknown reading(s) lk-fuzzy');
  });

  it('refuses an unknown region with exit code 2', async () => {
    // Act
    const cli = startCli(['--regions', 'US,EU']);
    cli.listening.catch(() => undefined);
    const code = await new Promise<number | null>((resolve) =>
      cli.process.once('exit', (exitCode) => resolve(exitCode)),
    );

    // Assess
    expect(code).toBe(2);
    expect(cli.output()).toContain('EU');
  });

  it('refuses an invalid port with exit code 2', async () => {
    // Act
    const cli = startCli(['--port', 'eighty']);
    cli.listening.catch(() => undefined);
    const code = await new Promise<number | null>((resolve) =>
      cli.process.once('exit', (exitCode) => resolve(exitCode)),
    );

    // Assess
    expect(code).toBe(2);
    expect(cli.output()).toContain('--port must be an integer');
  });
});

describe('npm run sandbox', () => {
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

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'stops its whole process tree when npm gets %s: nothing left running, the port closed, exit 0',
    async (signal) => {
      // Prepare
      const marker = `signal-${signal}-${process.pid}-${Date.now()}`;
      script = startNpmScript('sandbox', ['--port', '0', '--partner', marker]);
      const [, port] = await script.waitFor(/Sandbox listening on http:\/\/127\.0\.0\.1:(\d+)/, 15_000);
      tree = await processTree(script.child.pid ?? -1);
      const servedBefore = await acceptsConnections(Number(port));

      // Act
      script.child.kill(signal);
      const exit = await script.exitedWithin(10_000);

      // Assess
      expect(tree.some((info) => info.args.includes('sandbox/cli.ts') && info.args.includes(marker))).toBe(
        true,
      );
      expect(servedBefore).toBe(true);
      expect(exit, script.output()).toEqual({ code: 0, signal: null });
      expect(script.output()).toContain(`Sandbox stopped (${signal})`);
      expect(await stillRunning(tree.map((info) => info.pid))).toEqual([]);
      expect(await processesNamed(marker)).toEqual([]);
      expect(await acceptsConnections(Number(port))).toBe(false);
    },
    // Longer than the test's own waits together, so a slow machine shows which wait ran out.
    45_000,
  );
});
