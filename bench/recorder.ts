import {
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import * as dynamodb from '@aws-sdk/client-dynamodb';
import { PutEventsCommand, type PutEventsCommandInput } from '@aws-sdk/client-eventbridge';
import { dynamoDbClient } from '#functions/runtime/clients/dynamodb.ts';
import { eventBridgeClient } from '#functions/runtime/clients/eventbridge.ts';
import type { StateMet } from './environment.ts';
import { ended, replaySchedule, runSchedule } from './schedule.ts';
import { median } from './stats.ts';

/**
 * What a handler asked of the outside world while the recorder listened: DynamoDB and EventBridge
 * commands (a middleware on the process-wide SDK clients the handlers share) and service calls (a
 * pass-through proxy in front of the sandbox, which records bodies the sandbox's own log leaves
 * out). The raw baseline replays exactly these requests, without the connector around them.
 */

export type RecordedSystem = 'dynamodb' | 'eventbridge' | 'service';

export interface RecordedRequest {
  readonly system: RecordedSystem;
  /** SDK command name (`PutItemCommand`) or `METHOD /path` for the service. */
  readonly operation: string;
  readonly startedAt: number;
  endedAt: number;
  /** SDK: the low-level (marshalled) command input. */
  readonly input?: unknown;
  /** Service: what is needed to send the same request again. */
  readonly http?: { method: string; path: string; headers: Record<string, string>; body: Buffer };
  status?: number;
  /** DynamoDB items read (Item, Items/ScannedCount, Responses) and written. */
  itemsRead: number;
  itemsWritten: number;
  /** On-demand request units, assuming items of at most 1 KB (reads: 4 KB units, writes: 1 KB). */
  readUnits: number;
  writeUnits: number;
}

export class RequestRecorder {
  private recording = false;
  private entries: RecordedRequest[] = [];

  start(): void {
    this.entries = [];
    this.recording = true;
  }

  stop(): RecordedRequest[] {
    this.recording = false;
    const taken = this.entries;
    this.entries = [];
    return taken;
  }

  push(entry: RecordedRequest): void {
    if (this.recording) this.entries.push(entry);
  }

  get active(): boolean {
    return this.recording;
  }
}

type Output = Record<string, unknown>;

function dynamoAccounting(operation: string, input: Record<string, unknown>, output: Output | undefined) {
  const consistent = input['ConsistentRead'] === true;
  const readUnit = consistent ? 1 : 0.5;
  const count = (value: unknown) => (Array.isArray(value) ? value.length : 0);
  switch (operation) {
    case 'GetItemCommand':
      return { itemsRead: output?.['Item'] ? 1 : 0, itemsWritten: 0, readUnits: readUnit, writeUnits: 0 };
    case 'QueryCommand':
    case 'ScanCommand': {
      const scanned = Number(output?.['ScannedCount'] ?? output?.['Count'] ?? 0);
      // Query bills the summed size of the items read, in 4 KB units, at least one unit.
      return {
        itemsRead: scanned,
        itemsWritten: 0,
        readUnits: Math.max(1, Math.ceil(scanned / 4)) * readUnit,
        writeUnits: 0,
      };
    }
    case 'PutItemCommand':
    case 'UpdateItemCommand':
    case 'DeleteItemCommand':
      return { itemsRead: 0, itemsWritten: 1, readUnits: 0, writeUnits: 1 };
    case 'TransactWriteItemsCommand': {
      const items = count(input['TransactItems']);
      return { itemsRead: 0, itemsWritten: items, readUnits: 0, writeUnits: 2 * items };
    }
    case 'TransactGetItemsCommand': {
      const items = count(input['TransactItems']);
      return { itemsRead: items, itemsWritten: 0, readUnits: 2 * items, writeUnits: 0 };
    }
    case 'BatchWriteItemCommand': {
      const requests = Object.values((input['RequestItems'] ?? {}) as Record<string, unknown[]>);
      const items = requests.reduce((sum, list) => sum + list.length, 0);
      return { itemsRead: 0, itemsWritten: items, readUnits: 0, writeUnits: items };
    }
    case 'BatchGetItemCommand': {
      const responses = Object.values((output?.['Responses'] ?? {}) as Record<string, unknown[]>);
      const items = responses.reduce((sum, list) => sum + list.length, 0);
      return { itemsRead: items, itemsWritten: 0, readUnits: items * 0.5, writeUnits: 0 };
    }
    default:
      return { itemsRead: 0, itemsWritten: 0, readUnits: 0, writeUnits: 0 };
  }
}

/** A request as it goes out: its end, status and accounting are filled in when it completes. */
function startedRequest(
  request: Pick<RecordedRequest, 'system' | 'operation' | 'input' | 'http'>,
  startedAt = performance.now(),
): RecordedRequest {
  return {
    ...request,
    startedAt,
    endedAt: 0,
    itemsRead: 0,
    itemsWritten: 0,
    readUnits: 0,
    writeUnits: 0,
  };
}

/**
 * Adds the recording middleware to the clients every handler of this process shares. The `build`
 * step sees the command input after the document client has marshalled it, so the baseline can
 * send it with the low-level client.
 */
export function instrumentSdkClients(recorder: RequestRecorder): void {
  dynamoDbClient().middlewareStack.add(
    (next, context) => async (args) => {
      if (!recorder.active) return next(args);
      const operation = String(context.commandName ?? 'unknown');
      const input = structuredClone(args.input) as Record<string, unknown>;
      const entry = startedRequest({ system: 'dynamodb', operation, input });
      recorder.push(entry);
      try {
        const result = await next(args);
        Object.assign(entry, dynamoAccounting(operation, input, result.output as unknown as Output), {
          status: 200,
        });
        return result;
      } catch (error) {
        // A failed condition still consumed its write (and DynamoDB bills it).
        Object.assign(entry, dynamoAccounting(operation, input, undefined), { status: 400 });
        throw error;
      } finally {
        entry.endedAt = performance.now();
      }
    },
    { step: 'build', name: 'benchRecorder', override: true },
  );
  eventBridgeClient().middlewareStack.add(
    (next, context) => async (args) => {
      if (!recorder.active) return next(args);
      const entry = startedRequest({
        system: 'eventbridge',
        operation: String(context.commandName ?? 'unknown'),
        input: structuredClone(args.input),
      });
      recorder.push(entry);
      try {
        return await next(args);
      } finally {
        entry.endedAt = performance.now();
      }
    },
    { step: 'build', name: 'benchRecorder', override: true },
  );
}

export interface ServiceProxy {
  readonly url: string;
  close(): Promise<void>;
}

export function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** Keep-alive both ways, like the service client's own agent (16 sockets). */
const proxyAgent = new HttpAgent({ keepAlive: true, maxSockets: 64 });

/** A request as a recording proxy received it, body read. */
export interface ProxiedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** performance.now() once the body was read, as the request leaves for the upstream. */
  readonly startedAt: number;
}

