import type { PutEventsRequestEntry } from './events-api.ts';

/**
 * Entries PutEvents fails on purpose, as EventBridge may: a PutEvents answer can fail single
 * entries with a retryable code while accepting the rest (EventBridge API reference,
 * "PutEventsResultEntry": ErrorCode, "Retryable errors include: InternalFailure,
 * ThrottlingException"; "PutEvents": check FailedEntryCount). A test arms it for the next entries
 * of some detail-types, so a publisher's failure path (its retries, then what its caller undoes)
 * runs against the real handlers.
 */
export class PutEventsFaults {
  private armed: { detailTypes: ReadonlySet<string>; remaining: number } | undefined;

  /** Fails the next `count` entries whose DetailType is one of `detailTypes`. */
  failNext(detailTypes: readonly string[], count: number): void {
    this.armed = { detailTypes: new Set(detailTypes), remaining: count };
  }

  /** Stops failing entries. */
  clear(): void {
    this.armed = undefined;
  }

  /** The failure of `entry`, when one is armed for it. */
  take(entry: PutEventsRequestEntry): { ErrorCode: string; ErrorMessage: string } | undefined {
    const armed = this.armed;
    if (!armed || armed.remaining <= 0 || !armed.detailTypes.has(String(entry.DetailType))) return undefined;
    armed.remaining -= 1;
    return { ErrorCode: 'InternalFailure', ErrorMessage: 'the local runtime failed this entry on purpose' };
  }
}
