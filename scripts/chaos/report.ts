import {
  formatMachineDescription,
  formatRunDate,
  generatedLine,
  markdownCell,
  thisMachine,
} from '#scripts/provenance.ts';
import type { ChaosReport } from './run.ts';
import { RATE_LIMIT_THRESHOLDS, runChecks } from './verdict.ts';
import { CORRECTION_RATE } from './workload.ts';

/** How a chaos run reads: for the console (`npm run chaos`) and as a Markdown page (`--markdown`). */

/** The figures of a run, label and value, for the console and the Markdown page alike. */
function reportRows(report: ChaosReport): Array<[string, string]> {
  const list = (entries: Record<string, number>) =>
    Object.entries(entries)
      .map(([name, n]) => `${name} ${n}`)
      .join(', ') || 'none';
  return [
    ['sent', `${report.sent}  (${list(report.sentByDetailType)})`],
    ['delivered again', `${report.duplicatesDelivered}  (processed records whose delete was lost)`],
    [
      'reordered',
      `${report.reordered}  (deliveries the runtime made out of send or publish order, as AWS may: standard queues, rule deliveries, pipes)`,
    ],
    [
      'redelivered',
      `${report.redelivered}  (copies a standard queue delivered again, as SQS's at-least-once delivery may)`,
    ],
    ['applied', `${report.applied}`],
    ['SyncFailed', `${report.syncFailedTotal}  (${list(report.syncFailed)})`],
    [
      'kept for redrive',
      `${report.keptForRedrive}  (in a dead-letter queue, each also reported with SyncFailed; by cause: ${list(report.deadLetteredByCause)})`,
    ],
    ['gave up without a SyncFailed', `${report.gaveUpWithoutSyncFailed}`],
    [
      'denied AWS calls',
      `${report.deniedCalls.length}  (calls of functions, rules, pipes, event source mappings and schedules the template's IAM refused: local/iam/)`,
    ],
    [
      'RETRIES_EXHAUSTED by BUSINESS_NOT_PROVISIONED',
      `${report.gaveUpAwaitingBusiness}  (events of accounts whose AccountCreated was sent: they wait for the business uncounted)`,
    ],
    [
      'unconfirmed signups resolved',
      `${report.signupsResolved.resolved} of ${report.signupsResolved.unconfirmed}  (npm run resolve-signup during phase 2, ${report.signupsResolved.waitedPastBudget ? 'once their events had waited past the 5-attempt retry budget' : 'without seeing their events wait past the retry budget'}; ${report.signupsResolved.waitingEvents} of their events were waiting, ${report.signupsResolved.appliedAfter} applied after, no redrive)`,
    ],
    ['no-op (by design)', `${report.acknowledgedNoOp}`],
    [
      'superseded',
      `${report.superseded}  (answered with SyncSkipped SUPERSEDED: a newer event on one of their things was applied first)`,
    ],
    ['lost', `${report.lost}`],
    [
      'duplicates created',
      `${report.duplicates.total}  (businesses ${report.duplicates.businesses}, locations ${report.duplicates.locations}, areas ${report.duplicates.areas}, slots per apiName ${report.duplicates.slotsPerApiName}, apiNames per slot ${report.duplicates.apiNamesPerSlot}, table slot collisions ${report.duplicates.tableSlotCollisions}, trial announcements ${report.duplicates.announcements})`,
    ],
    [
      'trial watch',
      `announced ${report.trialAnnouncements.announced} trials; on trial but not announced ${report.trialAnnouncements.missing}`,
    ],
    ['invalid mishandled', `${report.invalidMishandled.length}`],
    ['order violations', `${report.orderViolations}`],
    ['mismatches', `${report.mismatches.length}`],
    ['faults injected', `${report.faultsInjected}; crashes ${list(report.crashes)}`],
    [
      'retries',
      `${report.retries.total}  (429 ${report.retries.status429} of which rate limiter ${report.retries.rateLimited}, 5xx ${report.retries.status500}, no answer ${report.retries.noAnswer}, redeliveries ${report.retries.redeliveries})`,
    ],
    [
      'service requests',
      `${report.requests.total}  (accepted ${report.requests.accepted}; accepted/s over the ${report.requests.busySeconds} busy seconds ${report.requests.busyMeanAcceptedPerSecond}, over the whole run ${report.requests.meanAcceptedPerSecond}, peak ${report.requests.peakAcceptedPerSecond})`,
    ],
    [
      'wall time',
      `${(report.wallTimeMs / 1000).toFixed(1)} s  (event-loop delay p50 ${report.eventLoopDelayMs.p50} ms, p99 ${report.eventLoopDelayMs.p99} ms, max ${report.eventLoopDelayMs.max} ms: the handlers, dynalite and the sandbox share this process)`,
    ],
  ];
}