/** Which headers a proxy passes on: all (hop-by-hop ones aside) or only these. */
type HeaderSelection = 'all' | readonly string[];

function pickHeaders(headers: IncomingHttpHeaders, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = headers[name];
    if (typeof value === 'string') picked[name] = value;
  }
  return picked;
}

function passedHeaders(
  headers: IncomingHttpHeaders,
  selection: HeaderSelection,
  dropped: readonly string[],
): OutgoingHttpHeaders {
  if (selection !== 'all') return pickHeaders(headers, selection);
  const passed: OutgoingHttpHeaders = { ...headers };
  for (const name of dropped) delete passed[name];
  return passed;
}

/**
 * A loopback pass-through proxy in front of `upstream`: the bench's service proxy and the
 * first-invocation bench's AWS wire recorder. `record` is told of each request once its body is in
 * and returns what to call once its answer has gone back. The times given are as near as the proxy
 * sees to what the caller sees: `startedAt` when the request arrived (before its body was read),
 * `endedAt` when the answer was handed to the caller's connection, so that a request the caller
 * sent while this one was still in flight is not taken to have waited for it (replaySchedule).
 */
export async function startRecordingProxy(
  upstream: string,
  {
    requestHeaders,
    answerHeaders,
    record,
  }: {
    requestHeaders: HeaderSelection;
    answerHeaders: HeaderSelection;
    record: (request: ProxiedRequest) => (answer: { status: number; endedAt: number }) => void;
  },
): Promise<ServiceProxy> {
  const target = new URL(upstream);
  const server = createServer((incoming, outgoing) => {
    const arrivedAt = performance.now();
    readBody(incoming)
      .then((body) => {
        const method = incoming.method ?? 'GET';
        const path = incoming.url ?? '/';
        const answered = record({
          method,
          path,
          headers: incoming.headers,
          body,
          startedAt: arrivedAt,
        });
        const headers =
          requestHeaders === 'all'
            ? { ...passedHeaders(incoming.headers, 'all', ['connection']), host: target.host }
            : {
                ...passedHeaders(incoming.headers, requestHeaders, []),
                'content-length': String(body.length),
              };
        const forward = httpRequest(
          { host: target.hostname, port: target.port, method, path, agent: proxyAgent, headers },
          (answer) => {
            readBody(answer).then((payload) => {
              outgoing.on('finish', () =>
                answered({ status: answer.statusCode ?? 0, endedAt: performance.now() }),
              );
              outgoing.writeHead(answer.statusCode ?? 502, {
                ...passedHeaders(answer.headers, answerHeaders, ['connection', 'transfer-encoding']),
                'content-length': String(payload.length),
              });
              outgoing.end(payload);
            }, outgoing.destroy.bind(outgoing));
          },
        );
        forward.on('error', () => outgoing.destroy());
        forward.end(body);
      })
      .catch(() => outgoing.destroy());
  });
  return listenOnLoopback(server);
}

