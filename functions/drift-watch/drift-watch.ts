import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { edition as editionSchema, region as regionSchema } from '#functions/contracts/fields.ts';
import { ServiceRejectedError } from '#functions/domain/errors.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import { type DueRunProgress, runDueItems, startedDueRun } from '#functions/runtime/due-run.ts';
import {
  MetricName,
  UNCONFIRMED_SIGNUP_LOG_MESSAGE,
  UNCONFIRMED_SIGNUPS_LOGGED_PER_RUN,
} from '#functions/runtime/metric-names.ts';
import { hostnameNotLinkedReason, type ServiceAssumptions } from '#functions/service/assumptions.ts';
import {
  type BusinessRecord,
  getBusiness,
  markBusinessGone,
  scheduleDriftCheck,
  TRIAL_EDITION,
  unscheduleDriftCheck,
  updateEdition,
} from '#functions/store/business.ts';
import {
  driftChecksDueBefore,
  listUnconfirmedSignups,
  readUnconfirmedSignups,
} from '#functions/store/drift-index.ts';
import { claimDriftNotice, confirmDriftNotice, releaseDriftNotice } from '#functions/store/drift-notices.ts';
import { nextDriftCheck } from '#functions/store/drift-schedule.ts';

/**
 * A plan change that change-plan started (and has not recorded yet) is its own, not drift, for
 * this long: longer than a PlanChosen's retries (5 attempts, 1–8 minutes apart) take.
 */
export const PLAN_CHANGE_GRACE_MS = 6 * 3_600_000;

export interface DriftWatchInput {
  /** Id of this run (the scheduled event id): every published event's causationId. */
  runId: string;
  /** The scheduled event's `time`, used as "now" (the local runtime: the sandbox clock). */
  scheduledTime?: string;
  /** Time left before the Lambda is stopped (context.getRemainingTimeInMillis). */
  remainingTimeMs: () => number;
}

export interface DriftWatchOptions {
  /** Index items per shard query. @default DUE_PAGE_SIZE (functions/store/sharded-index.ts) */
  pageSize?: number;
  /** Businesses checked at once (each calls subscription-status). @default 8 */
  concurrency?: number;
  /** No new business is started once less than this is left (as the trial watch). @default 20000 */
  reserveMs?: number;
}

interface RunContext {
  runId: string;
  now: Date;
}

export interface DriftWatchReport extends DueRunProgress {
  runId: string;
  now: string;
  /** Due businesses compared with the service (or found not to need it). */
  checked: number;
  editionChangedAnnounced: number;
  goneAnnounced: number;
  /** Accounts whose signup is UNCONFIRMED (npm run signups -- --unconfirmed). */
  unconfirmedSignups: number;
  /** Of them, how many this run logged one by one (`unconfirmed signup`, the dashboard's list). */
  unconfirmedSignupsListed: number;
}

type DriftOutcome = 'unchanged' | 'edition-changed' | 'gone' | 'skipped';

/**
 * driftWatch — scheduled → BusinessEditionChanged / BusinessGone.
 *
 * The service sends nothing when it changes a business itself (deletes a free one, changes an
 * edition), so every tracked business is compared with it once per `DRIFT_CHECK_EVERY_HOURS`.
 *
 * Steps:
 * 1. Read only the businesses due (`driftDueAt <= now`) from the sparse, sharded drift index;
 *    each business's due time sits on its own phase of the cadence, so checks spread over it.
 * 2. Per due business (consistent read first; at most `concurrency` at once, while time is left):
 *    - not ACTIVE any more → out of the index, nothing else.
 *    - a plan change of change-plan in flight (its marker, younger than the grace) → skipped: the
 *      change it is making is the partner's own and is announced as PlanChanged.
 *    - on trial with the recorded trial end passed → the trial watch's (TrialEnded), not drift.
 *    - subscription-status refused as "not linked" (`hostnameNotLinkedReason`: a code of
 *      `serviceAssumptions.hostnameNotLinkedCodes` (default HOSTNAME_NOT_LINKED), a status of
 *      `.hostnameNotLinkedStatuses` (default none), or a message matching
 *      `.hostnameNotLinkedMessagePatterns` (default "not linked")) → BusinessGone once, `reason` =
 *      the service's code, or `HTTP <status>` when it sent none; the business
 *      becomes GONE (leaves both indexes; later events end in SyncFailed BUSINESS_GONE).
 *    - the service's edition differs from the recorded one, and no edition was recorded while the
 *      call ran → BusinessEditionChanged {previousEdition, edition} once; the edition is recorded.
 *    - otherwise refresh the trial end if it moved; next due time = the next slot of its phase.
 * 3. Exactly once: claim a drift notice (conditional put, lease) → publish → confirm → update the
 *    business. A failed publish releases the claim and leaves the business due for the next run.
 * 4. A business that fails is counted (the scheduled watches' TrialWatchFailed metric, this
 *    function's dimension) and stays due; the run itself never fails for it.
 * 5. Throttling is not failure: when the shared request budget cannot give a request soon
 *    (ThrottledError, nothing sent) or the service asks for a longer pause than the client waits,
 *    the run starts no further check. Those businesses stay due for the next run; the run is
 *    reported incomplete (`stoppedBy: 'throttling'`, `throttled`, metric DriftWatchThrottled),
 *    and nothing is counted as failed. It stops for every region's businesses, not only the
 *    throttled one's: the next run takes them all up again.
 * 6. The unconfirmed signups are counted (metric UnconfirmedSignups), and the oldest
 *    UNCONFIRMED_SIGNUPS_LOGGED_PER_RUN are logged one line each (`unconfirmed signup`:
 *    accountId, since, region, lastErrorCode — no personal data) for the dashboard's list.
 */
