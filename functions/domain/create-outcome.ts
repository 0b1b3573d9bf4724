import {
  InvalidRequestError,
  OutcomeUnknownError,
  RetryableError,
  ServiceRejectedError,
} from '#functions/domain/errors.ts';

/**
 * Finding out what a non-idempotent create did when its answer was lost (timeout, dropped
 * connection, a crash before the id was recorded): the use case reads back the records the create
 * would have made and decides from what it finds.
 */

/**
 * How far the service's clock may lag ours. Record timestamps come from the service's clock and
 * intent markers from the connector's, so a record made right after our marker may look older
 * than the marker; a record older than the marker by more than this was not made by our call.
 */
export const SERVICE_CLOCK_SKEW_MS = 15 * 60 * 1000;

export type CreateOutcome<Id> =
  | { kind: 'created'; id: Id }
  | { kind: 'not-created' }
  | { kind: 'unknown'; reason: string };

/** The earliest service timestamp a record made by a create claimed at `claimedAt` can carry. */
export function earliestCreation(claimedAt: string | Date): Date {
  const claimed = typeof claimedAt === 'string' ? Date.parse(claimedAt) : claimedAt.getTime();
  return new Date(claimed - SERVICE_CLOCK_SKEW_MS);
}

/** False only when the record's `Created` proves it older; a missing or odd one cannot rule it out. */
export function createdAtOrAfter(record: { Created?: string | null | undefined }, since: Date): boolean {
  const created = typeof record.Created === 'string' ? Date.parse(record.Created) : Number.NaN;
  return Number.isNaN(created) || created >= since.getTime();
}

/** One candidate is the record our create made; none means it made nothing; more cannot be told apart. */
export function outcomeOf<Id>(candidates: readonly Id[], what: string): CreateOutcome<Id> {
  const [only] = candidates;
  if (candidates.length === 0 || only === undefined) return { kind: 'not-created' };
  if (candidates.length === 1) return { kind: 'created', id: only };
  return {
    kind: 'unknown',
    reason: `${candidates.length} ${what} could be the one created (${candidates.join(', ')})`,
  };
}

/**
 * Whether a failed, non-idempotent create call certainly created nothing, so the intent marker
 * written before it may be released and the call tried again later.
 *
 * - The service refused it (4xx or `success: false`), or the client refused the input before
 *   sending: nothing was created.
 * - The client turns every ambiguous failure of a create (timeout, dropped connection, 5xx) into
 *   OutcomeUnknownError and does not retry it; any other RetryableError it lets out (429/503,
 *   connection refused) is one where the request never reached the service.
 * - Anything else (a 2xx whose id could not be read, a bug) may have created the record.
 */
export function certainlyNotCreated(error: unknown): boolean {
  if (error instanceof OutcomeUnknownError) return false;
  if (error instanceof ServiceRejectedError || error instanceof InvalidRequestError) return true;
  return error instanceof RetryableError;
}
