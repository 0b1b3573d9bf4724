import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultServiceAssumptions } from '#functions/service/assumptions.ts';
import { type CheckLine, runPreflight } from '#scripts/preflight/checks.ts';
import { LOCAL_TOKEN, startLocalPreflight } from '#scripts/preflight/local.ts';
import {
  assertRead,
  READ_CALLS,
  readOnlyHttp,
  WriteRefusedError,
} from '#scripts/preflight/read-only-http.ts';
import { HELP, main, parsePreflightArgs, preflightTarget } from '#scripts/preflight.ts';

/**
 * npm run preflight: against the sandbox's default (the spec) the example config passes; a lenient
 * reading shows up as a contradicted assumption and exit 1; and no request but a read ever leaves.
 */

async function run(argv: string[]): Promise<{ code: number; output: string }> {
  const printed: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
    printed.push(parts.map(String).join(' '));
  });
  const error = vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
    printed.push(parts.map(String).join(' '));
  });
  try {
    const code = await main(argv);
    return { code, output: printed.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

function linesOf(output: string): CheckLine[] {
  return (JSON.parse(output) as { lines: CheckLine[] }).lines;
}

const statusOf = (lines: readonly CheckLine[], name: string) =>
  lines.find((entry) => entry.name === name)?.status;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('npm run preflight -- --local', () => {
  it('passes against the sandbox as the spec reads (exit 0): token accepted, limits, lk and the not-linked code confirmed', async () => {
    // Act
    const { code, output } = await run(['--local', '--json']);

    // Assess
    const lines = linesOf(output);
    expect(code).toBe(0);
    expect(lines.filter((entry) => entry.status === 'contradicted' || entry.status === 'failed')).toEqual([]);
    expect(statusOf(lines, 'token at US')).toBe('ok');
    for (const name of [
      'queryMaxRecords',
      'lk reading',
      'hostnameNotLinkedCodes',
      'installAuth',
      'bad request (install)',
    ]) {
      expect(statusOf(lines, name), name).toBe('confirmed');
    }
    expect(output).not.toContain(LOCAL_TOKEN);
  });

  it.each([
    ['all', 'queryMaxRecords'],
    ['all-records', 'queryMaxRecords'],
    ['lk-exact', 'lk reading'],
  ])(
    'reports a contradicted assumption against the lenient reading %s and exits 1',
    async (lenient, contradicted) => {
      // Act
      const { code, output } = await run(['--local', '--lenient', lenient, '--json']);

      // Assess
      expect(code).toBe(1);
      expect(statusOf(linesOf(output), contradicted)).toBe('contradicted');
    },
  );

  it('reports every service assumption of the config, one line each', async () => {
    // Prepare
    const local = await startLocalPreflight();
    try {
      const target = preflightTarget(local.config, { hostname: local.hostname, hostnameRegion: 'US' });
      const http = readOnlyHttp({
        allowedPrefixes: [local.sandbox.url],
        token: LOCAL_TOKEN,
      });

      // Act
      const report = await runPreflight(http, target);

      // Assess
      const names = report.lines.map((entry) => entry.name);
      for (const assumption of Object.keys(defaultServiceAssumptions)) {
        expect(
          names.filter((name) => name === assumption),
          assumption,
        ).toHaveLength(1);
      }
    } finally {
      await local.close();
    }
  });
});

describe('npm run preflight against a deployment config', () => {
  it('reads the config file and the token file, reports a root that does not answer, exits 1 and never prints the token', async () => {
    // Prepare: an https root nothing listens on.
    const dir = mkdtempSync(join(tmpdir(), 'preflight-'));
    const example = JSON.parse(readFileSync('connector.config.example.json', 'utf8')) as Record<
      string,
      unknown
    >;
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ ...example, provisioningUrls: { US: 'https://127.0.0.1:1' } }),
    );
    writeFileSync(join(dir, 'token.txt'), JSON.stringify({ token: 'file-token-123' }));

    // Act
    const { code, output } = await run([
      '--config',
      join(dir, 'config.json'),
      '--token-file',
      join(dir, 'token.txt'),
      '--json',
    ]);

    // Assess
    const lines = linesOf(output);
    expect(code).toBe(1);
    expect(statusOf(lines, 'US root')).toBe('failed');
    expect(statusOf(lines, 'token at US')).toBe('not observable');
    expect(statusOf(lines, 'installAuth')).toBe('not observable');
    expect(output).not.toContain('file-token-123');
  });

  it('fails a configured root the service does not run (the sandbox answers UK as in development)', async () => {
    // Prepare
    const local = await startLocalPreflight();
    try {
      const target = {
        ...preflightTarget(local.config, { hostnameRegion: 'US' }),
        provisioningUrls: { US: local.sandbox.url, UK: `${local.sandbox.url}/regions/uk` },
      };

      // Act
      const report = await runPreflight(
        readOnlyHttp({ allowedPrefixes: [local.sandbox.url], token: LOCAL_TOKEN }),
        target,
      );

      // Assess
      expect(report.pass).toBe(false);
      expect(statusOf(report.lines, 'UK root')).toBe('failed');
      expect(report.lines.find((entry) => entry.name === 'UK root')?.detail).toContain('REGION_NOT_RUNNING');
      expect(statusOf(report.lines, 'token at US')).toBe('ok');
    } finally {
      await local.close();
    }
  });
});

