import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '#functions/service/http.ts';

/**
 * A Lambda reuses its process across invocations; the client must reuse its sockets too, so a
 * warm function does not pay a TCP (and in production TLS) handshake per service call.
 */

let url = '';
/** Every call names the budget it takes from; these clients have no budget, so any scope does. */
const ANY_SCOPE = { kind: 'install', hostname: 'fake.service.test' } as const;
let connections = 0;
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end('{"ok":true}');
});
server.on('connection', () => {
  connections += 1;
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('connection pool', () => {
  it('reuses one keep-alive connection for sequential calls, across clients of the same process', async () => {
    // Prepare
    const first = createHttpClient({ token: async () => 'pool-token' });
    const second = createHttpClient({ token: async () => 'pool-token' });
    connections = 0;

    // Act
    for (const client of [first, second, first, second]) {
      await client.send({
        method: 'POST',
        url: `${url}/ping`,
        body: {},
        safety: 'idempotent',
        scope: ANY_SCOPE,
      });
    }

    // Assess
    expect(connections).toBe(1);
  });

  it('opens more connections for concurrent calls and keeps them for later ones', async () => {
    // Prepare
    const client = createHttpClient({ token: async () => 'pool-token' });
    const burst = () =>
      Promise.all(
        Array.from({ length: 3 }, () =>
          client.send({ method: 'GET', url: `${url}/ping`, safety: 'idempotent', scope: ANY_SCOPE }),
        ),
      );
    await burst();
    const afterFirstBurst = connections;

    // Act
    await burst();

    // Assess
    expect(afterFirstBurst).toBeGreaterThan(0);
    expect(connections).toBe(afterFirstBurst);
  });
});