export async function driftWatch(
  input: DriftWatchInput,
  dependencies: Dependencies,
  options: DriftWatchOptions = {},
): Promise<DriftWatchReport> {
  const { store, logger, metrics } = dependencies;
  const concurrency = options.concurrency ?? 8;
  const reserveMs = options.reserveMs ?? 20_000;
  const timeIsShort = () => input.remainingTimeMs() < reserveMs;
  const scheduled = input.scheduledTime === undefined ? Number.NaN : Date.parse(input.scheduledTime);
  const now = Number.isNaN(scheduled) ? dependencies.clock.now() : new Date(scheduled);
  const run: RunContext = { runId: input.runId, now };
  const report: DriftWatchReport = {
    runId: input.runId,
    now: now.toISOString(),
    ...startedDueRun(),
    checked: 0,
    editionChangedAnnounced: 0,
    goneAnnounced: 0,
    unconfirmedSignups: 0,
    unconfirmedSignupsListed: 0,
  };
  const notLinked = dependencies.config.serviceAssumptions;
  await runDueItems(
    driftChecksDueBefore(store, now, options),
    report,
    { watch: 'drift watch', concurrency, timeIsShort, logger },
    async (due) => {
      const outcome = await checkBusiness(due.accountId, run, notLinked, dependencies);
      if (outcome === 'edition-changed') report.editionChangedAnnounced += 1;
      if (outcome === 'gone') report.goneAnnounced += 1;
      report.checked += 1;
    },
  );

  await reportUnconfirmedSignups(report, dependencies);
  logger.info('drift watch run finished', { ...report });
  metrics.addMetric('DriftWatchItemsRead', MetricUnit.Count, report.itemsRead);
  metrics.addMetric('DriftWatchChecked', MetricUnit.Count, report.checked);
  metrics.addMetric(MetricName.DriftWatchRemaining, MetricUnit.Count, report.remaining);
  metrics.addMetric(MetricName.DriftWatchThrottled, MetricUnit.Count, report.throttled);
  metrics.addMetric(MetricName.TrialWatchFailed, MetricUnit.Count, report.failed);
  metrics.addMetric(
    MetricName.BusinessEditionChangedAnnounced,
    MetricUnit.Count,
    report.editionChangedAnnounced,
  );
  metrics.addMetric(MetricName.BusinessGoneAnnounced, MetricUnit.Count, report.goneAnnounced);
  return report;
}

/**
 * Counts the unconfirmed signups (metric UnconfirmedSignups) and logs the oldest of them one line
 * each, for the dashboard's list: account, since, region and the last error's code (its message
 * may quote what the service said, so it stays out). A failure here never fails the run.
 */
async function reportUnconfirmedSignups(report: DriftWatchReport, dependencies: Dependencies): Promise<void> {
  const { store, logger, metrics } = dependencies;
  try {
    const unconfirmed = await listUnconfirmedSignups(store);
    report.unconfirmedSignups = unconfirmed.length;
    metrics.addMetric(MetricName.UnconfirmedSignups, MetricUnit.Count, report.unconfirmedSignups);
    const oldest = unconfirmed.slice(0, UNCONFIRMED_SIGNUPS_LOGGED_PER_RUN);
    for (const { accountId, since, region, lastError } of await readUnconfirmedSignups(store, oldest)) {
      logger.info(UNCONFIRMED_SIGNUP_LOG_MESSAGE, {
        accountId,
        since,
        region,
        ...(lastError ? { lastErrorCode: lastError.code } : {}),
      });
      report.unconfirmedSignupsListed += 1;
    }
  } catch (error) {
    logger.warn('drift watch could not list unconfirmed signups', { error: error as Error });
  }
}

