import { request as httpRequest } from 'node:http';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '#sandbox/server.ts';
import { client, startTestSandbox } from './harness.ts';

const { sandbox, call, signup, install } = await startTestSandbox();
afterAll(() => sandbox.close());
beforeEach(async () => {
  await call('POST', '/_sandbox/reset');
});

const countryQuery = (hostname: string) =>
  install(hostname).call('POST', '/api/v1/resource/Country/QUERY', {});

describe('clock', () => {
  it('reads, advances by days and sets an absolute time', async () => {
    // Prepare
    const start = Date.parse((await call('GET', '/_sandbox/clock')).body.now);

    // Act
    const advanced = await call('POST', '/_sandbox/clock', { advanceDays: 10 });
    const set = await call('POST', '/_sandbox/clock', { now: '2030-06-01T12:00:00Z' });

    // Assess
    const advancedDays = (Date.parse(advanced.body.now) - start) / 86_400_000;
    expect(advancedDays).toBeGreaterThan(9.99);
    expect(advancedDays).toBeLessThan(10.01);
    expect(set.body.now).toMatch(/^2030-06-01T12:00:0\d\+00:00$/);
  });

  it('refuses a clock change without advanceDays or now', async () => {
    // Act
    const reply = await call('POST', '/_sandbox/clock', { days: 3 });

    // Assess
    expect(reply.status).toBe(400);
  });
});

describe('faults', () => {
  it('answers 429 RATE_LIMITED with Retry-After for an injected 429', async () => {
    // Prepare
    const hostname = await signup();
    await call('POST', '/_sandbox/faults', { rate: 1, kinds: ['429'], seed: 7, count: 1 });

    // Act
    const faulted = await countryQuery(hostname);
    const next = await countryQuery(hostname);

    // Assess
    expect(faulted.status).toBe(429);
    expect(faulted.headers.get('retry-after')).toBe('1');
    expect(faulted.body.error.code).toBe('RATE_LIMITED');
    expect(next.status).toBe(200);
  });

  it('answers 500 INTERNAL_ERROR in the provisioning envelope for an injected 500', async () => {
    // Prepare
    await call('POST', '/_sandbox/faults', { rate: 1, kinds: ['500'], seed: 1, pathPrefix: '/connect/' });

    // Act
    const reply = await call('POST', '/connect/v1/partner/acme/subscription-status', { hostname: 'x' });

    // Assess
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({
      success: false,
      data: null,
      error: { code: 'INTERNAL_ERROR', message: expect.any(String) },
    });
  });

  it('never answers a request hit by a timeout fault and logs it with status 0', async () => {
    // Prepare
    const hostname = await signup();
    await call('POST', '/_sandbox/faults', { rate: 1, kinds: ['timeout'], seed: 1, count: 1 });

    // Act
    const started = Date.now();
    const outcome = await fetch(`${sandbox.url}/installs/${hostname}/api/v1/resource/Country/QUERY`, {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox-token' },
      signal: AbortSignal.timeout(300),
    }).then(
      () => 'answered',
      (error: Error) => error.name,
    );

    // Assess
    expect(outcome).toBe('TimeoutError');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const log = (await call('GET', '/_sandbox/requests')).body;
    expect(log.at(-1)).toMatchObject({ method: 'POST', status: 0 });
  });

  it('applies the change of a drop-after-commit request and then drops the connection', async () => {
    // Prepare
    const hostname = await signup();
    await call('POST', '/_sandbox/faults', {
      rate: 1,
      kinds: ['drop-after-commit'],
      seed: 1,
      count: 1,
      pathPrefix: `/installs/${hostname}/api/v1/supervise/company`,
    });

    // Act
    const outcome = await install(hostname)
      .call('PUT', '/api/v1/supervise/company', { CompanyName: 'Dropped But Saved', IsWorkplace: 1 })
      .then(
        () => 'answered',
        () => 'dropped',
      );

    // Assess
    expect(outcome).toBe('dropped');
    const locations = (await install(hostname).dump()).Location;
    expect(locations.map((location: { CompanyName: string }) => location.CompanyName)).toContain(
      'Dropped But Saved',
    );
    expect((await call('GET', '/_sandbox/requests')).body.at(-1).status).toBe(0);
  });

  it('replays the same fault sequence for the same seed', async () => {
    // Prepare
    const hostname = await signup();
    const plan = { rate: 0.5, kinds: ['429', '500'], seed: 42 };
    const run = async () => {
      await call('POST', '/_sandbox/faults', plan);
      const statuses: number[] = [];
      for (let index = 0; index < 12; index += 1) statuses.push((await countryQuery(hostname)).status);
      return statuses;
    };

    // Act
    const first = await run();
    const second = await run();

    // Assess
    expect(second).toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(1);
  });

  it('stops faulting after DELETE and never faults the control API', async () => {
    // Prepare
    const hostname = await signup();
    await call('POST', '/_sandbox/faults', { rate: 1, kinds: ['500'], seed: 1 });
    const controlWhileFaulted = await call('GET', '/_sandbox/clock');

    // Act
    await call('DELETE', '/_sandbox/faults');
    const reply = await countryQuery(hostname);

    // Assess
    expect(controlWhileFaulted.status).toBe(200);
    expect(reply.status).toBe(200);
  });

  it('refuses an invalid fault plan', async () => {
    // Act
    const reply = await call('POST', '/_sandbox/faults', { rate: 2, kinds: ['503'] });

    // Assess
    expect(reply.status).toBe(400);
    expect((await call('GET', '/_sandbox/faults')).body).toBeNull();
  });
});

