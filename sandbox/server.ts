import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { assumedInstallRoutes } from './assumed-calls.ts';
import { controlRoutes } from './control.ts';
import { ApiError, invalid, notFound } from './errors.ts';
import type { FaultKind } from './faults.ts';
import { applyDueMetrics, installRoutes } from './install.ts';
import type { LenientReading, RegionCode } from './mode.ts';
import { assertRegionRuns, deleteLapsedBusinesses, provisioningRoutes } from './provisioning.ts';
import { matchRoute, type RouteMatch, type SandboxResponse } from './routing.ts';
import { type RequestLogEntry, SandboxState } from './state.ts';
import { toIsoOffset } from './time.ts';

export interface SandboxOptions {
  /** @default 8787 (tests pass 0 for a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** The partner name the sandbox announces; any partner name in a path is accepted. @default 'acme' */
  partner?: string;
  /** Bearer token required on provisioning and install calls. @default 'sandbox-token' */
  token?: string;
  /** Requests per second on non-control paths before 429 RATE_LIMITED. @default no limit */
  rateLimit?: number;
  /** Lenient readings on from the start (README "Spec and lenient readings"). @default none: the spec */
  lenient?: readonly LenientReading[];
  /** Provisioning roots that answer; the others answer 503 REGION_NOT_RUNNING. @default US (all with `all-regions`) */
  regions?: readonly RegionCode[];
}

export interface RunningSandbox {
  url: string;
  port: number;
  close(): Promise<void>;
  state: SandboxState;
}

const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** How long a 'timeout' fault holds a request when the client does not give up first. */
const TIMEOUT_FAULT_HOLD_MS = 30_000;
/** The Retry-After of the sandbox's 429 answers (rate limit and injected 429 faults). */
export const RETRY_AFTER_SECONDS = 1;
/** The spec's install calls, then those it names without a path (sandbox/assumed-calls.ts). */
const INSTALL_ROUTES = [...installRoutes, ...assumedInstallRoutes];
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

type Envelope = 'provisioning' | 'install' | 'control';

function errorBody(envelope: Envelope, code: string, message: string): unknown {
  const error = { code, message };
  // Install errors carry no `data` (docs/internals.md); provisioning responses always do.
  return envelope === 'provisioning' ? { success: false, data: null, error } : { success: false, error };
}

function errorResponse(envelope: Envelope, error: ApiError): SandboxResponse {
  return {
    status: error.status,
    body: errorBody(envelope, error.code, error.message),
    headers: error.headers,
  };
}

function parseBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw invalid('request body is not valid JSON');
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(invalid('request body is too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, result: SandboxResponse): void {
  if (response.headersSent || response.destroyed) return;
  if (result.status === 204) {
    response.writeHead(204, { ...result.headers });
    response.end();
    return;
  }
  const payload = JSON.stringify(result.body) ?? 'null';
  response.writeHead(result.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    ...result.headers,
  });
  response.end(payload);
}

