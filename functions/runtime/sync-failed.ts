import type { InboundEvent } from '#functions/contracts/route-decoder.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import { countSyncFailed, logger } from '#functions/runtime/observability.ts';
import { recordSyncError } from '#functions/store/business.ts';

/** How a route tells the partner about a record it will not apply: SyncFailed, always counted. */

// SyncFailed.message is capped by its contract.
const MAX_SYNC_FAILED_MESSAGE = 2048;

export interface SyncFailure {
  accountId: string;
  sourceEventId: string;
  detailType: string;
  code: string;
  message: string;
}

export async function publishSyncFailed(dependencies: Dependencies, failure: SyncFailure): Promise<void> {
  await dependencies.publisher.publish([
    {
      detailType: 'SyncFailed',
      detail: {
        accountId: failure.accountId,
        causationId: failure.sourceEventId,
        sourceEventId: failure.sourceEventId,
        detailType: failure.detailType,
        code: failure.code,
        message: failure.message.slice(0, MAX_SYNC_FAILED_MESSAGE),
      },
    },
  ]);
  countSyncFailed(failure.code);
}

/** A record that will not be applied: the partner is told, and the business remembers it. */
export async function reportPermanent(
  dependencies: Dependencies,
  event: InboundEvent,
  failure: { code: string; message: string },
): Promise<void> {
  const accountId = event.detail.accountId;
  // If this publish fails the record is retried, so the partner always hears about it.
  await publishSyncFailed(dependencies, {
    accountId,
    sourceEventId: event.id,
    detailType: event.detailType,
    code: failure.code,
    message: failure.message,
  });
  try {
    await recordSyncError(dependencies.store, accountId, {
      code: failure.code,
      message: failure.message.slice(0, MAX_SYNC_FAILED_MESSAGE),
      at: dependencies.clock.now(),
    });
  } catch (storeError) {
    // Best effort: SyncFailed already told the partner; lastError is a convenience.
    logger.warn('could not record the sync error on the business', { error: storeError as Error });
  }
}
