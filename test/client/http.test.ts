import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  isRetryable,
  NetworkError,
  OutcomeUnknownError,
  PermanentError,
  ResponseShapeError,
  RetryableError,
  ServiceRejectedError,
  ServiceUnavailableError,
  ThrottledError,
  TimeoutError,
  TokenProblemError,
  TokenRejectedError,
} from '#functions/domain/errors.ts';
import {
  type BudgetScope,
  createHttpClient,
  type HttpClientOptions,
  parseRetryAfter,
  type RequestInfo,
  type ServiceRequest,
} from '#functions/service/http.ts';
import { type FakeService, recordingSleep, refusedUrl, replyJson, startFakeService } from './fake-service.ts';

const token = async () => 'unit-token';
/** Every call names the budget it takes from; these clients have no budget, so any scope does. */
const ANY_SCOPE = { kind: 'install', hostname: 'fake.service.test' } as const;
let service: FakeService | undefined;

afterEach(async () => {
  await service?.close();
  service = undefined;
});

function client(overrides: Partial<HttpClientOptions> = {}) {
  const recorder = recordingSleep();
  const http = createHttpClient({
    token,
    random: () => 0.5,
    sleep: recorder.sleep,
    retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 },
    ...overrides,
  });
  return { http, delays: recorder.delays };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('http layer: success path', () => {
  it('sends JSON with the bearer token and returns the parsed answer', async () => {
    // Prepare
    service = await startFakeService((_request, response) => replyJson(response, 200, { ok: true, n: 1 }));
    const { http } = client();

    // Act
    const response = await http.send({
      method: 'POST',
      url: `${service.url}/things`,
      body: { a: 1 },
      safety: 'idempotent',
      scope: ANY_SCOPE,
    });

    // Assess
    expect(response).toEqual({ status: 200, body: { ok: true, n: 1 } });
    expect(service.requests[0]).toMatchObject({
      method: 'POST',
      path: '/things',
      authorization: 'Bearer unit-token',
      contentType: 'application/json',
      body: '{"a":1}',
    });
  });

  it('returns an undefined body for an empty 2xx answer', async () => {
    service = await startFakeService((_request, response) => {
      response.writeHead(204);
      response.end();
    });
    const { http } = client();

    const response = await http.send({
      method: 'GET',
      url: `${service.url}/empty`,
      safety: 'idempotent',
      scope: ANY_SCOPE,
    });

    expect(response).toEqual({ status: 204, body: undefined });
  });

  it('reports every attempt to onRequest and counts retries', async () => {
    service = await startFakeService((_request, response, index) =>
      index === 0 ? replyJson(response, 500, {}) : replyJson(response, 200, []),
    );
    const seen: RequestInfo[] = [];
    const { http } = client({ onRequest: (info) => seen.push(info) });

    await http.send({
      method: 'GET',
      url: `${service.url}/x?secret=1`,
      safety: 'idempotent',
      scope: ANY_SCOPE,
    });

    expect(seen.map(({ status, attempt }) => ({ status, attempt }))).toEqual([
      { status: 500, attempt: 1 },
      { status: 200, attempt: 2 },
    ]);
    expect(seen[0]?.url).toBe(`${service.url}/x`);
    expect(seen[0]?.errorCode).toBe('SERVICE_UNAVAILABLE');
    expect(http.stats).toEqual({ requests: 2, retries: 1 });
  });
});

