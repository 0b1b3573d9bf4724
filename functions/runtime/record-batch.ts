import type { Context, SQSRecord } from 'aws-lambda';
import type { RecordDelay } from '#functions/runtime/route-queue.ts';

/** One invocation's batch of route records: what it decided for them, and what each record says of itself. */

/** A record failed on purpose: it waits or was not started; nothing more to log for it. */
export class RecordHeldBack extends Error {
  constructor(readonly code: string) {
    super(`record held back (${code})`);
    this.name = 'RecordHeldBack';
  }
}

/** What one invocation decided for its records beyond ack / fail. */
export class BatchState {
  /** Visibility to set per failed record, by message id. */
  readonly delays = new Map<string, RecordDelay>();
  /** Set when the token is missing or refused: every later record waits too, untried. */
  wait: { code: string } | undefined;
  started = 0;

  constructor(
    private readonly context: Context,
    private readonly reserveMs: number,
  ) {}

  delay(record: SQSRecord, seconds: number): void {
    this.delays.set(record.messageId, { record, seconds });
  }

  /** The first record always starts; later ones only with a whole service call's time left. */
  outOfTime(): boolean {
    return this.started > 0 && this.context.getRemainingTimeInMillis() < this.reserveMs;
  }
}

export function receiveCountOf(record: SQSRecord): number {
  const count = Number(record.attributes?.ApproximateReceiveCount);
  return Number.isInteger(count) && count > 0 ? count : 1;
}

/** Seconds since the record was sent to its queue (SentTimestamp, epoch milliseconds). */
export function ageSecondsOf(record: SQSRecord, now: Date): number {
  const sent = Number(record.attributes?.SentTimestamp);
  return Number.isFinite(sent) && sent > 0 ? Math.max(0, (now.getTime() - sent) / 1000) : 0;
}
