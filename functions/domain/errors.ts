/**
 * Error taxonomy of the connector. The batch layer decides "retry" vs "SyncFailed" from the
 * class alone (`isRetryable`), so every failure that leaves the service client is one of these.
 * Messages never carry the bearer token or request headers: they are built from the method, the
 * URL path and what the service said.
 */

export interface ConnectorErrorDetails {
  /** HTTP status of the service's answer, when there was one. */
  status?: number;
  /** The service's own error code (from the error envelope), when it sent one. */
  serviceCode?: string;
  /** The service's own error message, when it sent one (refusals only). */
  serviceMessage?: string;
  /** How long the service asked us to wait (Retry-After), in milliseconds. */
  retryAfterMs?: number;
  cause?: unknown;
}

export class ConnectorError extends Error {
  readonly code: string;
  readonly status?: number;
  readonly serviceCode?: string;
  readonly serviceMessage?: string;
  readonly retryAfterMs?: number;

  constructor(code: string, message: string, details: ConnectorErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = code;
    if (details.status !== undefined) this.status = details.status;
    if (details.serviceCode !== undefined) this.serviceCode = details.serviceCode;
    if (details.serviceMessage !== undefined) this.serviceMessage = details.serviceMessage;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
  }

  /** A log- and event-safe view: no stack, no cause (a cause may be a raw socket error). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      serviceCode: this.serviceCode,
      retryAfterMs: this.retryAfterMs,
    };
  }
}

/** Transient: the same call can succeed later (429, 5xx, timeouts, resets, not provisioned yet). */
export class RetryableError extends ConnectorError {}

/** Will not succeed by retrying: validation, business-rule rejections, misconfiguration. */
export class PermanentError extends ConnectorError {}

/** 429 or 5xx from the service. */
export class ServiceUnavailableError extends RetryableError {
  constructor(message: string, details: ConnectorErrorDetails = {}) {
    super('SERVICE_UNAVAILABLE', message, details);
  }
}

/**
 * The connector's own request budget has no request for this call soon enough (the service was
 * not called). Records wait for `retryAfterMs` on their queue without using an attempt.
 */
export class ThrottledError extends RetryableError {
  constructor(message: string, retryAfterMs: number) {
    super('THROTTLED', message, { retryAfterMs });
  }
}

/**
 * The bearer token cannot be used yet: a configuration problem that setting or fixing the token
 * cures (it is not set after a deploy, or was rotated). Retryable, and records wait for the fix
 * instead of using up their attempts (route-handler.ts).
 */
export class TokenProblemError extends RetryableError {}

/**
 * The account's business is on its way (its AccountCreated was received and has not finally
 * failed: waiting for the token, retrying, or a signup UNCONFIRMED until an operator resolves it).
 * Retryable, and the record waits for it uncounted, as for the token (failure-kinds.ts).
 */
export class AwaitingBusinessError extends RetryableError {
  constructor(message: string) {
    super('BUSINESS_NOT_PROVISIONED', message);
  }
}

/** The service refused the bearer token (401, or as serviceAssumptions.uncodedStatusReadings reads an answer without a code); the cached copy is dropped. */
export class TokenRejectedError extends TokenProblemError {
  constructor(message: string, details: ConnectorErrorDetails = {}) {
    super('TOKEN_REJECTED', message, details);
  }
}

/** The token secret does not exist, has no value, or holds something that is not a token. */
export class TokenMissingError extends TokenProblemError {
  constructor(message: string) {
    super('TOKEN_MISSING', message);
  }
}

/** The per-request timer (connect + response) ran out. */
export class TimeoutError extends RetryableError {
  constructor(message: string, details: ConnectorErrorDetails = {}) {
    super('TIMEOUT', message, details);
  }
}

/** The connection failed or was dropped (ECONNRESET, socket hang up, ECONNREFUSED, DNS). */
export class NetworkError extends RetryableError {
  constructor(message: string, details: ConnectorErrorDetails = {}) {
    super('NETWORK_ERROR', message, details);
  }
}

/**
 * A non-idempotent create was sent and no answer came back (timeout, dropped connection, 5xx
 * after processing may have started). The client does not retry it blindly; the use case, which
 * holds its own guard in DynamoDB, decides.
 */
export class OutcomeUnknownError extends RetryableError {
  constructor(message: string, details: ConnectorErrorDetails = {}) {
    super('OUTCOME_UNKNOWN', message, details);
  }
}

/**
 * The service refused the call (4xx or `success: false`); carries its code and message. `code` is
 * SERVICE_REJECTED, or HOSTNAME_NOT_LINKED for an answer without a service code that the
 * deployment reads as "not linked" (serviceAssumptions.uncodedStatusReadings).
 */
export class ServiceRejectedError extends PermanentError {
  constructor(
    message: string,
    details: ConnectorErrorDetails = {},
    code: 'SERVICE_REJECTED' | typeof HOSTNAME_NOT_LINKED = 'SERVICE_REJECTED',
  ) {
    super(code, message, details);
  }
}

/** The connector's code for an answer without a service code read as "hostname not linked". */
export const HOSTNAME_NOT_LINKED = 'HOSTNAME_NOT_LINKED';

export class RegionNotAvailableError extends PermanentError {
  readonly region: string;
  constructor(region: string) {
    super('REGION_NOT_AVAILABLE', `region ${region} is not available: no provisioning URL configured`);
    this.region = region;
  }
}

export class InvalidHostnameError extends PermanentError {
  constructor(message: string) {
    super('INVALID_HOSTNAME', message);
  }
}

/** The service answered 2xx with something the client cannot read (bad envelope, bad JSON, missing field). */
export class ResponseShapeError extends PermanentError {
  constructor(message: string, details: ConnectorErrorDetails = {}) {
    super('UNEXPECTED_RESPONSE', message, details);
  }
}

/** The connector's own input to the client is invalid (slot out of range, bad agreedHour, ...). */
export class InvalidRequestError extends PermanentError {
  constructor(message: string) {
    super('INVALID_REQUEST', message);
  }
}

/** The client's configuration is unusable (missing US root, bad URL template, ...). */
export class ConfigurationError extends PermanentError {
  constructor(message: string) {
    super('INVALID_CONFIGURATION', message);
  }
}

/**
 * A signup's first attempt committed but its answer was lost: the follow-up attempt was refused
 * because the externalId is already taken. The hostname is unknown to the connector and needs a
 * human (or a partner-side lookup) to reconcile.
 */
export class SignupOutcomeLostError extends PermanentError {
  readonly externalId: string;
  constructor(externalId: string, details: ConnectorErrorDetails = {}) {
    super(
      'SIGNUP_COMMITTED_UNCONFIRMED',
      `signup for externalId ${externalId} was committed by the service but its answer was lost; the hostname is unknown`,
      details,
    );
    this.externalId = externalId;
  }
}

/**
 * A QUERY that must be complete answered the most records one answer holds (a deploy setting;
 * the spec shows neither the maximum nor paging), so records may be missing.
 */
export class QueryLimitReachedError extends PermanentError {
  constructor(resource: string, count: number) {
    super(
      'QUERY_LIMIT_REACHED',
      `QUERY ${resource} answered ${count} records, the most one answer holds (serviceAssumptions.queryMaxRecords): the list may be cut, so it is not acted on`,
    );
  }
}

/** Unknown errors (bugs, programming errors) are treated as permanent so they surface once. */
export function isRetryable(err: unknown): boolean {
  return err instanceof RetryableError;
}
