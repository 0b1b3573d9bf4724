import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import type { InboundEvent } from '#functions/contracts/route-decoder.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import { classify } from '#functions/runtime/failure-kinds.ts';
import { MetricName } from '#functions/runtime/metric-names.ts';
import { logger, metrics } from '#functions/runtime/observability.ts';
import {
  ageSecondsOf,
  type BatchState,
  RecordHeldBack,
  receiveCountOf,
} from '#functions/runtime/record-batch.ts';
import { mustGiveUp, retryDelaySeconds, waitSeconds } from '#functions/runtime/retry-schedule.ts';
import type { RouteQueue } from '#functions/runtime/route-queue.ts';
import { reportPermanent } from '#functions/runtime/sync-failed.ts';
import { countFailedAttempt, markGaveUp, readRecordAttempts } from '#functions/store/record-attempts.ts';

/**
 * What becomes of a route's record that failed (route-handler.ts draws the whole path): told
 * apart by its error (permanent, a wait, another invocation's, a counted attempt), backed off on
 * its queue, given up (kept in the route's dead-letter queue, then reported with SyncFailed
 * RETRIES_EXHAUSTED). retry-schedule.ts holds the numbers.
 */

/** How a record ended when it ends in a SyncFailed from its use case: the code and message published. */
export interface FinalFailure {
  code: string;
  message: string;
}

/**
 * The failure policy of one route: its detail-type names its records, its queue holds them, and
 * `onFinalFailure` (route-handler.ts) records what a record that ends in SyncFailed leaves behind.
 */
export class RecordFailures {
  constructor(
    private readonly detailType: string,
    private readonly queueOf: () => RouteQueue,
    private readonly onFinalFailure?: (
      dependencies: Dependencies,
      event: InboundEvent,
      failure: FinalFailure,
    ) => Promise<void>,
  ) {}

  private lifeOf(record: SQSRecord, dependencies: Dependencies) {
    return {
      receiveCount: receiveCountOf(record),
      ageSeconds: ageSecondsOf(record, dependencies.clock.now()),
    };
  }

  /** A record whose next wait would be past its queue's last receives or retention: try it now. */
  onLastChance(record: SQSRecord, dependencies: Dependencies): boolean {
    return mustGiveUp(
      this.lifeOf(record, dependencies),
      waitSeconds(receiveCountOf(record)),
      this.queueOf().settings,
    );
  }

  /**
   * The record will not be tried again: the route records what it leaves behind, then keep it in
   * the dead-letter queue (never lost), then tell the partner, then remember it gave up (a lost
   * delete must not report it twice).
   */
  private async giveUp(
    dependencies: Dependencies,
    record: SQSRecord,
    event: InboundEvent,
    last: { code: string; message: string; attempts: number; receiveCount: number },
  ): Promise<void> {
    const at = dependencies.clock.now();
    const tried =
      last.attempts > 0
        ? `${last.attempts} attempt(s) over ${last.receiveCount} receive(s)`
        : `waiting over ${last.receiveCount} receive(s)`;
    const gaveUp: FinalFailure = {
      code: 'RETRIES_EXHAUSTED',
      message: `gave up after ${tried}; last error ${last.code}: ${last.message}. The event is kept in the ${this.detailType} dead-letter queue for a redrive once the cause is fixed.`,
    };
    // Before the copy: if this fails the record is tried again and gives up again, kept once.
    await this.onFinalFailure?.(dependencies, event, gaveUp);
    await this.queueOf().keep({ record, ...last, at });
    await reportPermanent(dependencies, event, gaveUp);
    try {
      await markGaveUp(dependencies.store, this.detailType, record.messageId, {
        eventId: event.id,
        code: last.code,
        at,
      });
    } catch (storeError) {
      logger.warn('could not remember that the record gave up', { error: storeError as Error });
    }
    metrics.addMetric(MetricName.RecordsGaveUp, MetricUnit.Count, 1);
    logger.error('record gave up: reported with SyncFailed RETRIES_EXHAUSTED and kept for redrive', {
      code: last.code,
      attempts: last.attempts,
      receiveCount: last.receiveCount,
    });
  }