function optionsLine(report: ChaosReport): string {
  const o = report.options;
  return `events=${o.events} accounts=${o.accounts} fault-rate=${o.faultRate} duplicate-rate=${o.duplicateRate} crash-rate=${o.crashRate} rate-limit=${o.rateLimit ?? 'none'} seed=${o.seed} ${o.orderedDelivery ? 'ordered-delivery' : `redelivery-rate=${o.redeliveryRate}`}${o.lastWriterWins ? '' : ' last-writer-wins=off'}${o.correctionRate === CORRECTION_RATE ? '' : ` correction-rate=${o.correctionRate}`}${o.correctionsFirst ? ' corrections-first' : ''}`;
}

/**
 * The run as a Markdown page for the docs (issue #16: every figure comes from a committed run, with
 * its command and date, stated once).
 */
export function formatMarkdown(
  report: ChaosReport,
  command: string,
  at: Date = new Date(),
  revision = 'commit unknown',
): string {
  return [
    '# Chaos run results',
    '',
    generatedLine(
      command,
      `${formatRunDate(at)}, ${revision}, on ${formatMachineDescription(thisMachine())}`,
    ),
    `What the run does and how the verdict is computed: [reliability.md](../reliability.md).`,
    '',
    '| figure | value |',
    '|---|---|',
    `| settings | ${optionsLine(report)} |`,
    ...reportRows(report).map(([label, value]) => `| ${label} | ${markdownCell(value)} |`),
    `| verdict | ${verdictLine(report)} |`,
    '',
  ].join('\n');
}

/** What a rate-limited run held when it passed, in the words of RATE_LIMIT_THRESHOLDS. */
function rateLimitPassText(): string {
  const t = RATE_LIMIT_THRESHOLDS;
  const percent = (share: number) => `${Math.round(share * 1000) / 10} %`;
  const deadLetters =
    t.throttlingDeadLetters === 0 ? 'no record' : `at most ${t.throttlingDeadLetters} records`;
  return `${deadLetters} dead-lettered for throttling, 429 answers under ${percent(t.answers429ShareBelow)} of requests, at least ${percent(t.busyAcceptedShareOfLimit)} of the limit accepted per second over the busy period`;
}

function verdictLine(report: ChaosReport): string {
  const o = report.options;
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
  return report.passed
    ? `PASS: no duplicates, nothing lost, nothing given up in silence, no invalid event mishandled, no table/service mismatch, no order violation, no event given up waiting for a business on its way, the run token in no environment variable, no AWS call denied by the template's IAM${
        o.rateLimit === null ? '' : `; ${rateLimitPassText()}`
      }`
    : `FAIL: ${failed.join('; ')}`;
}

export function formatReport(report: ChaosReport): string {
  const lines = [
    `chaos run: ${optionsLine(report)}`,
    ...reportRows(report).map(([label, value]) => `  ${label.padEnd(19)} ${value}`),
  ];
  for (const lost of report.lostEvents.slice(0, 20))
    lines.push(`  LOST ${lost.detailType} ${lost.eventId} (${lost.account})`);
  for (const bad of report.invalidMishandled.slice(0, 20))
    lines.push(`  INVALID ${bad.detailType} ${bad.eventId}: ${bad.outcome}`);
  for (const mismatch of report.mismatches.slice(0, 20)) lines.push(`  MISMATCH ${mismatch}`);
  for (const violation of report.orderViolationList.slice(0, 20)) {
    lines.push(
      `  ORDER ${violation.account} ${violation.thing}: newest event ${violation.newest.eventId} (sent #${violation.newest.order}) asks for ${violation.newest.value}; ${violation.found.join('; ')}`,
    );
  }
  if (report.tokenInEnvironment.length > 0)
    lines.push(`  TOKEN IN ENV ${report.tokenInEnvironment.join(', ')}`);
  for (const denied of report.deniedCalls.slice(0, 20))
    lines.push(`  DENIED ${denied.principal}: ${denied.action} on ${denied.resource} ${denied.reason}`);
  lines.push(verdictLine(report));
  return lines.join('\n');
}
