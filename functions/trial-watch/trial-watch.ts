import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { region as regionSchema } from '#functions/contracts/fields.ts';
import { DAY_MS } from '#functions/domain/time.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import { type DueRunProgress, runDueItems, startedDueRun } from '#functions/runtime/due-run.ts';
import { MetricName } from '#functions/runtime/metric-names.ts';
import { TRIAL_EDITION, updateEdition } from '#functions/store/business.ts';
import {
  claimThresholdAnnouncement,
  confirmThresholdAnnouncement,
  releaseThresholdAnnouncement,
  type TrialThreshold,
} from '#functions/store/thresholds.ts';
import { type DueTrial, trialsEndingBefore } from '#functions/store/trial-index.ts';

export interface TrialWatchInput {
  /** Id of this run (the scheduled event id): every published event's causationId. */
  runId: string;
  /**
   * The scheduled event's `time`, used as "now". The local runtime sets it from the sandbox clock,
   * so moving that clock moves the watch; a missing or unreadable value falls back to clock.now().
   */
  scheduledTime?: string;
  /** Time left before the Lambda is stopped (context.getRemainingTimeInMillis). */
  remainingTimeMs: () => number;
}

export interface TrialWatchOptions {
  /** Index items per shard query. @default DUE_PAGE_SIZE (functions/store/sharded-index.ts) */
  pageSize?: number;
  /** Businesses handled at once (each may call subscription-status). @default 8 */
  concurrency?: number;
  /**
   * No new business is started once less than this is left: enough for the ones in flight to
   * finish a service call with its retries (5 s timeout × 3 attempts) and publish. @default 20000
   */
  reserveMs?: number;
}

export interface TrialWatchReport extends DueRunProgress {
  runId: string;
  now: string;
  /** Trials ending at or before this were read (now + the largest threshold). */
  readUntil: string;
  /** Due businesses handled in this run (announced, silently claimed or nothing to do). */
  processed: number;
  expiringAnnounced: number;
  endedAnnounced: number;
}

type TrialOutcome = 'expiring' | 'ended' | 'nothing';

/**
 * trialWatch — scheduled → TrialExpiring / TrialEnded.
 *
 * Input: run id, scheduled time ("now"), remaining Lambda time.
 * Output: the report (also logged once and sent as metrics); events are published as it goes.
 *
 * Steps:
 * 1. now = scheduled time (or clock.now()); read only the trials ending before now + the largest
 *    threshold from the sparse, sharded trial index, page by page (never a scan).
 * 2. Per due business, at most `concurrency` at once, while enough Lambda time is left:
 *    - trial not over: daysLeft = ceil((end - now) / 1 day). Of the thresholds crossed
 *      (daysLeft <= threshold) only the most urgent is announced; larger ones crossed at the same
 *      time (the watch first sees the business at 2 days left) are claimed silently, so a partner
 *      never receives "7 days left" after "2 days left".
 *    - trial over: ask subscription-status; if the service still reports the trial (its clock has
 *      not caught up) nothing happens now. Otherwise TrialEnded with the service's edition, and
 *      the mapping is updated so the business leaves the trial index.
 * 3. Exactly once per business, trial end and threshold: claim (conditional put) → publish →
 *    on publish failure release the claim. Two overlapping runs cannot both win a claim; a crash
 *    between claim and publish leaves an unconfirmed lease that a run after `CLAIM_LEASE_MS`
 *    takes over, so the announcement comes late rather than never; a duplicate is possible only
 *    for a crash after publish and before the confirm write.
 * 4. Stop before the Lambda's time runs out; what is left is picked up by the next run (claims are
 *    idempotent, so re-reading handled businesses costs reads, not duplicates).
 * 5. Throttling is not failure (as in the drift watch): when the shared request budget cannot give
 *    a request soon, or the service asks for a longer pause than the client waits, no further
 *    business is started; they stay due, the run is reported incomplete (`stoppedBy:
 *    'throttling'`, metric TrialWatchThrottled) and nothing counts as failed. The run stops for
 *    every region's businesses, not only the throttled one's: the next run (an hour later, or
 *    `POST /_local/scheduled`) takes them all up again, and a run never outpaces the budget.
 */