describe('rate limit', () => {
  it('answers 429 RATE_LIMITED with Retry-After beyond N requests per second, except on control paths', async () => {
    // Prepare
    const limited = await startSandbox({ port: 0, rateLimit: 3 });
    const api = client(limited);

    try {
      // Act
      const replies = await Promise.all(
        Array.from({ length: 6 }, () =>
          api.call('POST', '/connect/v1/partner/acme/subscription-status', { hostname: 'x' }),
        ),
      );
      const control = await Promise.all(Array.from({ length: 6 }, () => api.call('GET', '/_sandbox/clock')));

      // Assess
      const rejected = replies.filter((reply) => reply.status === 429);
      expect(rejected).toHaveLength(3);
      expect(rejected[0]?.headers.get('retry-after')).toBe('1');
      expect(rejected[0]?.body.error.code).toBe('RATE_LIMITED');
      expect(control.every((reply) => reply.status === 200)).toBe(true);
    } finally {
      await limited.close();
    }
  });
});

describe('request log and reset', () => {
  it('logs every non-control call with its status and leaves control calls out', async () => {
    // Prepare
    await call('POST', '/connect/v1/partner/acme/subscription-status', { hostname: 'x' });
    await call('GET', '/_sandbox/businesses');

    // Act
    const log = (await call('GET', '/_sandbox/requests')).body;

    // Assess
    expect(log).toEqual([
      {
        time: expect.any(String),
        wallMs: expect.any(Number),
        method: 'POST',
        path: '/connect/v1/partner/acme/subscription-status',
        status: 403,
      },
    ]);
  });

  it('resets businesses, installs, clock, faults and the request log', async () => {
    // Prepare
    const hostname = await signup();
    await call('POST', '/_sandbox/clock', { advanceDays: 100 });
    await call('POST', '/_sandbox/faults', { rate: 1, kinds: ['500'], seed: 1, pathPrefix: '/nowhere' });

    // Act
    await call('POST', '/_sandbox/reset');

    // Assess
    expect((await call('GET', '/_sandbox/businesses')).body).toEqual([]);
    expect((await call('GET', `/_sandbox/installs/${hostname}`)).status).toBe(404);
    expect((await call('GET', '/_sandbox/requests')).body).toEqual([]);
    expect((await call('GET', '/_sandbox/faults')).body).toBeNull();
    const drift = Math.abs(Date.parse((await call('GET', '/_sandbox/clock')).body.now) - Date.now());
    expect(drift).toBeLessThan(5000);
    expect(await signup()).toMatch(/-1\.us\.sandbox\.test$/);
  });
});

describe('robustness', () => {
  it('answers 400 VALIDATION_ERROR for a body that is not JSON', async () => {
    // Act
    const reply = await call('POST', '/connect/v1/partner/acme/signup', undefined, {
      rawBody: '{"userData": ',
    });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      success: false,
      data: null,
      error: { code: 'VALIDATION_ERROR', message: 'request body is not valid JSON' },
    });
  });

  it('answers 404 for unknown paths and 405 with Allow for wrong methods', async () => {
    // Prepare
    const hostname = await signup();

    // Act
    const unknown = await call('GET', '/nothing/here');
    const unknownInstallPath = await install(hostname).call('GET', '/api/v9/unknown');
    const wrongMethod = await call('GET', '/connect/v1/partner/acme/signup');
    const wrongInstallMethod = await install(hostname).call('DELETE', '/api/v2/metrics');

    // Assess
    expect(unknown.status).toBe(404);
    expect(unknownInstallPath.status).toBe(404);
    expect(unknownInstallPath.body).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: expect.any(String) },
    });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect(wrongInstallMethod.status).toBe(405);
  });

  it('survives garbage input and keeps serving', async () => {
    // Prepare
    const garbage = [
      call('POST', '/connect/v1/partner/acme/signup', [1, 2, 3]),
      call('POST', '/connect/v1/partner/acme/signup', null),
      call('POST', '/connect/v1/partner/acme/signup', { userData: 'x', businessData: 7 }),
      call('POST', '/connect/v1/partner/%E0%A4%A/signup', {}),
      call('POST', '/_sandbox/clock', undefined, { rawBody: 'nope' }),
    ];
    const rawGarbage = new Promise<void>((resolve) => {
      const request = httpRequest(
        `${sandbox.url}/installs/x/api/v2/metrics`,
        { method: 'POST' },
        (response) => {
          response.resume();
          response.on('end', resolve);
        },
      );
      request.on('error', () => resolve());
      request.end('\u0000\u0001binary');
    });

    // Act
    const replies = await Promise.all(garbage);
    await rawGarbage;
    const after = await call('GET', '/_sandbox/clock');

    // Assess
    expect(replies.map((reply) => reply.status)).toEqual([400, 400, 400, 400, 400]);
    expect(after.status).toBe(200);
  });
});
