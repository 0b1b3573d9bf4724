import http from 'node:http';
import https from 'node:https';
import {
  NetworkError,
  OutcomeUnknownError,
  RetryableError,
  TimeoutError,
  TokenRejectedError,
} from '#functions/domain/errors.ts';
import { defaultServiceAssumptions, type UncodedStatusReadings } from './assumptions.ts';
import { type AttemptFailure, type AttemptOutcome, interpret } from './http-answers.ts';

export { isRecord, parseRetryAfter, readServiceError } from './http-answers.ts';

/**
 * HTTP layer of the service client: JSON over node:http/https with one keep-alive agent per
 * protocol per process (no extra packages: cold start matters), a per-request timer, retries with
 * full-jitter backoff and Retry-After, and the error taxonomy of errors.ts.
 */

// Module scope so every client in a warm Lambda shares the sockets; bounded so a burst of
// concurrent calls queues instead of opening hundreds of connections to the service.
const MAX_SOCKETS = 16;
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS });

export interface ServiceLogger {
  debug(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
}

export interface RequestInfo {
  method: string;
  /** The URL without query string; it never carries a credential. */
  url: string;
  /** HTTP status, or undefined when no answer came back. */
  status: number | undefined;
  /** 1 for the first try, 2 for the first retry, ... */
  attempt: number;
  durationMs: number;
  /** Error code when the attempt failed (TIMEOUT, NETWORK_ERROR, SERVICE_UNAVAILABLE, ...). */
  errorCode?: string;
}

export interface RetryPolicy {
  /** Total tries including the first. @default 3 */
  maxAttempts: number;
  /** Backoff base: the n-th retry waits random() * min(maxDelayMs, baseDelayMs * 2^(n-1)). @default 200 */
  baseDelayMs: number;
  /** Backoff ceiling. @default 2000 */
  maxDelayMs: number;
  /**
   * Longest Retry-After the client waits in-process. A longer one is not waited for: the error
   * surfaces with `retryAfterMs` so the queue can hold the message instead of a Lambda idling.
   * @default 5000
   */
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 2000,
  maxRetryAfterMs: 5000,
};

export const DEFAULT_TIMEOUT_MS = 5000;

export interface HttpClientOptions {
  /** Supplies the bearer token lazily (the handlers back it with Secrets Manager + a cache). */
  token: () => Promise<string>;
  /**
   * Called when the service refuses the token (401/403): drop any cached copy, so the next
   * `token()` reads the secret again. @default none
   */
  onTokenRejected?: () => void;
  /** Covers connect + full response of one attempt. @default 5000 */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  logger?: ServiceLogger;
  onRequest?: (info: RequestInfo) => void;
  /** Injected for deterministic tests. @default Math.random */
  random?: () => number;
  /** Injected for fast tests. @default setTimeout-based sleep */
  sleep?: (ms: number) => Promise<void>;
  /** The shared request budget; without it calls are limited only by the retry policy. */
  budget?: RequestBudget;
  /**
   * How 401/403/404 answers without a service error code are read (serviceAssumptions).
   * @default the assumptions' defaults: 401 token-refused, 403 not-linked, 404 refusal
   */
  uncodedStatusReadings?: UncodedStatusReadings;
}

/**
 * `idempotent`: repeating the call cannot change the outcome (reads, replace-semantics writes),
 * so any transient failure is retried.
 * `create`: repeating could create a second record, so only failures where the request certainly
 * did not reach the service are retried; anything ambiguous becomes OutcomeUnknownError.
 */
export type RetrySafety = 'idempotent' | 'create';

/** Longest one attempt waits in process for the request budget; longer, its record waits on the queue. */
export const BUDGET_MAX_WAIT_MS = 3000;

/** Whose request budget a call takes from: a provisioning root, or one install. */
export type BudgetScope = { kind: 'provisioning'; region: string } | { kind: 'install'; hostname: string };

/**
 * The connector-wide request budget (functions/store/request-budget.ts): every attempt
 * takes from it before it is sent, and a 429 with Retry-After pauses it for every worker.
 */
export interface RequestBudget {
  /**
   * Resolves when the call may be sent (after waiting in process, at most a small limit), or
   * throws ThrottledError with `retryAfterMs` when the wait would be longer.
   */
  take(scope: BudgetScope): Promise<void>;
  /** The service asked for a pause: nobody takes from the scope's buckets before `untilMs`. */
  pause(scope: BudgetScope, untilMs: number): Promise<void>;
}

export interface ServiceRequest {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  body?: unknown;
  safety: RetrySafety;
  /**
   * The request budget this call takes from (required, so that no call goes out unmetered: a
   * client built without a budget ignores it).
   */
  scope: BudgetScope;
  /** `none`: no Authorization header and no token read (install calls may need none). @default 'bearer' */
  auth?: 'bearer' | 'none';
}

export interface ServiceResponse {
  status: number;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
}

export interface HttpClient {
  send(request: ServiceRequest): Promise<ServiceResponse>;
  /** Counters since creation: attempts made and retries among them. */
  readonly stats: { requests: number; retries: number };
}

const NOT_SENT_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const policy: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const stats = { requests: 0, retries: 0 };
  const readings = options.uncodedStatusReadings ?? defaultServiceAssumptions.uncodedStatusReadings;