export async function trialWatch(
  input: TrialWatchInput,
  dependencies: Dependencies,
  options: TrialWatchOptions = {},
): Promise<TrialWatchReport> {
  const { store, config, logger, metrics } = dependencies;
  const concurrency = options.concurrency ?? 8;
  const reserveMs = options.reserveMs ?? 20_000;
  const now = scheduledNow(input.scheduledTime) ?? dependencies.clock.now();
  const thresholds = [...config.trialThresholdsDays].sort((a, b) => b - a);
  const readUntil = new Date(now.getTime() + (thresholds[0] ?? 0) * DAY_MS);
  const report: TrialWatchReport = {
    runId: input.runId,
    now: now.toISOString(),
    readUntil: readUntil.toISOString(),
    ...startedDueRun(),
    processed: 0,
    expiringAnnounced: 0,
    endedAnnounced: 0,
  };
  const timeIsShort = () => input.remainingTimeMs() < reserveMs;
  await runDueItems(
    trialsEndingBefore(store, readUntil, options),
    report,
    { watch: 'trial watch', concurrency, timeIsShort, logger },
    async (trial) => {
      const outcome = await watchTrial(trial, now, thresholds, input.runId, dependencies);
      if (outcome === 'expiring') report.expiringAnnounced += 1;
      if (outcome === 'ended') report.endedAnnounced += 1;
      report.processed += 1;
    },
  );

  logger.info('trial watch run finished', { ...report });
  metrics.addMetric('TrialWatchItemsRead', MetricUnit.Count, report.itemsRead);
  metrics.addMetric('TrialWatchProcessed', MetricUnit.Count, report.processed);
  metrics.addMetric(MetricName.TrialWatchRemaining, MetricUnit.Count, report.remaining);
  metrics.addMetric(MetricName.TrialWatchFailed, MetricUnit.Count, report.failed);
  metrics.addMetric(MetricName.TrialWatchThrottled, MetricUnit.Count, report.throttled);
  metrics.addMetric('TrialExpiringAnnounced', MetricUnit.Count, report.expiringAnnounced);
  metrics.addMetric('TrialEndedAnnounced', MetricUnit.Count, report.endedAnnounced);
  return report;
}

async function watchTrial(
  trial: DueTrial,
  now: Date,
  thresholds: readonly number[],
  runId: string,
  dependencies: Dependencies,
): Promise<TrialOutcome> {
  const msLeft = Date.parse(trial.trialEndDate) - now.getTime();
  if (msLeft > 0) return announceExpiring(trial, Math.ceil(msLeft / DAY_MS), thresholds, runId, dependencies);
  return announceEnded(trial, runId, dependencies);
}

async function announceExpiring(
  trial: DueTrial,
  daysLeft: number,
  thresholds: readonly number[],
  runId: string,
  dependencies: Dependencies,
): Promise<TrialOutcome> {
  const { store, clock } = dependencies;
  const crossed = thresholds.filter((threshold) => daysLeft <= threshold);
  if (crossed.length === 0) return 'nothing';
  const mostUrgent = Math.min(...crossed);
  await Promise.all(
    crossed
      .filter((threshold) => threshold !== mostUrgent)
      .map((threshold) =>
        claimThresholdAnnouncement(store, trial.accountId, trial.trialEndDate, threshold, clock.now()),
      ),
  );
  const announced = await announceOnce(trial, mostUrgent, runId, dependencies, {
    detailType: 'TrialExpiring',
    detail: { hostname: trial.hostname, daysLeft, trialEndDate: trial.trialEndDate },
  });
  return announced ? 'expiring' : 'nothing';
}

async function announceEnded(
  trial: DueTrial,
  runId: string,
  dependencies: Dependencies,
): Promise<TrialOutcome> {
  const { store, service, clock } = dependencies;
  // Before the call: a plan change recorded while it was under way stays (report-subscription-status.ts).
  const observedAt = clock.now();
  const status = await service.provisioning.subscriptionStatus(
    trial.hostname,
    regionSchema.parse(trial.region),
  );
  const reportedEnd = status.trialEndDate ?? trial.trialEndDate;
  if (status.edition === TRIAL_EDITION) {
    // The service still runs the trial (its end moved, or its clock lags ours): record what it
    // says, which re-files the business in the index under the new end, and look again later.
    await updateEdition(store, trial.accountId, {
      edition: status.edition,
      trialEndDate: reportedEnd,
      syncedAt: observedAt,
    });
    return 'nothing';
  }
  const announced = await announceOnce(trial, 'ENDED', runId, dependencies, {
    detailType: 'TrialEnded',
    detail: { hostname: trial.hostname, edition: status.edition, trialEndDate: trial.trialEndDate },
  });
  // After the announcement, so a failed publish leaves the business in the index for a retry.
  await updateEdition(store, trial.accountId, {
    edition: status.edition,
    trialEndDate: reportedEnd,
    syncedAt: observedAt,
  });
  return announced ? 'ended' : 'nothing';
}

async function announceOnce(
  trial: DueTrial,
  threshold: TrialThreshold,
  runId: string,
  { store, clock, publisher, interruptions }: Dependencies,
  event: OutboundEvent,
): Promise<boolean> {
  const claimed = await claimThresholdAnnouncement(
    store,
    trial.accountId,
    trial.trialEndDate,
    threshold,
    clock.now(),
  );
  if (!claimed) return false;
  // Claimed but not yet published: a crash here must not lead to a second announcement.
  interruptions?.at('trial-watch.after-claim');
  try {
    await publisher.publish([
      {
        detailType: event.detailType,
        detail: { accountId: trial.accountId, causationId: runId, ...event.detail },
      },
    ]);
  } catch (error) {
    await releaseThresholdAnnouncement(store, trial.accountId, trial.trialEndDate, threshold);
    throw error;
  }
  await confirmThresholdAnnouncement(store, trial.accountId, trial.trialEndDate, threshold);
  return true;
}

function scheduledNow(time: string | undefined): Date | undefined {
  if (time === undefined) return undefined;
  const parsed = new Date(time);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed;
}