  /**
   * Decides what becomes of a record whose use case threw: returns when the record is done with
   * (reported), throws when it goes back to its queue (after the delay it was given in `batch`).
   */
  async handle(
    dependencies: Dependencies,
    batch: BatchState,
    record: SQSRecord,
    event: InboundEvent,
    error: unknown,
  ): Promise<void> {
    const receiveCount = receiveCountOf(record);
    const failure = classify(error, event, receiveCount);
    const message = error instanceof Error ? error.message : String(error);
    switch (failure.kind) {
      case 'permanent':
        logger.warn('record failed permanently', { code: failure.code, error: error as Error });
        // Before the SyncFailed: if this fails, the record comes back and the partner is told once.
        await this.onFinalFailure?.(dependencies, event, failure);
        await reportPermanent(dependencies, event, failure);
        return;
      case 'in-progress':
        logger.warn('record is being processed by another invocation; it comes back later');
        throw error;
      case 'wait': {
        if (mustGiveUp(this.lifeOf(record, dependencies), failure.seconds, this.queueOf().settings)) {
          const budget = await readRecordAttempts(
            dependencies.store,
            this.detailType,
            record.messageId,
          ).catch(() => undefined);
          await this.giveUp(dependencies, record, event, {
            code: failure.code,
            message,
            attempts: budget?.attempts ?? 0,
            receiveCount,
          });
          return;
        }
        if (failure.stopsBatch) batch.wait = { code: failure.code };
        batch.delay(record, failure.seconds);
        metrics.addMetric(MetricName.RecordsWaiting, MetricUnit.Count, 1);
        logger.warn('record waits; no attempt counted', {
          code: failure.code,
          waitSeconds: failure.seconds,
          receiveCount,
          error: error as Error,
        });
        throw new RecordHeldBack(failure.code);
      }
      case 'attempt': {
        let attempts: number;
        try {
          attempts = await countFailedAttempt(dependencies.store, this.detailType, record.messageId, {
            eventId: event.id,
            code: failure.code,
            at: dependencies.clock.now(),
          });
        } catch (storeError) {
          // Uncounted: the record comes back after the queue's visibility timeout.
          logger.warn('record will be retried; its attempt could not be counted', {
            code: failure.code,
            error: error as Error,
            storeError: storeError as Error,
          });
          metrics.addMetric(MetricName.RecordsFailed, MetricUnit.Count, 1);
          throw error;
        }
        const seconds = retryDelaySeconds(attempts);
        const settings = this.queueOf().settings;
        if (
          attempts >= settings.maxAttempts ||
          mustGiveUp(this.lifeOf(record, dependencies), seconds, settings)
        ) {
          await this.giveUp(dependencies, record, event, {
            code: failure.code,
            message,
            attempts,
            receiveCount,
          });
          return;
        }
        batch.delay(record, seconds);
        metrics.addMetric(MetricName.RecordsFailed, MetricUnit.Count, 1);
        logger.warn('record will be retried', {
          code: failure.code,
          attempt: attempts,
          maxAttempts: settings.maxAttempts,
          retryInSeconds: seconds,
          error: error as Error,
        });
        throw error;
      }
    }
  }

  /**
   * Holds a record back, untried, when the batch decided so (the token is missing or refused, or
   * too little time is left) — unless it is on its last chance: such a record is tried whatever
   * the batch decided, so it can still give up with a SyncFailed instead of reaching the DLQ
   * through the redrive policy, unreported.
   */
  holdBackIfDue(record: SQSRecord, dependencies: Dependencies, batch: BatchState): void {
    const lastChance =
      (batch.wait !== undefined || batch.outOfTime()) && this.onLastChance(record, dependencies);
    if (batch.wait && !lastChance) {
      // The token is missing or refused: this record would fail the same way. It waits as long as
      // its own receives say, not the record that found the problem.
      batch.delay(record, waitSeconds(receiveCountOf(record)));
      metrics.addMetric(MetricName.RecordsWaiting, MetricUnit.Count, 1);
      throw new RecordHeldBack(batch.wait.code);
    }
    if (batch.outOfTime() && !lastChance) {
      batch.delay(record, 0);
      metrics.addMetric(MetricName.RecordsDeferred, MetricUnit.Count, 1);
      logger.info('record not started: too little time left in this invocation');
      throw new RecordHeldBack('NOT_STARTED');
    }
    batch.started += 1;
  }

  /**
   * Sets the visibility of the records that failed: each as its failure decided, and a record
   * skipped behind a failed one of its account as long as that one waits, so they come back in
   * order. A failure here only costs time: the records come back after the queue's own timeout.
   */
  async applyDelays(
    records: readonly SQSRecord[],
    response: SQSBatchResponse,
    batch: BatchState,
  ): Promise<void> {
    const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    const groupDelay = new Map<string, number>();
    for (const { record, seconds } of batch.delays.values()) {
      const group = record.attributes.MessageGroupId ?? '';
      groupDelay.set(group, Math.max(groupDelay.get(group) ?? 0, seconds));
    }
    for (const record of records) {
      if (!failed.has(record.messageId) || batch.delays.has(record.messageId)) continue;
      const seconds = groupDelay.get(record.attributes.MessageGroupId ?? '');
      if (seconds !== undefined) batch.delay(record, seconds);
    }
    const delays = [...batch.delays.values()].filter(({ record }) => failed.has(record.messageId));
    if (delays.length === 0) return;
    try {
      await this.queueOf().delay(delays);
    } catch (error) {
      logger.warn("could not set the failed records' visibility; they come back after the queue's timeout", {
        error: error as Error,
      });
    }
  }
}
