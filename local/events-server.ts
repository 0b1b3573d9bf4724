import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventBridgeEvent } from 'aws-lambda';
import { eventTime, LOCAL_ACCOUNT_ID } from './lambda.ts';

/**
 * One loopback HTTP server that stands in for the AWS APIs the connector calls off-AWS:
 * EventBridge PutEvents and Secrets Manager GetSecretValue (both AWS JSON 1.1, told apart by
 * X-Amz-Target, so the real SDK clients work against it with only an endpoint override), plus the
 * `/_local/*` control endpoints of the local runtime.
 */

export type BusEvent = EventBridgeEvent<string, Record<string, unknown>>;

/** EventBridge limits a PutEvents request to 256 KB of entries and 10 entries. */
export const PUT_EVENTS_MAX_BYTES = 256 * 1024;
export const PUT_EVENTS_MAX_ENTRIES = 10;
// Requests larger than this are refused before parsing; well above any valid PutEvents body.
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

export interface OutboundEvent {
  readonly id: string;
  readonly source: string;
  readonly 'detail-type': string;
  readonly time: string;
  readonly detail: Record<string, unknown>;
}

export interface DeadLetterView {
  readonly queue: string;
  readonly body: string;
  readonly attempts: number;
  readonly reason: string;
}

/** What the `/_local` endpoints read and run; the runtime owns the state behind them. */
export interface LocalControl {
  outbound(): readonly OutboundEvent[];
  dlq(): readonly DeadLetterView[];
  runTrialWatch(): Promise<unknown>;
  health(): Record<string, unknown>;
}

export interface EventsServerOptions {
  readonly port: number;
  readonly host?: string;
  readonly region: string;
  /** The connector's bus; entries naming it, `default` or no bus are accepted. */
  readonly busName: string;
  /** Secret name → SecretString (Secrets Manager GetSecretValue). */
  readonly secrets: Readonly<Record<string, string>>;
  /** Called once per accepted entry, after the answer's event id is chosen. */
  readonly dispatch: (event: BusEvent) => void;
  readonly control: LocalControl;
  readonly now?: () => Date;
}

export interface EventsServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface PutEventsRequestEntry {
  Source?: unknown;
  DetailType?: unknown;
  Detail?: unknown;
  EventBusName?: unknown;
  Resources?: unknown;
  Time?: unknown;
  TraceHeader?: unknown;
}

export type PutEventsEntryError = { ErrorCode: string; ErrorMessage: string };
export type PutEventsResultEntry = { EventId: string } | PutEventsEntryError;

class AwsJsonError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export async function startEventsServer(options: EventsServerOptions): Promise<EventsServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((request, response) => {
    handleRequest(options, request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { message: errorMessage(error) });
      else response.destroy();
    });
  });
  await listen(server, options.port, host);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () => closeServer(server),
  };
}

async function handleRequest(
  options: EventsServerOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://local').pathname;
  if (path.startsWith('/_local/'))
    return handleControl(options.control, request.method ?? 'GET', path, response);

  const requestId = randomUUID();
  try {
    if (request.method !== 'POST' || path !== '/') {
      throw new AwsJsonError(
        'UnknownOperationException',
        `${request.method} ${path} is not an AWS JSON 1.1 call`,
        404,
      );
    }
    const target = headerValue(request, 'x-amz-target');
    const body = parseJsonBody(await readBody(request));
    const now = options.now?.() ?? new Date();
    let answer: unknown;
    if (target === 'AWSEvents.PutEvents') answer = putEvents(options, body, now);
    else if (target === 'secretsmanager.GetSecretValue') answer = getSecretValue(options, body, now);
    else
      throw new AwsJsonError(
        'UnknownOperationException',
        `Operation ${target ?? '(no X-Amz-Target)'} is not supported`,
      );
    sendAwsJson(response, 200, answer, requestId);
  } catch (error) {
    if (error instanceof AwsJsonError) {
      response.setHeader('x-amzn-ErrorType', error.type);
      sendAwsJson(response, error.status, { __type: error.type, message: error.message }, requestId);
      return;
    }
    throw error;
  }
}

function putEvents(options: EventsServerOptions, body: Record<string, unknown>, now: Date) {
  const entries = body['Entries'];
  if (!Array.isArray(entries)) {
    throw new AwsJsonError(
      'ValidationException',
      "1 validation error detected: Value null at 'entries' failed to satisfy constraint: Member must not be null",
    );
  }
  if (entries.length < 1 || entries.length > PUT_EVENTS_MAX_ENTRIES) {
    const bound =
      entries.length < 1 ? 'greater than or equal to 1' : `less than or equal to ${PUT_EVENTS_MAX_ENTRIES}`;
    throw new AwsJsonError(
      'ValidationException',
      `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length ${bound}`,
    );
  }
  const total = entries.reduce<number>((sum, entry) => sum + putEventsEntrySize(asEntry(entry)), 0);
  if (total > PUT_EVENTS_MAX_BYTES) {
    throw new AwsJsonError(
      'ValidationException',
      'Total size of the entries in the request is over the limit.',
    );
  }

  const results: PutEventsResultEntry[] = [];
  const accepted: BusEvent[] = [];
  for (const raw of entries) {
    const verdict = readEntry(asEntry(raw), options, now);
    if ('ErrorCode' in verdict) results.push(verdict);
    else {
      results.push({ EventId: verdict.id });
      accepted.push(verdict);
    }
  }
  // Dispatch only after the whole request is read, so a failing entry never leaves half a request delivered.
  for (const event of accepted) options.dispatch(event);
  return { FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length, Entries: results };
}

