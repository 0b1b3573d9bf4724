import type { Logger } from '@aws-lambda-powertools/logger';
import { forEachBounded } from './concurrency.ts';
import { isServicePause } from './retry-schedule.ts';

/** What a scheduled watch's run reports about the due items it went through (both watches). */
export interface DueRunProgress {
  /** Index items read: only the businesses due, never the whole table. */
  itemsRead: number;
  /** Businesses whose handling failed; still due, the next run tries them again. */
  failed: number;
  /**
   * Businesses given up because the shared request budget had no request soon enough (or the
   * service asked for a longer pause than the client waits): nothing was sent for them, they stay
   * due, and they are not failures.
   */
  throttled: number;
  /** Due businesses read but not started because time ran low or the budget was contended (more may follow in unread pages). */
  remaining: number;
  /** False when the run stopped early; the next run continues where it left off. */
  complete: boolean;
  /** Why an incomplete run stopped starting businesses. */
  stoppedBy?: 'time' | 'throttling';
}

/** A run's progress before it read anything: what both watches' reports start from. */
export function startedDueRun(): DueRunProgress {
  return { itemsRead: 0, failed: 0, throttled: 0, remaining: 0, complete: true };
}

/**
 * Runs `handle` over the due items of `pages`, `concurrency` at a time, until they are done or
 * the run must stop: its time runs short, or a business meets the service pausing (isServicePause:
 * the shared budget contended, or a long Retry-After). Throttling is not failure: from then on no
 * further business is started (in every region: the next run takes them all up again), and the
 * run is reported incomplete. Any other failure is counted and logged; the run goes on.
 */
export async function runDueItems<T extends { accountId: string }>(
  pages: AsyncIterable<{ items: readonly T[]; itemsRead: number }>,
  progress: DueRunProgress,
  options: {
    /** `trial watch`, `drift watch`: the start of its log lines. */
    readonly watch: string;
    readonly concurrency: number;
    readonly timeIsShort: () => boolean;
    readonly logger: Logger;
  },
  handle: (item: T) => Promise<void>,
): Promise<void> {
  const { watch, logger } = options;
  // Set once a business meets budget contention: no further business is started this run.
  let throttled = false;
  const stop = () => options.timeIsShort() || throttled;
  for await (const page of pages) {
    progress.itemsRead += page.itemsRead;
    const left = await forEachBounded(page.items, options.concurrency, stop, async (item) => {
      try {
        await handle(item);
      } catch (error) {
        if (isServicePause(error)) {
          // Nothing was sent (or the service asked to wait): left due, not a failure.
          throttled = true;
          progress.throttled += 1;
          logger.info(`${watch} met a contended request budget; the business stays due`, {
            accountId: item.accountId,
            retryAfterMs: error.retryAfterMs,
          });
          return;
        }
        progress.failed += 1;
        logger.warn(`${watch} could not check a business; the next run retries it`, {
          accountId: item.accountId,
          error: error as Error,
        });
      }
    });
    if (left > 0 || stop()) {
      progress.remaining += left;
      progress.complete = false;
      progress.stoppedBy = throttled ? 'throttling' : 'time';
      return;
    }
  }
}