  async function send(request: ServiceRequest): Promise<ServiceResponse> {
    let token = request.auth === 'none' ? '' : await options.token();
    const url = new URL(request.url);
    // Origin + path only, for logs and errors: query strings could one day carry something sensitive.
    const target = `${url.origin}${url.pathname}`;
    let refreshedToken = false;
    for (let attempt = 1; ; attempt++) {
      // Throws ThrottledError (nothing sent) when the budget cannot give a request soon.
      if (options.budget) await options.budget.take(request.scope);
      const started = Date.now();
      stats.requests++;
      const outcome = await attemptOnce(request, url, target, token, { timeoutMs, readings });
      const durationMs = Date.now() - started;
      const status = 'response' in outcome ? outcome.response.status : outcome.error.status;
      const info: RequestInfo = { method: request.method, url: target, status, attempt, durationMs };
      if ('error' in outcome) info.errorCode = outcome.error.code;
      options.onRequest?.(info);

      if ('response' in outcome) {
        options.logger?.debug('service call', { ...info });
        return outcome.response;
      }

      if (outcome.error instanceof TokenRejectedError) {
        // The secret may have been set or rotated since it was cached: read it again, and try once
        // more only when it changed (the same token would only be refused again).
        options.onTokenRejected?.();
        const fresh = refreshedToken ? token : await options.token().catch(() => token);
        if (!refreshedToken && fresh !== token && attempt < policy.maxAttempts) {
          refreshedToken = true;
          token = fresh;
          stats.retries++;
          options.logger?.warn('service call failed', { ...info, retrying: true, delayMs: 0 });
          continue;
        }
        options.logger?.warn('service call failed', { ...info, retrying: false });
        throw redactToken(outcome.error, token);
      }
      if (outcome.error.status === 429 && outcome.error.retryAfterMs !== undefined && options.budget) {
        // Every worker of this scope waits, not only this call.
        await options.budget.pause(request.scope, Date.now() + outcome.error.retryAfterMs);
      }
      const failure = classifyForSafety(outcome, request, target);
      const delayMs = nextDelay(failure, attempt);
      if (delayMs === undefined) {
        options.logger?.warn('service call failed', { ...info, retrying: false });
        throw redactToken(failure.error, token);
      }
      stats.retries++;
      options.logger?.warn('service call failed', { ...info, retrying: true, delayMs });
      await sleep(delayMs);
    }
  }

  function classifyForSafety(
    failure: AttemptFailure,
    request: ServiceRequest,
    target: string,
  ): AttemptFailure {
    if (request.safety === 'idempotent' || failure.notSent || !(failure.error instanceof RetryableError)) {
      return failure;
    }
    const what = failure.error.status === undefined ? failure.error.code : `HTTP ${failure.error.status}`;
    return {
      notSent: false,
      error: new OutcomeUnknownError(
        `${request.method} ${target} may or may not have been applied by the service (${what}); not retried`,
        { status: failure.error.status, serviceCode: failure.error.serviceCode, cause: failure.error },
      ),
    };
  }

  function nextDelay(failure: AttemptFailure, attempt: number): number | undefined {
    const { error } = failure;
    if (!(error instanceof RetryableError) || error instanceof OutcomeUnknownError) return undefined;
    if (attempt >= policy.maxAttempts) return undefined;
    if (error.retryAfterMs !== undefined) {
      return error.retryAfterMs <= policy.maxRetryAfterMs ? error.retryAfterMs : undefined;
    }
    const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
    return Math.floor(random() * ceiling);
  }

  return { send, stats };
}

function attemptOnce(
  request: ServiceRequest,
  url: URL,
  target: string,
  token: string,
  { timeoutMs, readings }: { timeoutMs: number; readings: UncodedStatusReadings },
): Promise<AttemptOutcome> {
  const isHttps = url.protocol === 'https:';
  const payload = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.auth !== 'none') headers['authorization'] = `Bearer ${token}`;
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  } else if (request.method !== 'GET') {
    headers['content-length'] = '0';
  }

  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    let connected = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };

    const req = (isHttps ? https : http).request(url, {
      method: request.method,
      headers,
      agent: isHttps ? httpsAgent : httpAgent,
    });

    // One timer for connect + response, so a slow accept and a slow answer are bounded alike.
    const timer = setTimeout(() => {
      finish({
        notSent: !connected,
        error: new TimeoutError(`${request.method} ${target} timed out after ${timeoutMs} ms`),
      });
      req.destroy();
    }, timeoutMs);

    req.on('socket', (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once('connect', () => (connected = true));
    });

    req.on('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? 'UNKNOWN';
      // Without a connected socket no byte of the request can have reached the service.
      const notSent = NOT_SENT_NETWORK_CODES.has(code) || !connected;
      finish({
        notSent,
        error: new NetworkError(`${request.method} ${target} failed: ${code}`),
      });
    });

    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', () => {
        finish({
          notSent: false,
          error: new NetworkError(`${request.method} ${target} failed: response aborted`),
        });
      });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString('utf8');
        finish(
          interpret(request, target, { status, text, retryAfter: res.headers['retry-after'] }, readings),
        );
      });
    });

    if (payload) req.end(payload);
    else req.end();
  });
}

/**
 * A service that echoes the Authorization header into its error message would otherwise put
 * the token into our error (and from there into logs and SyncFailed events).
 */
function redactToken<E extends Error>(error: E, token: string): E {
  if (token === '') return error;
  const scrub = (value: string) => value.replaceAll(token, '[REDACTED]');
  error.message = scrub(error.message);
  if (error.stack) error.stack = scrub(error.stack);
  if (error.cause instanceof Error) redactToken(error.cause, token);
  return error;
}
