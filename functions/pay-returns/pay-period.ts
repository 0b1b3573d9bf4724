import { MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  MAX_TIMESHEETS_PER_REQUEST,
  type PayReturnsRequestedDetail,
} from '#functions/contracts/inbound/pay-returns-requested.ts';
import type { PayReturnsCompletedDetail } from '#functions/contracts/outbound/pay-returns-completed.ts';
import { PermanentError, RetryableError, ServiceRejectedError } from '#functions/domain/errors.ts';
import { serviceRejection } from '#functions/domain/service-rejection.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import { MetricName } from '#functions/runtime/metric-names.ts';
import type { InstallClient } from '#functions/service/install.ts';
import { type PeriodRead, timesheetsOfPeriod } from '#functions/service/timesheet-period.ts';
import { CLAIM_LEASE_MS } from '#functions/store/announcements.ts';
import {
  claimPayReturnsCompleted,
  confirmPayReturnsCompleted,
  releasePayReturnsCompleted,
} from '#functions/store/pay-return-completions.ts';

/**
 * PayReturnsRequested by period: which timesheets the period holds, and the answer's end,
 * PayReturnsCompleted, published once per request.
 */

export interface Period extends PeriodRead {
  from: string;
  to: string;
}

/** The period of a request in the period form (the contract guarantees from and to there). */
export function periodOf(detail: PayReturnsRequestedDetail): Period {
  if (detail.from === undefined || detail.to === undefined) {
    throw new PermanentError(
      'INVALID_REQUEST',
      'a PayReturnsRequested without timesheetIds needs from and to',
    );
  }
  return {
    from: detail.from,
    to: detail.to,
    ...(detail.locationIds ? { locationIds: detail.locationIds } : {}),
    ...(detail.employeeIds ? { employeeIds: detail.employeeIds } : {}),
  };
}

/**
 * The ids of the period's timesheets, in date then id order. More than one request answers (as
 * many as the by-id form takes) is refused whole: no part of the set is announced as the set.
 */
export async function timesheetIdsOfPeriod(
  install: InstallClient,
  period: Period,
  { config }: Dependencies,
): Promise<number[]> {
  const assumptions = config.serviceAssumptions;
  let found: Awaited<ReturnType<typeof timesheetsOfPeriod>>;
  try {
    found = await timesheetsOfPeriod(install, period, {
      resource: assumptions.timesheetResource,
      dateField: assumptions.timesheetDateField,
    });
  } catch (error) {
    if (error instanceof ServiceRejectedError) {
      throw serviceRejection(`reading the timesheets of ${period.from}..${period.to}`, error);
    }
    throw error;
  }
  if (found.length > MAX_TIMESHEETS_PER_REQUEST) {
    throw new PermanentError(
      'PERIOD_TOO_LARGE',
      `${period.from}..${period.to} holds ${found.length} timesheets, more than the ${MAX_TIMESHEETS_PER_REQUEST} one request answers: ask for a shorter period, or by locationIds or employeeIds`,
    );
  }
  return found.map((timesheet) => timesheet.id);
}

export interface PeriodAnswer {
  eventId: string;
  accountId: string;
  hostname: string;
  period: Period;
  timesheetIds: readonly number[];
  /** The PayReturnsReady events, one per timesheet, without causationId. */
  ready: readonly OutboundEvent[];
}

/**
 * Publishes the PayReturnsReady events, then PayReturnsCompleted once: claimed in the table before
 * its publish, confirmed after (store/pay-return-completions.ts). A run that comes again after the
 * Completed went out (its idempotency record could not be saved, a redrive) publishes the
 * PayReturnsReady events again, the same content, and not the Completed; a run whose publish
 * failed released its claim, so the next one publishes it. Only a process dying between
 * EventBridge accepting it and the confirm can have it published twice, after the lease
 * (CLAIM_LEASE_MS) ran out. Returns nothing for the runtime to publish.
 */
export async function publishPeriodAnswer(
  { publisher, store, clock, logger, metrics }: Dependencies,
  answer: PeriodAnswer,
): Promise<OutboundEvent[]> {
  const { eventId, accountId, hostname, period, timesheetIds } = answer;
  const ready = answer.ready.map((event) => ({
    detailType: event.detailType,
    detail: { ...event.detail, accountId, causationId: eventId },
  }));
  await publisher.publish(ready);
  if (ready.length > 0) metrics.addMetric(MetricName.EventsPublished, MetricUnit.Count, ready.length);

  const completed: PayReturnsCompletedDetail = {
    accountId,
    hostname,
    causationId: eventId,
    sourceEventId: eventId,
    from: period.from,
    to: period.to,
    ...(period.locationIds ? { locationIds: [...period.locationIds] } : {}),
    ...(period.employeeIds ? { employeeIds: [...period.employeeIds] } : {}),
    timesheetIds: [...timesheetIds],
    count: timesheetIds.length,
  };
  const claim = await claimPayReturnsCompleted(store, hostname, eventId, clock.now());
  if (claim === 'published') {
    logger.info('PayReturnsCompleted already published for this request; not again', { eventId });
    return [];
  }
  if (claim === 'held') {
    // A run died between its claim and its confirm: the record waits out the lease, uncounted (a
    // pause longer than the client's own is a wait, not an attempt: runtime/failure-kinds.ts), and
    // the run after it takes the claim over.
    throw new RetryableError(
      'COMPLETION_IN_PROGRESS',
      `the PayReturnsCompleted of ${eventId} is claimed by a run that has not confirmed it yet`,
      { retryAfterMs: CLAIM_LEASE_MS },
    );
  }
  try {
    await publisher.publish([{ detailType: 'PayReturnsCompleted', detail: completed }]);
  } catch (error) {
    await releasePayReturnsCompleted(store, hostname, eventId);
    throw error;
  }
  await confirmPayReturnsCompleted(store, hostname, eventId);
  metrics.addMetric(MetricName.EventsPublished, MetricUnit.Count, 1);
  return [];
}
