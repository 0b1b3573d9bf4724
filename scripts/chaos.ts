import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { showHandlerOutput } from '#local/handler-output.ts';
import { type ChaosReport, runChaos } from '#scripts/chaos/run.ts';
import { runChecks, verdictSummary } from '#scripts/chaos/verdict.ts';

/**
 * npm run chaos -- [--events N] [--accounts A] [--fault-rate R] [--duplicate-rate D] [--seed S]
 *                  [--crash-rate C] [--rate-limit L] [--log-level LEVEL] [--json-logs] [--json] [--report FILE]
 *
 * Drives the local runtime with N mixed events under faults, duplicates and crashes, compares the
 * outcome with a model computed from the events sent, prints the figures and exits 0 only when
 * nothing was duplicated and nothing was lost (docs/reliability.md) and, with `--rate-limit`, the
 * request budget's checks hold too (scripts/chaos/verdict.ts RATE_LIMIT_THRESHOLDS,
 * docs/performance.md).
 */

const USAGE =
  'usage: npm run chaos -- [--events N] [--accounts A] [--fault-rate R] [--duplicate-rate D] [--seed S] [--crash-rate C] [--rate-limit L] [--log-level LEVEL] [--json-logs] [--json] [--report FILE]';

function numberOption(
  values: Record<string, string | boolean | undefined>,
  name: string,
): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(value)) {
    throw new TypeError(`--${name} must be a number, got ${String(raw)}`);
  }
  return value;
}

function rateOption(values: Record<string, string | boolean | undefined>, name: string): number | undefined {
  const value = numberOption(values, name);
  if (value !== undefined && (value < 0 || value > 1))
    throw new RangeError(`--${name} must be between 0 and 1`);
  return value;
}

