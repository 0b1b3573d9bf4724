import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorError } from '#functions/domain/errors.ts';
import { createServiceClient, type ServiceClient } from '#functions/service/client.ts';
import {
  type FakeService,
  type RecordedRequest,
  refusedUrl,
  replyJson,
  startFakeService,
} from './fake-service.ts';

const TOKEN = 'tok_9f8e7d6c5b4a-SECRET';

type Behaviour = (request: RecordedRequest, response: ServerResponse, index: number) => void;

/** A hostile service: its error messages echo the Authorization header back. */
const echo = (request: RecordedRequest) => `denied for ${request.authorization}`;
const behaviours: Record<string, Behaviour> = {
  'rejected-401': (request, response) =>
    replyJson(response, 401, {
      success: false,
      data: null,
      error: { code: 'UNAUTHORIZED', message: echo(request) },
    }),
  'rejected-in-200': (request, response) =>
    replyJson(response, 200, { success: false, data: null, error: { code: 'X', message: echo(request) } }),
  'unavailable-500': (request, response) =>
    replyJson(response, 500, { success: false, error: { code: 'INTERNAL_ERROR', message: echo(request) } }),
  'rate-limited-long': (request, response) =>
    replyJson(response, 429, { error: { message: echo(request) } }, { 'retry-after': '600' }),
  timeout: () => undefined,
  dropped: (_request, response) => response.socket?.destroy(),
  'not-json': (request, response) => {
    response.writeHead(200);
    response.end(`<html>${request.authorization}</html>`);
  },
  'bad-envelope': (_request, response) => replyJson(response, 200, ['not', 'an', 'envelope']),
  'bad-record': (_request, response) => replyJson(response, 200, { success: true, data: { hostname: 7 } }),
  'signup-lost': (request, response, index) =>
    index === 0
      ? response.socket?.destroy()
      : replyJson(response, 409, {
          success: false,
          data: null,
          error: { code: 'EXTERNAL_ID_NOT_UNIQUE', message: echo(request) },
        }),
};

let service: FakeService;
let current: Behaviour = behaviours.timeout as Behaviour;
let indexBase = 0;
const logLines: string[] = [];
const errors: Array<{ path: string; error: unknown }> = [];

function clientFor(url: string): ServiceClient {
  return createServiceClient({
    partnerName: 'acme',
    provisioningUrls: { US: url },
    installUrlTemplate: `${url}/installs/{hostname}`,
    token: async () => TOKEN,
    timeoutMs: 100,
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 10 },
    sleep: async () => undefined,
    logger: {
      debug: (message, attributes) => logLines.push(JSON.stringify({ message, attributes })),
      warn: (message, attributes) => logLines.push(JSON.stringify({ message, attributes })),
    },
    onRequest: (info) => logLines.push(JSON.stringify(info)),
  });
}

const signupInput = {
  userData: { firstName: 'Ana', lastName: 'Ng', email: 'ana@example.test' },
  businessData: { externalId: 'acct-1', portfolioName: 'Ana Shop' },
};

async function capture(path: string, behaviour: string, call: (client: ServiceClient) => Promise<unknown>) {
  current = behaviours[behaviour] as Behaviour;
  indexBase = service.requests.length;
  try {
    await call(clientFor(service.url));
    errors.push({ path, error: new Error(`${path} did not fail`) });
  } catch (error) {
    errors.push({ path, error });
  }
}

/** Everything a log pipeline or an event could end up holding about an error. */
function renderings(error: unknown): string[] {
  const out: string[] = [];
  let cursor: unknown = error;
  while (cursor instanceof Error) {
    out.push(cursor.message, cursor.stack ?? '', String(cursor), JSON.stringify(cursor));
    if (cursor instanceof ConnectorError) out.push(JSON.stringify(cursor.toJSON()));
    cursor = cursor.cause;
  }
  return out;
}

beforeAll(async () => {
  service = await startFakeService((request, response, index) =>
    current(request, response, index - indexBase),
  );

  await capture('provisioning 401', 'rejected-401', (client) =>
    client.provisioning.subscriptionStatus('a.b.test'),
  );
  await capture('refusal inside 200', 'rejected-in-200', (client) => client.provisioning.cancel('a.b.test'));
  await capture('idempotent 500', 'unavailable-500', (client) => client.install('a.b.test').listAwards());
  await capture('create 500', 'unavailable-500', (client) =>
    client.install('a.b.test').createArea({ intCompanyId: 1, strOpunitName: 'Floor' }),
  );
  await capture('long Retry-After', 'rate-limited-long', (client) =>
    client.install('a.b.test').listCustomFieldData(),
  );
  await capture('timeout', 'timeout', (client) => client.install('a.b.test').getAward('MA1'));
  await capture('create timeout', 'timeout', (client) => client.provisioning.upgrade('a.b.test', {}));
  await capture('dropped', 'dropped', (client) => client.install('a.b.test').findCountries({ name: 'x' }));
  await capture('not JSON', 'not-json', (client) => client.install('a.b.test').listAwards());
  await capture('bad envelope', 'bad-envelope', (client) =>
    client.provisioning.subscriptionStatus('a.b.test'),
  );
  await capture('bad record', 'bad-record', (client) => client.provisioning.subscriptionStatus('a.b.test'));
  await capture('signup outcome lost', 'signup-lost', (client) => client.provisioning.signup(signupInput));
  await capture('bad hostname', 'timeout', async (client) => client.install('a.b.test:1'));
  await capture('region', 'timeout', (client) =>
    client.provisioning.signup({ ...signupInput, region: 'AU' }),
  );
  await capture('bad slot', 'timeout', (client) =>
    client.install('a.b.test').writeEmployeeCustomField(1, 0, 'x'),
  );

  const refused = clientFor(await refusedUrl());
  try {
    await refused.install('a.b.test').listAwards();
  } catch (error) {
    errors.push({ path: 'refused', error });
  }
});

afterAll(async () => {
  await service.close();
});

describe('the bearer token never leaks', () => {
  it('was really sent to the service on every call that reached it', () => {
    expect(service.requests.length).toBeGreaterThan(10);
    expect(service.requests.every((request) => request.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('forced every error path, each ending in a ConnectorError', () => {
    const codes = errors.map(({ error }) => (error instanceof ConnectorError ? error.code : String(error)));
    expect(new Set(codes)).toEqual(
      new Set([
        'SERVICE_REJECTED',
        'TOKEN_REJECTED',
        'SERVICE_UNAVAILABLE',
        'OUTCOME_UNKNOWN',
        'TIMEOUT',
        'NETWORK_ERROR',
        'UNEXPECTED_RESPONSE',
        'SIGNUP_COMMITTED_UNCONFIRMED',
        'INVALID_HOSTNAME',
        'REGION_NOT_AVAILABLE',
        'INVALID_REQUEST',
      ]),
    );
  });

  it('appears in no error message, stack, cause or serialized form', () => {
    for (const { path, error } of errors) {
      for (const text of renderings(error)) {
        expect(text, path).not.toContain(TOKEN);
      }
    }
  });

  it('shows the hostile echo as redacted rather than dropping the message', () => {
    const rejected = errors.find(({ path }) => path === 'provisioning 401')?.error as Error;
    expect(rejected.message).toMatch(
      /answered 401: the service refused the bearer token \(denied for Bearer \[REDACTED\]\)$/,
    );
  });

  it('appears in no captured log line', () => {
    expect(logLines.length).toBeGreaterThan(10);
    for (const line of logLines) expect(line).not.toContain(TOKEN);
  });
});
