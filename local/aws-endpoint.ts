import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One loopback HTTP server standing in for the AWS APIs the connector calls off-AWS, so the real
 * SDK clients work against it with only an endpoint override (AWS_ENDPOINT_URL_<SERVICE>):
 * EventBridge and Secrets Manager (AWS JSON 1.1) and SQS (AWS JSON 1.0, the protocol of the SDK's
 * SQS client since 3.447), told apart by X-Amz-Target; plus the `/_local/*` control endpoints.
 * The operations themselves are given by the runtime; this file only speaks the wire protocol
 * ("Amazon SQS JSON API responses": errors carry `__type` and an `x-amzn-query-error` header).
 */

/** An AWS API error as the service sends it: `__type`, message, HTTP status. */
export class AwsApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
    /** SQS's query-compatible code (`x-amzn-query-error`), e.g. `AWS.SimpleQueueService.NonExistentQueue;Sender`. */
    readonly queryError?: string,
  ) {
    super(message);
    this.name = 'AwsApiError';
  }
}

export type Operation = (body: Record<string, unknown>) => unknown | Promise<unknown>;

export interface ControlRoute {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly handle: (body: unknown) => unknown | Promise<unknown>;
}

export interface AwsEndpointOptions {
  readonly port: number;
  readonly host?: string;
  /** Operation by X-Amz-Target, e.g. `AWSEvents.PutEvents`, `AmazonSQS.SendMessage`. */
  readonly operations: () => Readonly<Record<string, Operation>>;
  readonly control: () => readonly ControlRoute[];
  /**
   * Authorizes a request before its operation runs (local/iam/): throws the AwsApiError AWS would
   * answer a denied call with. @default every request is served
   */
  readonly authorize?: () => RequestGuard | undefined;
}

/** What a request's authorization is decided on: the operation, its input and who signed it. */
export type RequestGuard = (request: {
  readonly target: string;
  readonly body: Record<string, unknown>;
  readonly authorization: string | undefined;
}) => Promise<void>;

export interface AwsEndpoint {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

// Requests larger than this are refused before parsing; well above any valid API body.
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

export async function startAwsEndpoint(options: AwsEndpointOptions): Promise<AwsEndpoint> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((request, response) => {
    handle(options, request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { message: errorMessage(error) });
      else response.destroy();
    });
  });
  await listen(server, options.port, host);
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host}:${port}`, port, close: () => closeServer(server) };
}

async function handle(options: AwsEndpointOptions, request: IncomingMessage, response: ServerResponse) {
  const url = new URL(request.url ?? '/', 'http://local');
  const method = request.method ?? 'GET';
  if (url.pathname.startsWith('/_local/')) {
    const route = options
      .control()
      .find((candidate) => candidate.method === method && candidate.path === url.pathname);
    if (!route)
      return sendJson(response, 404, { message: `no local control endpoint ${method} ${url.pathname}` });
    const text = method === 'POST' ? await readBody(request) : '';
    try {
      return sendJson(
        response,
        200,
        (await route.handle(text.trim() === '' ? undefined : JSON.parse(text))) ?? null,
      );
    } catch (error) {
      return sendJson(response, error instanceof AwsApiError ? error.status : 500, {
        status: 'failed',
        message: errorMessage(error),
      });
    }
  }

  const requestId = randomUUID();
  const target = headerValue(request, 'x-amz-target');
  const json10 = target?.startsWith('AmazonSQS.') === true;
  try {
    if (method !== 'POST') {
      throw new AwsApiError(
        'UnknownOperationException',
        `${method} ${url.pathname} is not an AWS JSON call`,
        404,
      );
    }
    const body = parseJsonBody(await readBody(request));
    const operation = target === undefined ? undefined : options.operations()[target];
    if (!operation) {
      throw new AwsApiError(
        'UnknownOperationException',
        `Operation ${target ?? '(no X-Amz-Target)'} is not supported`,
      );
    }
    await options.authorize?.()?.({
      target: target as string,
      body,
      authorization: headerValue(request, 'authorization'),
    });
    sendAwsJson(response, 200, (await operation(body)) ?? {}, requestId, json10);
  } catch (error) {
    if (!(error instanceof AwsApiError)) throw error;
    response.setHeader('x-amzn-ErrorType', error.type);
    if (error.queryError) response.setHeader('x-amzn-query-error', error.queryError);
    sendAwsJson(
      response,
      error.status,
      { __type: json10 ? `com.amazonaws.sqs#${error.type}` : error.type, message: error.message },
      requestId,
      json10,
    );
  }
}

function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseJsonBody(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // reported below, like AWS does for a body it cannot read
  }
  throw new AwsApiError('SerializationException', 'Request body is not a JSON object');
}

export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        reject(new AwsApiError('ValidationException', 'Request is too large', 413));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function sendAwsJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  requestId: string,
  json10: boolean,
) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': json10 ? 'application/x-amz-json-1.0' : 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(text),
    'x-amzn-RequestId': requestId,
  });
  response.end(text);
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}