describe('http layer: retries of idempotent calls', () => {
  it('retries 500 with full-jitter exponential backoff until it succeeds', async () => {
    service = await startFakeService((_request, response, index) =>
      index < 2
        ? replyJson(response, 500, { error: { code: 'INTERNAL_ERROR' } })
        : replyJson(response, 200, 'ok'),
    );
    const { http, delays } = client();

    const response = await http.send({
      method: 'GET',
      url: `${service.url}/r`,
      safety: 'idempotent',
      scope: ANY_SCOPE,
    });

    expect(response.body).toBe('ok');
    // random() = 0.5: 0.5 * min(1000, 100 * 2^0) and 0.5 * min(1000, 100 * 2^1)
    expect(delays).toEqual([50, 100]);
  });

  it('caps the backoff at maxDelayMs', async () => {
    service = await startFakeService((_request, response) => replyJson(response, 502, {}));
    const { http, delays } = client({
      random: () => 0.999,
      retry: { maxAttempts: 5, baseDelayMs: 400, maxDelayMs: 1000 },
    });

    await failure(
      http.send({ method: 'GET', url: `${service.url}/r`, safety: 'idempotent', scope: ANY_SCOPE }),
    );

    expect(delays).toEqual([399, 799, 999, 999]);
  });

  it('gives up after maxAttempts with a retryable ServiceUnavailableError', async () => {
    service = await startFakeService((_request, response) =>
      replyJson(response, 503, { error: { code: 'DOWN', message: 'down for maintenance' } }),
    );
    const { http } = client();

    const error = await failure(
      http.send({ method: 'GET', url: `${service.url}/r`, safety: 'idempotent', scope: ANY_SCOPE }),
    );

    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, serviceCode: 'DOWN', code: 'SERVICE_UNAVAILABLE' });
    expect(isRetryable(error)).toBe(true);
    expect(service.requests).toHaveLength(3);
  });

  it('waits exactly the Retry-After seconds of a 429', async () => {
    service = await startFakeService((_request, response, index) =>
      index === 0 ? replyJson(response, 429, {}, { 'retry-after': '2' }) : replyJson(response, 200, {}),
    );
    const { http, delays } = client();

    await http.send({ method: 'GET', url: `${service.url}/r`, safety: 'idempotent', scope: ANY_SCOPE });

    expect(delays).toEqual([2000]);
  });

  it('waits until a Retry-After HTTP date', async () => {
    const at = new Date(Date.now() + 4000).toUTCString();
    service = await startFakeService((_request, response, index) =>
      index === 0 ? replyJson(response, 503, {}, { 'retry-after': at }) : replyJson(response, 200, {}),
    );
    const { http, delays } = client();

    await http.send({ method: 'GET', url: `${service.url}/r`, safety: 'idempotent', scope: ANY_SCOPE });

    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThan(2000);
    expect(delays[0]).toBeLessThanOrEqual(4000);
  });

  it('does not wait for a Retry-After beyond the cap and surfaces it for the queue instead', async () => {
    service = await startFakeService((_request, response) =>
      replyJson(response, 429, {}, { 'retry-after': '60' }),
    );
    const { http, delays } = client();

    const error = await failure(
      http.send({ method: 'GET', url: `${service.url}/r`, safety: 'idempotent', scope: ANY_SCOPE }),
    );

    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 60_000 });
    expect(delays).toEqual([]);
    expect(service.requests).toHaveLength(1);
  });

  it('retries a connection dropped before the answer', async () => {
    service = await startFakeService((_request, response, index) =>
      index === 0 ? response.socket?.destroy() : replyJson(response, 200, { second: true }),
    );
    const { http } = client();

    const response = await http.send({
      method: 'POST',
      url: `${service.url}/m`,
      body: {},
      safety: 'idempotent',
      scope: ANY_SCOPE,
    });

    expect(response.body).toEqual({ second: true });
    expect(service.requests).toHaveLength(2);
  });

  it('bounds each attempt by the timeout and retries it', async () => {
    service = await startFakeService(() => undefined);
    const { http } = client({ timeoutMs: 150, retry: { maxAttempts: 2 } });
    const started = Date.now();

    const error = await failure(
      http.send({ method: 'GET', url: `${service.url}/slow`, safety: 'idempotent', scope: ANY_SCOPE }),
    );

    expect(error).toBeInstanceOf(TimeoutError);
    expect(isRetryable(error)).toBe(true);
    expect(service.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(2 * 150 + 500);
  });

  it('times out a response whose body stalls after the headers', async () => {
    service = await startFakeService((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"partial":');
    });
    const { http } = client({ timeoutMs: 150, retry: { maxAttempts: 1 } });

    const error = await failure(
      http.send({ method: 'GET', url: `${service.url}/stall`, safety: 'idempotent', scope: ANY_SCOPE }),
    );

    expect(error).toBeInstanceOf(TimeoutError);
  });
});