describe('the preflight never writes', () => {
  it('sends only reads to the service, and the sandbox holds the same businesses and records after it', async () => {
    // Prepare
    const local = await startLocalPreflight();
    try {
      const dump = async () => ({
        businesses: await (await fetch(`${local.sandbox.url}/_sandbox/businesses`)).json(),
        install: await (await fetch(`${local.sandbox.url}/_sandbox/installs/${local.hostname}`)).json(),
      });
      const before = await dump();
      const logged = ((await (await fetch(`${local.sandbox.url}/_sandbox/requests`)).json()) as unknown[])
        .length;
      const target = preflightTarget(local.config, { hostname: local.hostname, hostnameRegion: 'US' });

      // Act
      const report = await runPreflight(
        readOnlyHttp({ allowedPrefixes: [local.sandbox.url], token: LOCAL_TOKEN }),
        target,
      );

      // Assess
      const requests = (
        (await (await fetch(`${local.sandbox.url}/_sandbox/requests`)).json()) as {
          method: string;
          path: string;
        }[]
      ).slice(logged);
      expect(requests.length).toBe(report.sent.length);
      expect(requests.length).toBeGreaterThan(10);
      for (const request of requests) {
        expect(
          READ_CALLS.some((call) => call.method === request.method && call.path.test(request.path)),
          `${request.method} ${request.path}`,
        ).toBe(true);
      }
      expect(await dump()).toEqual(before);
    } finally {
      await local.close();
    }
  });

  const ROOT = 'https://provisioning.example.com';
  const INSTALL = 'https://shop-1.example.com';

  it.each([
    ['POST', `${ROOT}/connect/v1/partner/acme/signup`],
    ['POST', `${ROOT}/connect/v1/partner/acme/change-plan`],
    ['GET', `${ROOT}/connect/v1/partner/acme/subscription-status`],
    ['POST', `${ROOT}/connect/v1/partner/acme/signup?x=/subscription-status`],
    ['POST', `${INSTALL}/api/v1/resource/Employee/5/CustomFieldDataObject`],
    ['POST', `${INSTALL}/api/v1/resource/LeaveAccrual`],
    ['POST', `${INSTALL}/api/management/v2/agreed_hour/5`],
    ['GET', `${INSTALL}/api/management/v2/agreed_hour/5`],
    ['GET', `${INSTALL}/api/v1/payroll/listAwardsLibrary`],
    ['POST', `${INSTALL}/api/v2/metrics`],
    ['POST', `${INSTALL}/api/v2/metrics:bulk`],
    ['PUT', `${INSTALL}/api/v1/supervise/company`],
    ['PUT', `${INSTALL}/api/v1/supervise/department`],
    ['POST', `${INSTALL}/api/v1/supervise/employee/5/setAwardFromLibrary`],
    ['DELETE', `${INSTALL}/api/v1/resource/Country/QUERY`],
    ['POST', 'https://elsewhere.example.net/api/v1/resource/Country/QUERY'],
  ])('refuses %s %s before anything is sent', async (method, url) => {
    // Prepare
    const fetchSpy = vi.fn<typeof fetch>();
    const http = readOnlyHttp({ allowedPrefixes: [ROOT, INSTALL], token: 't', fetch: fetchSpy });

    // Act
    const sending = http.read(method as 'POST', url, {});

    // Assess
    await expect(sending).rejects.toBeInstanceOf(WriteRefusedError);
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(http.sent).toEqual([]);
  });

  it.each([
    ['POST', `${ROOT}/connect/v1/partner/acme/subscription-status`],
    ['POST', `${INSTALL}/api/v1/resource/State/QUERY`],
  ])('lets the read %s %s through', (method, url) => {
    // Assess
    expect(() => assertRead(method, url, [ROOT, INSTALL])).not.toThrow();
  });

  it('keeps an echoed token out of what it reports', async () => {
    // Prepare
    const echo = vi.fn<typeof fetch>(async (_url, init) => {
      const authorization = new Headers(init?.headers).get('authorization');
      return new Response(
        JSON.stringify({ success: false, error: { code: 'X', message: `bad ${authorization}` } }),
        {
          status: 400,
        },
      );
    });
    const http = readOnlyHttp({ allowedPrefixes: [ROOT], token: 'secret-token-1', fetch: echo });

    // Act
    const answer = await http.read('POST', `${ROOT}/connect/v1/partner/acme/subscription-status`, {});

    // Assess
    expect(JSON.stringify(answer)).not.toContain('secret-token-1');
    expect(JSON.stringify(answer)).toContain('[REDACTED]');
  });
});

describe('preflight arguments', () => {
  it('documents the flags and the exit codes in --help', async () => {
    // Act
    const { code, output } = await run(['--help']);

    // Assess
    expect(code).toBe(0);
    expect(output).toBe(HELP);
    for (const flag of '--config --secret --token-file --hostname --local --lenient --json'.split(' ')) {
      expect(HELP).toContain(flag);
    }
  });

  it.each([
    [['--lenient', 'all']],
    [['--local', '--hostname', 'x.example.com']],
    [['--secret', 's', '--token-file', 'f']],
    [['--local', '--lenient', 'no-such-reading']],
    [['--hostname-region', 'EU']],
  ])('refuses %j as a usage error (exit 2)', async (argv) => {
    // Act
    const { code } = await run(argv);

    // Assess
    expect(code).toBe(2);
    expect(() => parsePreflightArgs(argv)).toThrow();
  });
});
