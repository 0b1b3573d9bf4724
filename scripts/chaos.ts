import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseSeed } from '#local/aws/delivery-model.ts';
import { showHandlerOutput } from '#local/handler-output.ts';
import { formatMarkdown, formatReport } from '#scripts/chaos/report.ts';
import { runChaos } from '#scripts/chaos/run.ts';
import { verdictSummary } from '#scripts/chaos/verdict.ts';
import { commandLine, sourceRevision } from '#scripts/provenance.ts';

/**
 * npm run chaos -- [--events N] [--accounts A] [--fault-rate R] [--duplicate-rate D] [--seed S]
 *                  [--ordered-delivery] [--crash-rate C] [--rate-limit L] [--log-level LEVEL] [--json-logs]
 *                  [--json] [--report FILE] [--markdown FILE]
 *
 * Drives the local runtime with N mixed events under faults, duplicates and crashes, compares the
 * outcome with a model computed from the events sent, prints the figures and exits 0 only when
 * every check of scripts/chaos/verdict.ts `runChecks` holds (nothing duplicated, lost or given up in
 * silence, no invalid event mishandled, no mismatch, no order violation, no event given up waiting
 * for a business whose AccountCreated was sent, the token in no environment variable:
 * docs/reliability.md) and, with `--rate-limit`, the
 * request budget's checks hold too (scripts/chaos/verdict.ts RATE_LIMIT_THRESHOLDS,
 * docs/performance.md).
 */

const USAGE =
  'usage: npm run chaos -- [--events N] [--accounts A] [--fault-rate R] [--duplicate-rate D] [--seed S] [--ordered-delivery] [--crash-rate C] [--rate-limit L] [--log-level LEVEL] [--json-logs] [--json] [--report FILE] [--markdown FILE]\n' +
  "  --seed S            seeds the workload, the faults, the crashes and the local runtime's delivery model (default 1)\n" +
  '  --ordered-delivery  the local runtime delivers in send order and nothing twice: for debugging only, AWS gives no such order';

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
      'ordered-delivery': { type: 'boolean' },
      'log-level': { type: 'string' },
      'json-logs': { type: 'boolean' },
      markdown: { type: 'string' },
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
  const seed = values.seed === undefined ? undefined : parseSeed(values.seed);
  // By default the handlers' JSON logs as one line each, their EMF metric lines dropped; --json-logs
  // keeps their output as deployed (local/handler-output.ts).
  showHandlerOutput(values['json-logs'] ? 'json' : 'lines');
  const revision = sourceRevision();
  const report = await runChaos({
    ...(events === undefined ? {} : { events }),
    ...(accounts === undefined ? {} : { accounts }),
    ...(faultRate === undefined ? {} : { faultRate }),
    ...(duplicateRate === undefined ? {} : { duplicateRate }),
    ...(crashRate === undefined ? {} : { crashRate }),
    ...(rateLimit === undefined ? {} : { rateLimit }),
    ...(seed === undefined ? {} : { seed }),
    ...(values['ordered-delivery'] ? { orderedDelivery: true } : {}),
    ...(values['log-level'] === undefined ? {} : { logLevel: values['log-level'] }),
    onProgress: (line) => process.stderr.write(`${line}\n`),
  });
  if (values.report !== undefined) {
    // The token is a random one made for this run; it goes to the file so a scan can look for it.
    writeFileSync(values.report, JSON.stringify(report, null, 2));
  }
  const { token: _token, personalData: _personalData, ...printable } = report;
  const shown = { ...printable, token: '', personalData: [] };
  process.stdout.write(`${formatReport(shown)}\n`);
  if (values.markdown !== undefined) {
    writeFileSync(
      values.markdown,
      formatMarkdown(shown, commandLine('chaos', process.argv.slice(2)), new Date(), revision),
    );
  }
  // Last line: the verdict as one JSON object, for scripts and release checks.
  if (values.json) {
    const summary = verdictSummary(report, {
      rateLimit: report.options.rateLimit,
      wallTimeMs: report.wallTimeMs,
      eventLoopDelayMs: report.eventLoopDelayMs,
      signupsResolved: report.signupsResolved,
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