/** The headers of a service call the proxy passes on and records (what sends it again). */
const SERVICE_REQUEST_HEADERS = ['authorization', 'content-type', 'accept'];

/** A loopback pass-through proxy to the sandbox that records every request while recording. */
export function startServiceProxy(sandboxUrl: string, recorder: RequestRecorder): Promise<ServiceProxy> {
  return startRecordingProxy(sandboxUrl, {
    requestHeaders: SERVICE_REQUEST_HEADERS,
    answerHeaders: ['content-type', 'retry-after'],
    record: ({ method, path, headers, body, startedAt }) => {
      const entry = startedRequest(
        {
          system: 'service',
          operation: `${method} ${path.replace(/^\/installs\/[^/]+/, '/installs/{hostname}')}`,
          http: { method, path, headers: pickHeaders(headers, SERVICE_REQUEST_HEADERS), body },
        },
        startedAt,
      );
      recorder.push(entry);
      return ({ status, endedAt }) => {
        entry.endedAt = endedAt;
        entry.status = status;
      };
    },
  });
}

/** Starts `server` on a free loopback port; `close` also ends its kept-alive connections. */
export async function listenOnLoopback(server: Server): Promise<ServiceProxy> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What a raw client does with a service answer: parse it (a blank or non-JSON body is left as text). */
function readJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The baseline's own keep-alive pool for service calls, sized like the service client's. */
const baselineAgent = new HttpAgent({ keepAlive: true, maxSockets: 16 });

function sendService(baseUrl: URL, http: NonNullable<RecordedRequest['http']>): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      {
        host: baseUrl.hostname,
        port: baseUrl.port,
        method: http.method,
        path: http.path,
        agent: baselineAgent,
        headers: { ...http.headers, 'content-length': String(http.body.length) },
      },
      (answer) => {
        // Read as any client of a JSON API must: the bytes, then JSON (the SDK clients parse
        // their AWS answers on both sides; this is the same for the service's).
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          readJson(Buffer.concat(chunks).toString('utf8'));
          resolve(answer.statusCode ?? 0);
        });
        answer.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(http.body);
  });
}

type DynamoCommandClass = new (input: unknown) => Parameters<dynamodb.DynamoDBClient['send']>[0];

