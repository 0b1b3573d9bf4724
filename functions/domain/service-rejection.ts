import { PermanentError, type ServiceRejectedError } from '#functions/domain/errors.ts';
import { redactText } from '#functions/runtime/observability.ts';

// SyncFailed.code has this shape; a service code outside it is kept in the message instead.
const SYNC_FAILED_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

/**
 * A service refusal as the partner should see it in SyncFailed: the service's own code (e.g.
 * EMAIL_ALREADY_EXISTS) as `code`, so partners can act on it without parsing text, and the
 * service's message with e-mail addresses and phone numbers masked (SyncFailed carries no
 * personal data beyond ids).
 */
export function serviceRejection(operation: string, error: ServiceRejectedError): PermanentError {
  const serviceCode = error.serviceCode;
  const code = serviceCode !== undefined && SYNC_FAILED_CODE.test(serviceCode) ? serviceCode : error.code;
  const said = redactText(error.message);
  return new PermanentError(
    code,
    `${operation} refused by the service${serviceCode === undefined ? '' : ` (${serviceCode})`}: ${said}`,
    { status: error.status, serviceCode, cause: error },
  );
}