async function checkBusiness(
  accountId: string,
  input: RunContext,
  notLinked: ServiceAssumptions,
  dependencies: Dependencies,
): Promise<DriftOutcome> {
  const { store, service, clock, config } = dependencies;
  const business = await getBusiness(store, accountId);
  if (business?.status !== 'ACTIVE' || business.hostname === undefined) {
    await unscheduleDriftCheck(store, accountId);
    return 'skipped';
  }
  const hostname = business.hostname;
  const reschedule = () =>
    scheduleDriftCheck(store, accountId, nextDriftCheck(accountId, input.now, config.driftCheckEveryHours));
  const planChangeAt = business.planChangeRequestedAt
    ? Date.parse(business.planChangeRequestedAt)
    : Number.NaN;
  // Left due: the next run looks again once change-plan has recorded its result.
  if (input.now.getTime() - planChangeAt < PLAN_CHANGE_GRACE_MS) return 'skipped';
  if (
    business.edition === TRIAL_EDITION &&
    business.trialEndDate !== undefined &&
    Date.parse(business.trialEndDate) <= input.now.getTime()
  ) {
    await reschedule();
    return 'skipped';
  }

  // Before the call: an edition recorded while it runs (a PlanChosen) is newer than this answer.
  const observedAt = clock.now();
  let status: Awaited<ReturnType<typeof service.provisioning.subscriptionStatus>>;
  try {
    status = await service.provisioning.subscriptionStatus(hostname, regionSchema.parse(business.region));
  } catch (error) {
    const reason =
      error instanceof ServiceRejectedError ? hostnameNotLinkedReason(error, notLinked) : undefined;
    if (reason !== undefined) return announceGone(business, hostname, reason, input, dependencies);
    throw error;
  }

  if (status.edition === business.edition) {
    if (status.trialEndDate && status.trialEndDate !== business.trialEndDate) {
      await updateEdition(store, accountId, {
        edition: status.edition,
        trialEndDate: status.trialEndDate,
        syncedAt: observedAt,
      });
    }
    await reschedule();
    return 'unchanged';
  }

  // Something was recorded while the call ran (a plan change): that is the newer truth; look again later.
  const after = await getBusiness(store, accountId);
  if (after?.status !== 'ACTIVE' || after.editionSyncedAt !== business.editionSyncedAt) return 'skipped';

  const since = business.editionSyncedAt ?? business.provisionedAt ?? business.claimedAt;
  const notice = `EDITION#${since}#${status.edition}`;
  const announced = await announceOnce(accountId, notice, input, dependencies, {
    detailType: 'BusinessEditionChanged',
    detail: {
      hostname,
      previousEdition: editionSchema.parse(business.edition),
      edition: status.edition,
    },
  });
  if (announced === 'held') return 'skipped';
  await updateEdition(store, accountId, {
    edition: status.edition,
    ...(status.trialEndDate ? { trialEndDate: status.trialEndDate } : {}),
    syncedAt: observedAt,
  });
  await reschedule();
  return announced === 'claimed' ? 'edition-changed' : 'unchanged';
}

async function announceGone(
  business: BusinessRecord,
  hostname: string,
  reason: string,
  input: RunContext,
  dependencies: Dependencies,
): Promise<DriftOutcome> {
  const announced = await announceOnce(business.accountId, `GONE#${hostname}`, input, dependencies, {
    detailType: 'BusinessGone',
    detail: {
      hostname,
      lastKnownEdition: editionSchema.parse(business.edition),
      detectedAt: input.now.toISOString(),
      reason,
    },
  });
  if (announced === 'held') return 'skipped';
  await markBusinessGone(dependencies.store, business.accountId, {
    hostname,
    reason,
    at: input.now,
  });
  return announced === 'claimed' ? 'gone' : 'unchanged';
}

async function announceOnce(
  accountId: string,
  notice: string,
  input: RunContext,
  { store, clock, publisher }: Dependencies,
  event: { detailType: 'BusinessEditionChanged' | 'BusinessGone'; detail: Record<string, unknown> },
): Promise<'claimed' | 'published' | 'held'> {
  const claim = await claimDriftNotice(store, accountId, notice, clock.now());
  if (claim !== 'claimed') return claim;
  try {
    await publisher.publish([
      { detailType: event.detailType, detail: { accountId, causationId: input.runId, ...event.detail } },
    ]);
  } catch (error) {
    await releaseDriftNotice(store, accountId, notice);
    throw error;
  }
  await confirmDriftNotice(store, accountId, notice);
  return 'claimed';
}