function formatReport(report: ChaosReport): string {
  const o = report.options;
  const lines = [
    `chaos run: events=${o.events} accounts=${o.accounts} fault-rate=${o.faultRate} duplicate-rate=${o.duplicateRate} crash-rate=${o.crashRate} rate-limit=${o.rateLimit ?? 'none'} seed=${o.seed}`,
    `  sent                ${report.sent}  (${Object.entries(report.sentByDetailType)
      .map(([type, n]) => `${type} ${n}`)
      .join(', ')})`,
    `  delivered again     ${report.duplicatesDelivered}  (processed records whose delete was lost)`,
    `  applied             ${report.applied}`,
    `  SyncFailed          ${report.syncFailedTotal}  (${
      Object.entries(report.syncFailed)
        .map(([code, n]) => `${code} ${n}`)
        .join(', ') || 'none'
    })`,
    `  kept for redrive    ${report.keptForRedrive}  (in a dead-letter queue, each also reported with SyncFailed; by cause: ${
      Object.entries(report.deadLetteredByCause)
        .map(([cause, n]) => `${cause} ${n}`)
        .join(', ') || 'none'
    })`,
    `  records that gave up without a SyncFailed: ${report.gaveUpWithoutSyncFailed}`,
    `  no-op (by design)   ${report.acknowledgedNoOp}`,
    `  lost                ${report.lost}`,
    `  duplicates created  ${report.duplicates.total}  (businesses ${report.duplicates.businesses}, locations ${report.duplicates.locations}, areas ${report.duplicates.areas}, slots per apiName ${report.duplicates.slotsPerApiName}, apiNames per slot ${report.duplicates.apiNamesPerSlot}, table slot collisions ${report.duplicates.tableSlotCollisions}, trial announcements ${report.duplicates.announcements})`,
    `  trial watch         announced ${report.trialAnnouncements.announced} trials; on trial but not announced ${report.trialAnnouncements.missing}`,
    `  invalid mishandled  ${report.invalidMishandled.length}`,
    `  order violations    ${report.orderViolations}`,
    `  mismatches          ${report.mismatches.length}`,
    `  faults injected     ${report.faultsInjected}; crashes ${
      Object.entries(report.crashes)
        .map(([name, n]) => `${name} ${n}`)
        .join(', ') || 'none'
    }`,
    `  retries             ${report.retries.total}  (429 ${report.retries.status429} of which rate limiter ${report.retries.rateLimited}, 5xx ${report.retries.status500}, no answer ${report.retries.noAnswer}, redeliveries ${report.retries.redeliveries})`,
    `  service requests    ${report.requests.total}  (accepted ${report.requests.accepted}; accepted/s over the ${report.requests.busySeconds} busy seconds ${report.requests.busyMeanAcceptedPerSecond}, over the whole run ${report.requests.meanAcceptedPerSecond}, peak ${report.requests.peakAcceptedPerSecond})`,
    `  wall time           ${(report.wallTimeMs / 1000).toFixed(1)} s  (event-loop delay p50 ${report.eventLoopDelayMs.p50} ms, p99 ${report.eventLoopDelayMs.p99} ms, max ${report.eventLoopDelayMs.max} ms: the handlers, dynalite and the sandbox share this process)`,
  ];
  for (const lost of report.lostEvents.slice(0, 20))
    lines.push(`  LOST ${lost.detailType} ${lost.eventId} (${lost.account})`);
  for (const bad of report.invalidMishandled.slice(0, 20))
    lines.push(`  INVALID ${bad.detailType} ${bad.eventId}: ${bad.outcome}`);
  for (const mismatch of report.mismatches.slice(0, 20)) lines.push(`  MISMATCH ${mismatch}`);
  if (report.tokenInEnvironment.length > 0)
    lines.push(`  TOKEN IN ENV ${report.tokenInEnvironment.join(', ')}`);
  const checks = runChecks(report, o.rateLimit);
  const failed = Object.entries(checks)
    .filter(([, check]) => !check.passed)
    .map(([name, check]) => {
      const limit =
        'max' in check
          ? `max ${check.max}`
          : 'below' in check
            ? `below ${check.below}`
            : `at least ${check.atLeast}`;
      return `${name} ${check.value} (${limit})`;
    });
  lines.push(
    report.passed
      ? `PASS: no duplicates, nothing lost, nothing given up in silence${
          o.rateLimit === null
            ? ''
            : '; no record dead-lettered for throttling, 429 answers under 2 % of requests, at least 85 % of the limit accepted per second over the busy period'
        }`
      : `FAIL: ${failed.join('; ')}`,
  );
  return lines.join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string' },
      accounts: { type: 'string' },
      'fault-rate': { type: 'string' },
      'duplicate-rate': { type: 'string' },
      'crash-rate': { type: 'string' },
      'rate-limit': { type: 'string' },
      seed: { type: 'string' },
      'log-level': { type: 'string' },
      'json-logs': { type: 'boolean' },
      json: { type: 'boolean' },
      report: { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const events = numberOption(values, 'events');
  const accounts = numberOption(values, 'accounts');
  const faultRate = rateOption(values, 'fault-rate');
  const duplicateRate = rateOption(values, 'duplicate-rate');
  const crashRate = rateOption(values, 'crash-rate');
  const rateLimit = numberOption(values, 'rate-limit');
  const seed = numberOption(values, 'seed');
  // The handlers' JSON logs as one line each, their EMF metric lines dropped (local/handler-output.ts).
  showHandlerOutput(values['json-logs'] ? 'json' : 'lines');
  const report = await runChaos({
    ...(events === undefined ? {} : { events }),
    ...(accounts === undefined ? {} : { accounts }),
    ...(faultRate === undefined ? {} : { faultRate }),
    ...(duplicateRate === undefined ? {} : { duplicateRate }),
    ...(crashRate === undefined ? {} : { crashRate }),
    ...(rateLimit === undefined ? {} : { rateLimit }),
    ...(seed === undefined ? {} : { seed }),
    ...(values['log-level'] === undefined ? {} : { logLevel: values['log-level'] }),
    onProgress: (line) => process.stderr.write(`${line}\n`),
  });
  if (values.report !== undefined) {
    // The token is a random one made for this run; it goes to the file so a scan can look for it.
    writeFileSync(values.report, JSON.stringify(report, null, 2));
  }
  const { token: _token, personalData: _personalData, ...printable } = report;
  process.stdout.write(`${formatReport({ ...printable, token: '', personalData: [] })}\n`);
  // Last line: the verdict as one JSON object, for scripts and release checks.
  if (values.json) {
    const summary = verdictSummary(report, {
      rateLimit: report.options.rateLimit,
      wallTimeMs: report.wallTimeMs,
      eventLoopDelayMs: report.eventLoopDelayMs,
    });
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  }
  return report.passed ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`chaos: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    process.exit(2);
  },
);
