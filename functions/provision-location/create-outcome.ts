import {
  InvalidRequestError,
  OutcomeUnknownError,
  RetryableError,
  ServiceRejectedError,
} from '#functions/commons/errors.ts';

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
