import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { businessKey } from '#functions/store/keys.ts';
import type { ChaosReport } from '#scripts/chaos/run.ts';
import {
  type FlowHarness,
  inboundEvent,
  provisionAccount,
  type SandboxRequest,
  sqsFifoBatch,
  startFlowHarness,
  uniqueAccountId,
} from '#test/flows/support/harness.ts';

/**
 * Secrets stay secret and requests go only to the service:
 * - a chaos run in a child process, handlers logging at DEBUG: no log line holds the token, an
 *   owner e-mail or a mobile number, and no environment variable of the handlers' process holds
 *   the token (it comes from Secrets Manager, faked by the local events server);
 * - events stuffed with addresses of a trap server, and mappings tampered with directly in the
 *   table, send nothing to the trap; a tampered mapping ends in SyncFailed INVALID_HOSTNAME.
 */

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface ChildRun {
  code: number | null;
  output: string;
  report: ChaosReport;
}

async function chaosInChildProcess(args: readonly string[]): Promise<ChildRun> {
  const directory = mkdtempSync(join(tmpdir(), 'chaos-security-'));
  const reportFile = join(directory, 'report.json');
  try {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'scripts/chaos.ts', ...args, '--report', reportFile],
      {
        cwd: REPO_ROOT,
        // The parent's environment minus anything a developer's shell may add for AWS.
        env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_'))),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ChaosReport;
    return { code, output: Buffer.concat(chunks).toString('utf8'), report };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

describe('secrets in a chaos run', () => {
  let run: ChildRun;

  beforeAll(async () => {
    run = await chaosInChildProcess([
      '--events',
      '40',
      '--accounts',
      '10',
      '--seed',
      '11',
      '--log-level',
      'DEBUG',
      // The handlers' output as deployed (JSON lines), not the readable local lines.
      '--json-logs',
    ]);
  }, 120_000);

  it('logs at DEBUG level from the handlers, so the scan has something to read', () => {
    // Assess
    const jsonLines = run.output
      .split('\n')
      .filter((line) => line.trimStart().startsWith('{') || line.includes('"level"'));
    expect(jsonLines.length).toBeGreaterThan(10);
    expect(run.code).toBe(0);
  });

  it('never writes the token to a log line', () => {
    // Assess
    expect(run.report.token.length).toBeGreaterThan(20);
    expect(run.output).not.toContain(run.report.token);
  });

  it('never writes an owner e-mail or mobile number to a log line', () => {
    // Assess
    const lowered = run.output.toLowerCase();
    const digitsOnly = run.output.replace(/[\s()-]/g, '');
    const leaked = run.report.personalData.filter(
      (value) => lowered.includes(value.toLowerCase()) || digitsOnly.includes(value.replace(/[\s()-]/g, '')),
    );
    // Two values (e-mail, mobile) per account.
    expect(run.report.personalData.length).toBe(20);
    expect(leaked).toEqual([]);
  });

  it('keeps the token out of every environment variable of the handlers process', () => {
    // Assess
    expect(run.report.tokenInEnvironment).toEqual([]);
  });
});

describe('requests go to the service only', () => {
  let flow: FlowHarness;
  let trap: Server;
  let trapHits: string[];
  let trapAddress: string;

  beforeAll(async () => {
    trapHits = [];
    trap = createServer((request, response) => {
      trapHits.push(`${request.method} ${request.url}`);
      response.end('{}');
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    trapAddress = `127.0.0.1:${(trap.address() as AddressInfo).port}`;
    flow = await startFlowHarness();
  });

  afterAll(async () => {
    await flow?.close();
    await new Promise((resolve) => trap?.close(resolve));
  });

  it('ignores addresses carried in any field of an event', async () => {
    // Prepare
    const accountId = uniqueAccountId('steer');
    await provisionAccount(flow, accountId, { businessName: `http://${trapAddress}/signup` });
    const url = `http://${trapAddress}/steal`;
    const events = [
      inboundEvent('LocationCreated', {
        accountId,
        locationRef: 'loc-steer',
        name: url,
        tradingName: trapAddress,
        address: url,
        areas: [{ name: `${trapAddress}.sandbox.test`, address: url }],
      }),
      inboundEvent('EmployeeChanged', { accountId, employeeId: 2, customFields: { chaosBadge: url } }),
      inboundEvent('BudgetSet', {
        accountId,
        locationId: 1,
        kind: 'WAGE',
        days: [{ date: '2026-03-01', value: 1 }],
        reference: url,
      }),
      inboundEvent('PlanChosen', {
        accountId,
        plan: 'PREMIUM',
        billingAddress: { address1: url, suburb: trapAddress },
      }),
    ];

    // Act
    const responses = await Promise.all([
      flow.invokeBatch('provision-location', sqsFifoBatch([events[0]!])),
      flow.invokeBatch('sync-employee', sqsFifoBatch([events[1]!])),
      flow.invokeBatch('save-budget', sqsFifoBatch([events[2]!])),
      flow.invokeBatch('change-plan', sqsFifoBatch([events[3]!])),
    ]);

    // Assess
    expect(responses.flatMap((response) => response.batchItemFailures)).toEqual([]);
    expect(trapHits).toEqual([]);
    // Every install call went to an install the service itself created.
    const requests = await flow.sandbox<SandboxRequest[]>('GET', '/_sandbox/requests');
    const issued = new Set(
      (await flow.sandbox<Array<{ hostname: string }>>('GET', '/_sandbox/businesses')).map((b) => b.hostname),
    );
    const installsCalled = new Set(
      requests
        .map((request) => /^\/installs\/([^/]+)/.exec(request.path)?.[1])
        .filter((h) => h !== undefined),
    );
    expect(installsCalled.size).toBeGreaterThan(0);
    expect([...installsCalled].filter((hostname) => !issued.has(hostname))).toEqual([]);
  }, 30_000);

  const tamperedHostnames = [
    { label: 'an IP address and port', hostname: () => trapAddress },
    { label: 'another domain', hostname: () => 'evil.example.com' },
    { label: 'a path after an allowed name', hostname: () => 'x.sandbox.test/../../_sandbox/reset' },
    { label: 'the allowed domain as a prefix', hostname: () => 'trap.sandbox.test.evil.example' },
    { label: 'credentials in the authority', hostname: () => `a.sandbox.test@${trapAddress}` },
  ];

  it.each(tamperedHostnames)(
    'refuses a mapping tampered to $label with SyncFailed INVALID_HOSTNAME',
    async ({ hostname }) => {
      // Prepare
      const accountId = uniqueAccountId('tamper');
      await provisionAccount(flow, accountId);
      await flow.store.doc.send(
        new UpdateCommand({
          TableName: flow.store.tableName,
          Key: businessKey(accountId),
          UpdateExpression: 'SET hostname = :hostname',
          ExpressionAttributeValues: { ':hostname': hostname() },
        }),
      );
      const before = (await flow.sandbox<SandboxRequest[]>('GET', '/_sandbox/requests')).length;
      const event = inboundEvent('EmployeeChanged', {
        accountId,
        employeeId: 2,
        customFields: { chaosBadge: 'x' },
      });

      // Act
      const response = await flow.invokeBatch('sync-employee', sqsFifoBatch([event]));

      // Assess
      expect(response.batchItemFailures).toEqual([]);
      const failures = flow
        .publishedFor(accountId, 'SyncFailed')
        .filter((f) => f.detail['sourceEventId'] === event.id);
      expect(failures.map((failure) => failure.detail['code'])).toEqual(['INVALID_HOSTNAME']);
      expect((await flow.sandbox<SandboxRequest[]>('GET', '/_sandbox/requests')).length).toBe(before);
      expect(trapHits).toEqual([]);
    },
  );
});
