import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny server speaking the AWS JSON 1.1 protocol (POST /, `X-Amz-Target: Service.Operation`),
 * enough for the real SDK clients to talk to it through AWS_ENDPOINT_URL_* or `endpoint`.
 */

export interface FakeAwsCall {
  target: string;
  body: Record<string, unknown>;
}

export type FakeAwsReply = { status?: number; body: unknown };
export type FakeAwsOperation = (body: Record<string, unknown>, call: number) => FakeAwsReply;

export interface FakeAwsServer {
  endpoint: string;
  calls: FakeAwsCall[];
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export async function startFakeAws(operations: Record<string, FakeAwsOperation>): Promise<FakeAwsServer> {
  const calls: FakeAwsCall[] = [];
  const server = createServer(async (request, response) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const text = await readBody(request);
    const body = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
    calls.push({ target, body });
    const operation = operations[target];
    const reply: FakeAwsReply = operation
      ? operation(body, calls.filter((call) => call.target === target).length)
      : { status: 400, body: { __type: 'UnknownOperationException', message: `no fake for ${target}` } };
    response.writeHead(reply.status ?? 200, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Credentials and region the SDK needs before it signs anything; never real ones. */
export function useFakeAwsEnvironment(): void {
  process.env['AWS_REGION'] = 'us-east-1';
  process.env['AWS_ACCESS_KEY_ID'] = 'AKIDTESTONLY';
  process.env['AWS_SECRET_ACCESS_KEY'] = 'test-secret-key';
  delete process.env['AWS_PROFILE'];
}
