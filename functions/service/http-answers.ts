import {
  type ConnectorError,
  HOSTNAME_NOT_LINKED,
  ResponseShapeError,
  ServiceRejectedError,
  ServiceUnavailableError,
  TokenRejectedError,
} from '#functions/domain/errors.ts';
import type { UncodedReading, UncodedStatusReadings } from './assumptions.ts';
import type { ServiceRequest, ServiceResponse } from './http.ts';

/**
 * How the HTTP layer reads one answer: a response, or a failure of the error taxonomy
 * (errors.ts) with whether the request certainly never reached the service. The statuses the spec
 * does not show are read as docs/internals.md "How HTTP statuses are read" says.
 */

export interface AttemptFailure {
  error: ConnectorError;
  /** True when the request certainly never reached the service. */
  notSent: boolean;
}

export type AttemptOutcome = { response: ServiceResponse } | AttemptFailure;

export function interpret(
  request: ServiceRequest,
  target: string,
  answer: { status: number; text: string; retryAfter: string | undefined },
  readings: UncodedStatusReadings,
): AttemptOutcome {
  const { status, text } = answer;
  const retryAfterHeader = answer.retryAfter;
  let body: unknown;
  let parsed = true;
  // Any non-blank character (no copy of a large body, as trim() would make).
  if (/\S/.test(text)) {
    try {
      body = JSON.parse(text);
    } catch {
      parsed = false;
    }
  }

  if (status >= 200 && status < 300) {
    if (!parsed) {
      return {
        notSent: false,
        error: new ResponseShapeError(
          `${request.method} ${target} answered ${status} with a body that is not JSON`,
          {
            status,
          },
        ),
      };
    }
    if (isRecord(body) && body.success === false) {
      // A refusal inside a 2xx envelope is still a refusal, and is redacted like any other.
      const { serviceCode, serviceMessage } = readServiceError(body);
      return {
        notSent: false,
        error: new ServiceRejectedError(
          serviceMessage ?? `${request.method} ${target} was refused by the service`,
          {
            status,
            serviceCode,
            ...(serviceMessage === undefined ? {} : { serviceMessage }),
          },
        ),
      };
    }
    return { response: { status, body } };
  }

  const { serviceCode, serviceMessage } = readServiceError(body);
  const said = serviceMessage ?? (serviceCode ? serviceCode : `HTTP ${status}`);
  // 401 with any code is the token refused. A 401, 403 or 404 without a service code is read as
  // the deployment configures (serviceAssumptions.uncodedStatusReadings; the spec shows no
  // statuses, docs/internals.md "How HTTP statuses are read"); with a code, 403 and 404 are the
  // service refusing this request for a reason of its own (a hostname not linked to the partner).
  const reading: UncodedReading | undefined =
    serviceCode === undefined && (status === 401 || status === 403 || status === 404)
      ? readings[status]
      : status === 401
        ? 'token-refused'
        : undefined;
  if (reading !== undefined && reading !== 'refusal') {
    return readUncoded(reading, `${request.method} ${target} answered ${status}`, {
      said,
      status,
      serviceCode,
      ...(serviceMessage === undefined ? {} : { serviceMessage }),
      retryAfterMs: parseRetryAfter(retryAfterHeader),
    });
  }
  if (status === 408 || status === 425) {
    // Request Timeout / Too Early: the service did not process the request; sending it again is safe.
    return {
      notSent: true,
      error: new ServiceUnavailableError(`${request.method} ${target} answered ${status}: ${said}`, {
        status,
        serviceCode,
        retryAfterMs: parseRetryAfter(retryAfterHeader),
      }),
    };
  }
  if (status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(retryAfterHeader);
    return {
      // 429 and 503 are answers from before processing (rate limiter / not accepting work).
      notSent: status === 429 || status === 503,
      error: new ServiceUnavailableError(`${request.method} ${target} answered ${status}: ${said}`, {
        status,
        serviceCode,
        retryAfterMs,
      }),
    };
  }
  return {
    notSent: false,
    error: new ServiceRejectedError(serviceMessage ?? `${request.method} ${target} answered ${status}`, {
      status,
      serviceCode,
      ...(serviceMessage === undefined ? {} : { serviceMessage }),
    }),
  };
}

/**
 * An answer read by serviceAssumptions.uncodedStatusReadings. `token-refused`: refused before any
 * processing, so sending again once the token is fixed is safe, creates included. `retry`: the
 * service did not process it, resent like a 503. `not-linked`: the service refuses this hostname
 * for this partner (HOSTNAME_NOT_LINKED).
 */
function readUncoded(
  reading: Exclude<UncodedReading, 'refusal'>,
  what: string,
  {
    said,
    ...details
  }: { said: string; status: number; serviceCode?: string; serviceMessage?: string; retryAfterMs?: number },
): AttemptFailure {
  const setting = `serviceAssumptions.uncodedStatusReadings: ${reading}`;
  switch (reading) {
    case 'token-refused':
      return {
        notSent: true,
        error: new TokenRejectedError(`${what}: the service refused the bearer token (${said})`, details),
      };
    case 'retry':
      return {
        notSent: true,
        error: new ServiceUnavailableError(`${what}: ${said}; read as not processed (${setting})`, details),
      };
    case 'not-linked':
      return {
        notSent: false,
        error: new ServiceRejectedError(
          `${what}: ${said}; read as the hostname not linked to the partner (${setting})`,
          details,
          HOSTNAME_NOT_LINKED,
        ),
      };
  }
}

/** Reads `{error: {code, message}}`, `{error: "..."}` or `{code, message}` tolerantly. */
export function readServiceError(body: unknown): { serviceCode?: string; serviceMessage?: string } {
  if (!isRecord(body)) return {};
  const source = isRecord(body.error) ? body.error : body;
  const result: { serviceCode?: string; serviceMessage?: string } = {};
  if (typeof source.code === 'string' && source.code !== '') result.serviceCode = source.code;
  if (typeof source.message === 'string' && source.message !== '') result.serviceMessage = source.message;
  if (typeof body.error === 'string' && body.error !== '') result.serviceMessage ??= body.error;
  return result;
}

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