function resolveRoute<Context>(match: RouteMatch<Context>, method: string, path: string) {
  if (match.kind === 'not-found') throw notFound(`no endpoint at ${path}`);
  if (match.kind === 'method-not-allowed') {
    throw new ApiError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}`, {
      allow: match.allow.join(', '),
    });
  }
  return match;
}

function authorize(state: SandboxState, header: string | undefined): void {
  const token = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim();
  if (token !== state.settings.token) {
    throw new ApiError(401, 'UNAUTHORIZED', 'a valid bearer token is required');
  }
}

function dispatchApi(
  state: SandboxState,
  request: IncomingMessage,
  path: string,
  text: string,
): SandboxResponse {
  const method = request.method ?? 'GET';
  const installPath = /^\/installs\/([^/]+)(\/.*)?$/.exec(path);
  const envelope: Envelope = installPath ? 'install' : 'provisioning';
  try {
    deleteLapsedBusinesses(state);
    if (installPath) {
      const hostname = decodeURIComponent(installPath[1] ?? '');
      const rest = installPath[2] ?? '';
      const { route, params } = resolveRoute(matchRoute(INSTALL_ROUTES, method, rest), method, path);
      authorize(state, request.headers.authorization);
      const install = state.installs.get(hostname);
      if (!install) throw notFound(`install ${hostname} not found`);
      applyDueMetrics(install, state.clock.now());
      return route.handle({ state, install, body: parseBody(text) }, params);
    }
    // A root that is not running answers nothing else, not even 404 or 401.
    assertRegionRuns(state, path);
    const { route, params } = resolveRoute(matchRoute(provisioningRoutes, method, path), method, path);
    authorize(state, request.headers.authorization);
    return route.handle({ state, body: parseBody(text) }, params);
  } catch (error) {
    if (error instanceof ApiError) return errorResponse(envelope, error);
    if (error instanceof URIError) return errorResponse(envelope, invalid('malformed path'));
    throw error;
  }
}

interface ServerRuntime {
  state: SandboxState;
  heldTimers: Set<NodeJS.Timeout>;
}

/** The answers of the `*-no-code` faults: a status and a message, no error code (not applied). */
const UNCODED_FAULTS: Partial<Record<FaultKind, { status: number; message: string }>> = {
  '401-no-code': { status: 401, message: 'Unauthorized' },
  '403-no-code': { status: 403, message: 'Forbidden' },
  '404-no-code': { status: 404, message: 'Not Found' },
};

/** A 'timeout' fault never answers: the socket is dropped when the client leaves or after 30 s. */
function holdWithoutAnswer(runtime: ServerRuntime, request: IncomingMessage, response: ServerResponse): void {
  const timer = setTimeout(() => {
    runtime.heldTimers.delete(timer);
    request.socket.destroy();
  }, TIMEOUT_FAULT_HOLD_MS);
  runtime.heldTimers.add(timer);
  response.on('close', () => {
    clearTimeout(timer);
    runtime.heldTimers.delete(timer);
  });
}

async function serveApi(
  runtime: ServerRuntime,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
) {
  const { state } = runtime;
  const method = request.method ?? 'GET';
  const envelope: Envelope = path.startsWith('/installs/') ? 'install' : 'provisioning';
  const log = (status: number, cause?: RequestLogEntry['cause']) =>
    state.requestLog.push({
      time: toIsoOffset(state.clock.now()),
      wallMs: Date.now(),
      method,
      path,
      status,
      ...(cause ? { cause } : {}),
    });
  const answer = (result: SandboxResponse, cause?: RequestLogEntry['cause']) => {
    log(result.status, cause);
    send(response, result);
  };

  let text: string;
  try {
    text = await readBody(request);
  } catch (error) {
    const refusal = error instanceof ApiError ? error : invalid('request body could not be read');
    answer({ ...errorResponse(envelope, refusal), headers: { connection: 'close' } });
    return;
  }
  if (!state.rateLimiter.tryAcquire()) {
    answer(
      errorResponse(
        envelope,
        new ApiError(429, 'RATE_LIMITED', 'too many requests', {
          'retry-after': String(RETRY_AFTER_SECONDS),
        }),
      ),
      'rate-limit',
    );
    return;
  }
  const fault = state.faults.draw(path);
  if (fault === '429') {
    answer(
      {
        status: 429,
        body: errorBody(envelope, 'RATE_LIMITED', 'too many requests (injected fault)'),
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
      },
      '429',
    );
    return;
  }
  if (fault === '500') {
    answer(
      { status: 500, body: errorBody(envelope, 'INTERNAL_ERROR', 'internal error (injected fault)') },
      '500',
    );
    return;
  }
  const uncoded = fault === undefined ? undefined : UNCODED_FAULTS[fault];
  if (uncoded !== undefined) {
    answer({ status: uncoded.status, body: { message: uncoded.message } }, fault);
    return;
  }
  if (fault === 'timeout') {
    log(0, 'timeout');
    holdWithoutAnswer(runtime, request, response);
    return;
  }
  const result = dispatchApi(state, request, path, text);
  if (fault === 'drop-after-commit') {
    // The change is applied; only the answer is lost, as when a connection dies mid-response.
    log(0, 'drop-after-commit');
    request.socket.destroy();
    return;
  }
  answer(result);
}

async function serveControl(
  state: SandboxState,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
) {
  const method = request.method ?? 'GET';
  try {
    if (!LOOPBACK.has(request.socket.remoteAddress ?? '')) {
      throw new ApiError(403, 'FORBIDDEN', 'the control API answers loopback callers only');
    }
    const text = await readBody(request);
    const { route, params } = resolveRoute(matchRoute(controlRoutes, method, path), method, path);
    send(response, route.handle({ state, body: parseBody(text) }, params));
  } catch (error) {
    if (error instanceof ApiError) send(response, errorResponse('control', error));
    else throw error;
  }
}

function pathOf(request: IncomingMessage): string {
  try {
    return new URL(request.url ?? '/', 'http://sandbox.local').pathname;
  } catch {
    return '/';
  }
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const state = new SandboxState({
    partner: opts.partner ?? 'acme',
    token: opts.token ?? 'sandbox-token',
    rateLimit: opts.rateLimit,
    mode: {
      ...(opts.lenient ? { lenient: opts.lenient } : {}),
      ...(opts.regions ? { regions: opts.regions } : {}),
    },
  });
  const runtime: ServerRuntime = { state, heldTimers: new Set() };
  const server = createServer((request, response) => {
    response.on('error', () => undefined);
    const path = pathOf(request);
    const serving =
      path === '/_sandbox' || path.startsWith('/_sandbox/')
        ? serveControl(state, request, response, path)
        : serveApi(runtime, request, response, path);
    // Whatever goes wrong while serving one request, the server keeps running.
    serving.catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      send(response, { status: 500, body: errorBody('provisioning', 'INTERNAL_ERROR', message) });
    });
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8787, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    state,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of runtime.heldTimers) clearTimeout(timer);
        runtime.heldTimers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