/** Sends one recorded request again; true when it was answered as it was the first time. */
async function replayOne(request: RecordedRequest, serviceUrl: URL): Promise<boolean> {
  if (request.system === 'service' && request.http) {
    return (await sendService(serviceUrl, request.http).catch(() => 0)) === request.status;
  }
  if (request.system === 'eventbridge') {
    return eventBridgeClient()
      .send(new PutEventsCommand(request.input as PutEventsCommandInput))
      .then(
        () => true,
        () => false,
      );
  }
  const command = (dynamodb as unknown as Record<string, DynamoCommandClass | undefined>)[request.operation];
  if (!command) throw new Error(`no DynamoDB command ${request.operation}`);
  // Sent as recorded: the bench puts the table back as the handler found it first (bench/table-state.ts).
  const succeeded = await dynamoDbClient()
    .send(new command(request.input))
    .then(
      () => true,
      () => false,
    );
  return succeeded === (request.status === 200);
}

/** Sends the recorded requests again, directly: no middy, Powertools, zod or connector code. */
export async function replay(
  requests: readonly RecordedRequest[],
  serviceUrl: string,
): Promise<ReplayOutcome> {
  const base = new URL(serviceUrl);
  const same = await runSchedule(replaySchedule(requests), (request) => replayOne(request, base));
  return { sent: requests.length, different: same.filter((answeredAlike) => !answeredAlike).length };
}

/**
 * The raw side of a measurement: `requests` replayed from the state the handler met (`met`: the
 * table and the service, bench/environment.ts) and timed while the recorder records (the recording is thrown
 * away), so the recorder's own cost (cloning each command input, the proxy's bookkeeping) weighs on
 * both sides alike. Putting the state back happens outside the timing and the recording.
 */
export function timedReplay(
  recorder: RequestRecorder,
  requests: readonly RecordedRequest[],
  serviceUrl: string,
  met: StateMet,
): Promise<ReplayOutcome & { startedAt: number; ms: number; requests: RecordedRequest[] }> {
  return met.replay(requests, async () => {
    recorder.start();
    try {
      const startedAt = performance.now();
      const outcome = await replay(requests, serviceUrl);
      const ms = performance.now() - startedAt;
      return { ...outcome, startedAt, ms, requests: recorder.stop() };
    } catch (error) {
      recorder.stop();
      throw error;
    }
  });
}

/**
 * Time spent inside requests, summed per system, in ms (requests in flight together each count).
 * Beside a handler-vs-raw ratio it shows where the two differ. The handler's requests share the
 * one thread with its own work (and, here, with dynalite and the sandbox), so they can take longer
 * inside than the same requests sent raw.
 */
export function requestTimeBySystem(requests: readonly RecordedRequest[]): RequestTime {
  const time: RequestTime = { dynamodb: 0, eventbridge: 0, service: 0 };
  for (const request of requests.filter(ended)) time[request.system] += request.endedAt - request.startedAt;
  return time;
}

/** The systems a request goes to, in the order rows name them. */
export const RECORDED_SYSTEMS: readonly RecordedSystem[] = ['dynamodb', 'service', 'eventbridge'];

/** An event with no time in requests (it failed): NaN for every system, left out of medians. */
export const UNMEASURED: RequestTime = { dynamodb: Number.NaN, eventbridge: Number.NaN, service: Number.NaN };

/** Time inside requests per system, ms (requestTimeBySystem). */
export type RequestTime = Record<RecordedSystem, number>;

/** Per system, the median over events. */
export function medianBySystem(perEvent: readonly RequestTime[]): RequestTime {
  return Object.fromEntries(
    RECORDED_SYSTEMS.map((system) => [system, median(perEvent.map((time) => time[system]))]),
  ) as RequestTime;
}

/** A measurement's time in requests per event, the handler's and its raw replay's (medians). */
export interface RequestTimes {
  readonly handler: RequestTime;
  readonly raw: RequestTime;
}

/**
 * How a replay went: a request answered otherwise than the first time (a create the service now
 * refuses as a duplicate, say) did other work than the handler's, and the figure says how many.
 */
export interface ReplayOutcome {
  readonly sent: number;
  readonly different: number;
}