/** The size EventBridge charges an entry: Time 14 bytes, UTF-8 bytes of Source, DetailType, Detail, Resources. */
export function putEventsEntrySize(entry: PutEventsRequestEntry): number {
  let size = entry.Time === undefined || entry.Time === null ? 0 : 14;
  for (const value of [entry.Source, entry.DetailType, entry.Detail]) {
    if (typeof value === 'string') size += Buffer.byteLength(value, 'utf8');
  }
  if (Array.isArray(entry.Resources)) {
    for (const resource of entry.Resources) {
      if (typeof resource === 'string') size += Buffer.byteLength(resource, 'utf8');
    }
  }
  return size;
}

function readEntry(
  entry: PutEventsRequestEntry,
  options: EventsServerOptions,
  now: Date,
): PutEventsEntryError | BusEvent {
  const bus = entry.EventBusName;
  if (bus !== undefined && bus !== null && bus !== '' && !isAcceptedBus(String(bus), options.busName)) {
    return {
      ErrorCode: 'ResourceNotFoundException',
      ErrorMessage: `Event bus ${String(bus)} does not exist.`,
    };
  }
  for (const field of ['Source', 'DetailType', 'Detail'] as const) {
    const value = entry[field];
    if (typeof value !== 'string' || value.length === 0) {
      return {
        ErrorCode: 'InvalidArgument',
        ErrorMessage: `Parameter ${field} is not valid. Reason: ${field} is a required argument.`,
      };
    }
  }
  const detail = parseDetail(entry.Detail as string);
  if (!detail) return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  const time = entryTime(entry.Time, now);
  if (!time) return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Parameter Time is not valid.' };
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': entry.DetailType as string,
    source: entry.Source as string,
    account: LOCAL_ACCOUNT_ID,
    time: eventTime(time),
    region: options.region,
    resources: Array.isArray(entry.Resources)
      ? entry.Resources.filter((r): r is string => typeof r === 'string')
      : [],
    detail,
  };
}

function isAcceptedBus(bus: string, busName: string): boolean {
  const name = bus.startsWith('arn:') ? bus.slice(bus.lastIndexOf('/') + 1) : bus;
  return name === busName || name === 'default';
}

/** EventBridge only accepts a JSON object as Detail. */
function parseDetail(detail: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(detail);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The SDK sends Time as epoch seconds (AWS JSON timestamps); an ISO string is accepted too. */
function entryTime(time: unknown, now: Date): Date | undefined {
  if (time === undefined || time === null) return now;
  const parsed =
    typeof time === 'number' ? new Date(time * 1000) : typeof time === 'string' ? new Date(time) : undefined;
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed : undefined;
}

function getSecretValue(options: EventsServerOptions, body: Record<string, unknown>, now: Date) {
  const secretId = body['SecretId'];
  if (typeof secretId !== 'string' || secretId.length === 0) {
    throw new AwsJsonError('InvalidParameterException', 'SecretId is required.');
  }
  // Callers may name the secret by its name or by an ARN whose last segment is name-suffix.
  const name = Object.keys(options.secrets).find(
    (candidate) =>
      candidate === secretId ||
      secretId.endsWith(`:secret:${candidate}`) ||
      secretId.includes(`:secret:${candidate}-`),
  );
  if (name === undefined) {
    throw new AwsJsonError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
  }
  return {
    ARN: `arn:aws:secretsmanager:${options.region}:${LOCAL_ACCOUNT_ID}:secret:${name}-LOCAL1`,
    Name: name,
    VersionId: '00000000-0000-4000-8000-000000000001',
    SecretString: options.secrets[name],
    VersionStages: ['AWSCURRENT'],
    CreatedDate: Math.floor(now.getTime() / 1000),
  };
}

async function handleControl(control: LocalControl, method: string, path: string, response: ServerResponse) {
  const route = `${method} ${path}`;
  switch (route) {
    case 'GET /_local/health':
      return sendJson(response, 200, { status: 'ok', ...control.health() });
    case 'GET /_local/outbound':
      return sendJson(response, 200, control.outbound());
    case 'GET /_local/dlq':
      return sendJson(response, 200, control.dlq());
    case 'POST /_local/trial-watch':
      try {
        return sendJson(response, 200, { status: 'done', result: (await control.runTrialWatch()) ?? null });
      } catch (error) {
        return sendJson(response, 500, { status: 'failed', message: errorMessage(error) });
      }
    default:
      return sendJson(response, 404, { message: `no local control endpoint ${route}` });
  }
}

function asEntry(raw: unknown): PutEventsRequestEntry {
  return typeof raw === 'object' && raw !== null ? (raw as PutEventsRequestEntry) : {};
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
  throw new AwsJsonError('SerializationException', 'Request body is not a JSON object');
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        reject(new AwsJsonError('ValidationException', 'Request is too large', 413));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function sendAwsJson(response: ServerResponse, status: number, body: unknown, requestId: string): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(text),
    'x-amzn-RequestId': requestId,
  });
  response.end(text);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
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