describe('http layer: non-idempotent creates', () => {
  it('does not retry a 500 and reports the outcome as unknown', async () => {
    service = await startFakeService((_request, response) => replyJson(response, 500, {}));
    const { http } = client();

    const error = await failure(
      http.send({ method: 'PUT', url: `${service.url}/c`, body: {}, safety: 'create', scope: ANY_SCOPE }),
    );

    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toMatchObject({ code: 'OUTCOME_UNKNOWN', status: 500 });
    expect(isRetryable(error)).toBe(true);
    expect(service.requests).toHaveLength(1);
  });

  it('does not retry after a timeout once the request was sent', async () => {
    service = await startFakeService(() => undefined);
    const { http } = client({ timeoutMs: 150 });
    const started = Date.now();

    const error = await failure(
      http.send({ method: 'PUT', url: `${service.url}/c`, body: {}, safety: 'create', scope: ANY_SCOPE }),
    );

    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(service.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(150 + 400);
  });

  it('does not retry a connection dropped after the request was sent', async () => {
    service = await startFakeService((_request, response) => response.socket?.destroy());
    const { http } = client();

    const error = await failure(
      http.send({ method: 'PUT', url: `${service.url}/c`, body: {}, safety: 'create', scope: ANY_SCOPE }),
    );

    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(service.requests).toHaveLength(1);
  });

  it('retries 429 and 503, which are answered before processing', async () => {
    service = await startFakeService((_request, response, index) => {
      if (index === 0) replyJson(response, 429, {}, { 'retry-after': '1' });
      else if (index === 1) replyJson(response, 503, {});
      else replyJson(response, 200, { created: 7 });
    });
    const { http, delays } = client();

    const response = await http.send({
      method: 'PUT',
      url: `${service.url}/c`,
      body: {},
      safety: 'create',
      scope: ANY_SCOPE,
    });

    expect(response.body).toEqual({ created: 7 });
    expect(delays).toEqual([1000, 100]);
  });

  it('retries a refused connection, which certainly never reached the service', async () => {
    const url = await refusedUrl();
    const { http, delays } = client();

    const error = await failure(
      http.send({ method: 'PUT', url: `${url}/c`, body: {}, safety: 'create', scope: ANY_SCOPE }),
    );

    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toContain('ECONNREFUSED');
    expect(delays).toHaveLength(2);
  });
});

describe('http layer: answers that are not retried', () => {
  it('turns a 4xx into a permanent ServiceRejectedError with the service code and message', async () => {
    service = await startFakeService((_request, response) =>
      replyJson(response, 409, {
        success: false,
        data: null,
        error: { code: 'ALREADY_PREMIUM', message: 'paid' },
      }),
    );
    const { http } = client();

    const error = await failure(
      http.send({
        method: 'POST',
        url: `${service.url}/p`,
        body: {},
        safety: 'idempotent',
        scope: ANY_SCOPE,
      }),
    );

    expect(error).toBeInstanceOf(ServiceRejectedError);
    expect(error).toBeInstanceOf(PermanentError);
    expect(error).toMatchObject({ status: 409, serviceCode: 'ALREADY_PREMIUM', message: 'paid' });
    expect(isRetryable(error)).toBe(false);
    expect(service.requests).toHaveLength(1);
  });

  it('keeps the status when a 4xx carries no service error body', async () => {
    service = await startFakeService((_request, response) => {
      response.writeHead(404);
      response.end('not here');
    });
    const { http } = client();

    const error = await failure(
      http.send({ method: 'GET', url: `${service.url}/nothing`, safety: 'idempotent', scope: ANY_SCOPE }),
    );

    expect(error).toMatchObject({ status: 404, serviceCode: undefined });
    expect((error as Error).message).toContain('404');
  });

  it('treats a 2xx body that is not JSON as an unexpected response', async () => {
    service = await startFakeService((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>');
    });
    const { http } = client();

    const error = await failure(
      http.send({ method: 'GET', url: `${service.url}/html`, safety: 'idempotent', scope: ANY_SCOPE }),
    );

    expect(error).toBeInstanceOf(ResponseShapeError);
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE', status: 200 });
  });

  it('classifies unknown errors as permanent', () => {
    expect(isRetryable(new Error('bug'))).toBe(false);
    expect(isRetryable(new RetryableError('ACCOUNT_NOT_PROVISIONED', 'later'))).toBe(true);
  });
});

describe('http layer: answers a fix elsewhere cures', () => {
  it.each([
    [401, {}],
    [401, { success: false, error: { code: 'UNAUTHORIZED', message: 'bad token' } }],
  ])('turns a 401 (%#) into a retryable TOKEN_REJECTED and drops the cached token', async (status, body) => {
    // Prepare
    service = await startFakeService((_request, response) => replyJson(response, status, body));
    let invalidated = 0;
    const { http, delays } = client({ onTokenRejected: () => invalidated++ });

    // Act: a create, which is resent only when it certainly did not reach the service.
    const error = await failure(
      http.send({
        method: 'POST',
        url: `${service.url}/signup`,
        body: {},
        safety: 'create',
        scope: ANY_SCOPE,
      }),
    );

    // Assess: the same token is not sent again at retry speed; records wait instead (route-handler.ts).
    expect(error).toBeInstanceOf(TokenRejectedError);
    expect(error).toBeInstanceOf(TokenProblemError);
    expect(error).toMatchObject({ code: 'TOKEN_REJECTED', status });
    expect(isRetryable(error)).toBe(true);
    expect(invalidated).toBe(1);
    expect(service.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('sends once more at once when the secret holds another token after the refusal', async () => {
    // Prepare: the secret was rotated after the function cached the old token.
    service = await startFakeService((request, response) =>
      request.authorization === 'Bearer rotated-token'
        ? replyJson(response, 200, { ok: true })
        : replyJson(response, 401, {}),
    );
    let current = 'stale-token';
    const { http } = client({
      token: async () => current,
      onTokenRejected: () => {
        current = 'rotated-token';
      },
    });

    // Act
    const answer = await http.send({
      method: 'POST',
      url: `${service.url}/signup`,
      body: {},
      safety: 'create',
      scope: ANY_SCOPE,
    });

    // Assess
    expect(answer.body).toEqual({ ok: true });
    expect(service.requests.map((request) => request.authorization)).toEqual([
      'Bearer stale-token',
      'Bearer rotated-token',
    ]);
  });

  it('keeps a 403 that names a service code as the service refusing this request', async () => {
    // Prepare: e.g. a hostname not linked to the partner (the spec shows no status codes).
    service = await startFakeService((_request, response) =>
      replyJson(response, 403, {
        success: false,
        error: { code: 'HOSTNAME_NOT_LINKED', message: 'not yours' },
      }),
    );
    let invalidated = 0;
    const { http } = client({ onTokenRejected: () => invalidated++ });

    // Act
    const error = await failure(
      http.send({
        method: 'POST',
        url: `${service.url}/status`,
        body: {},
        safety: 'idempotent',
        scope: ANY_SCOPE,
      }),
    );

    // Assess
    expect(error).toBeInstanceOf(ServiceRejectedError);
    expect(error).toMatchObject({ status: 403, serviceCode: 'HOSTNAME_NOT_LINKED' });
    expect(invalidated).toBe(0);
  });

  it.each([408, 425])(
    'retries a %i, which the service answered without processing, creates included',
    async (status) => {
      // Prepare
      service = await startFakeService((_request, response, index) =>
        index === 0 ? replyJson(response, status, {}) : replyJson(response, 200, { created: true }),
      );
      const { http } = client();

      // Act
      const answer = await http.send({
        method: 'POST',
        url: `${service.url}/signup`,
        body: {},
        safety: 'create',
        scope: ANY_SCOPE,
      });

      // Assess
      expect(answer.body).toEqual({ created: true });
      expect(service.requests).toHaveLength(2);
    },
  );
});

describe('http layer: authentication', () => {
  it('sends no Authorization header and reads no token for a request that needs none', async () => {
    // Prepare: install calls of a deployment whose installs take no bearer token (installAuth none).
    service = await startFakeService((_request, response) => replyJson(response, 200, { ok: true }));
    let tokenReads = 0;
    const { http } = client({
      token: async () => {
        tokenReads += 1;
        return 'unit-token';
      },
    });

    // Act
    await http.send({
      method: 'GET',
      url: `${service.url}/install`,
      safety: 'idempotent',
      auth: 'none',
      scope: ANY_SCOPE,
    });
    await http.send({
      method: 'GET',
      url: `${service.url}/provisioning`,
      safety: 'idempotent',
      scope: ANY_SCOPE,
    });

    // Assess
    expect(service.requests.map((request) => request.authorization)).toEqual([
      undefined,
      'Bearer unit-token',
    ]);
    expect(tokenReads).toBe(1);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates and ignores garbage', () => {
    const now = Date.parse('2026-03-01T10:00:00Z');

    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 10:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('http layer: the shared request budget', () => {
  it('does not compile a request that names no budget scope, so no call can go out unmetered', () => {
    // Prepare / Act: `npm run typecheck` fails here if `scope` ever becomes optional again.
    // @ts-expect-error scope is required
    const unscoped: ServiceRequest = {
      method: 'GET',
      url: 'http://fake.service.test/x',
      safety: 'idempotent',
    };

    // Assess
    expect(unscoped).not.toHaveProperty('scope');
    // The same, stated as a type: `scope` is a required BudgetScope (optional would be `scope?:`).
    expectTypeOf<Pick<ServiceRequest, 'scope'>>().toEqualTypeOf<{ scope: BudgetScope }>();
  });

  it('takes from the call scope before every attempt and pauses it on a 429 with Retry-After', async () => {
    // Prepare: a 429 asking for 2 s, then success.
    service = await startFakeService((_request, response, index) =>
      index === 0 ? replyJson(response, 429, {}, { 'retry-after': '2' }) : replyJson(response, 200, {}),
    );
    const taken: unknown[] = [];
    const paused: Array<{ scope: unknown; inMs: number }> = [];
    const { http } = client({
      budget: {
        take: async (scope) => {
          taken.push(scope);
        },
        pause: async (scope, untilMs) => {
          paused.push({ scope, inMs: untilMs - Date.now() });
        },
      },
    });
    const scope = { kind: 'install', hostname: 'a.example.com' } as const;

    // Act
    await http.send({ method: 'GET', url: `${service.url}/x`, safety: 'idempotent', scope });

    // Assess
    expect(taken).toEqual([scope, scope]);
    expect(paused).toHaveLength(1);
    expect(paused[0]?.scope).toEqual(scope);
    expect(paused[0]?.inMs).toBeGreaterThan(1500);
    expect(paused[0]?.inMs).toBeLessThanOrEqual(2000);
  });

  it('sends nothing when the budget throttles: the ThrottledError reaches the caller', async () => {
    // Prepare
    let requests = 0;
    service = await startFakeService((_request, response) => {
      requests++;
      replyJson(response, 200, {});
    });
    const { http } = client({
      budget: {
        take: async () => {
          throw new ThrottledError('no request for 3000 ms', 3000);
        },
        pause: async () => undefined,
      },
    });

    // Act
    const error = await failure(
      http.send({
        method: 'GET',
        url: `${service.url}/x`,
        safety: 'idempotent',
        scope: { kind: 'provisioning', region: 'US' },
      }),
    );

    // Assess
    expect(error).toBeInstanceOf(ThrottledError);
    expect(isRetryable(error)).toBe(true);
    expect(requests).toBe(0);
  });
});

describe('http layer: 401, 403 and 404 without a service code, read as the deployment says', () => {
  /** One create call answered `status` with a gateway-style body (no code); what it fails with. */
  async function answeredWithoutCode(
    status: 401 | 403 | 404,
    readings?: HttpClientOptions['uncodedStatusReadings'],
  ) {
    service = await startFakeService((_request, response) =>
      replyJson(response, status, { message: 'Forbidden' }),
    );
    let invalidated = 0;
    const { http } = client({
      onTokenRejected: () => invalidated++,
      ...(readings === undefined ? {} : { uncodedStatusReadings: readings }),
    });
    const error = await failure(
      http.send({
        method: 'POST',
        url: `${service.url}/change-plan`,
        body: {},
        safety: 'create',
        scope: ANY_SCOPE,
      }),
    );
    return { error, invalidated, sent: service.requests.length };
  }

  const all = (reading: 'token-refused' | 'not-linked' | 'retry' | 'refusal') =>
    ({ '401': reading, '403': reading, '404': reading }) as const;

  it('reads them by default as the sandbox means its coded answers: 401 token, 403 not linked, 404 a refusal', async () => {
    // Act
    const unauthorized = await answeredWithoutCode(401);
    await service?.close();
    const forbidden = await answeredWithoutCode(403);
    await service?.close();
    const missing = await answeredWithoutCode(404);

    // Assess
    expect(unauthorized.error).toBeInstanceOf(TokenRejectedError);
    expect(forbidden.error).toBeInstanceOf(ServiceRejectedError);
    expect(forbidden.error).toMatchObject({
      code: 'HOSTNAME_NOT_LINKED',
      status: 403,
      serviceMessage: 'Forbidden',
    });
    expect(forbidden.invalidated).toBe(0);
    expect(missing.error).toBeInstanceOf(ServiceRejectedError);
    expect(missing.error).toMatchObject({ code: 'SERVICE_REJECTED', status: 404 });
  });

  it.each([401, 403, 404] as const)(
    'token-refused: a %i drops the token and makes the record wait',
    async (status) => {
      // Act
      const { error, invalidated, sent } = await answeredWithoutCode(status, all('token-refused'));

      // Assess
      expect(error).toBeInstanceOf(TokenRejectedError);
      expect(error).toMatchObject({ code: 'TOKEN_REJECTED', status });
      expect(invalidated).toBe(1);
      expect(sent).toBe(1);
    },
  );

  it.each([401, 403, 404] as const)(
    'not-linked: a %i is a permanent HOSTNAME_NOT_LINKED refusal',
    async (status) => {
      // Act
      const { error, invalidated, sent } = await answeredWithoutCode(status, all('not-linked'));

      // Assess
      expect(error).toBeInstanceOf(ServiceRejectedError);
      expect(error).toMatchObject({ code: 'HOSTNAME_NOT_LINKED', status });
      expect(isRetryable(error)).toBe(false);
      expect(invalidated).toBe(0);
      expect(sent).toBe(1);
    },
  );

  it.each([401, 403, 404] as const)(
    'retry: a %i is resent, a create included, then retryable',
    async (status) => {
      // Act
      const { error, invalidated, sent } = await answeredWithoutCode(status, all('retry'));

      // Assess: not processed, so even a create is sent again (maxAttempts 3).
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status });
      expect(isRetryable(error)).toBe(true);
      expect(invalidated).toBe(0);
      expect(sent).toBe(3);
    },
  );

  it.each([401, 403, 404] as const)('refusal: a %i is a permanent SERVICE_REJECTED', async (status) => {
    // Act
    const { error, invalidated, sent } = await answeredWithoutCode(status, all('refusal'));

    // Assess
    expect(error).toBeInstanceOf(ServiceRejectedError);
    expect(error).toMatchObject({ code: 'SERVICE_REJECTED', status });
    expect(invalidated).toBe(0);
    expect(sent).toBe(1);
  });

  it('keeps reading a 403 or 404 that names a service code as the service refusing the request', async () => {
    // Prepare
    service = await startFakeService((_request, response) =>
      replyJson(response, 404, { success: false, error: { code: 'NOT_FOUND', message: 'no such thing' } }),
    );
    const { http } = client({ uncodedStatusReadings: all('retry') });

    // Act
    const error = await failure(
      http.send({ method: 'POST', url: `${service.url}/x`, body: {}, safety: 'create', scope: ANY_SCOPE }),
    );

    // Assess
    expect(error).toMatchObject({ code: 'SERVICE_REJECTED', serviceCode: 'NOT_FOUND', status: 404 });
    expect(service.requests).toHaveLength(1);
  });
});
