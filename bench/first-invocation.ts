import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BuiltBundle, buildBundle, REPO_ROOT } from './bundle.ts';
import {
  type RecordedRequest,
  type RequestRecorder,
  type ServiceProxy,
  startRecordingProxy,
} from './recorder.ts';
import { replaySchedule } from './schedule.ts';

/**
 * Issue #17 §1: what a function's first invocation costs beyond the requests it must make. The
 * reference for each function is a raw handler that makes the same requests with the same
 * clients: the function's own first invocation is recorded on the wire (every AWS request through
 * a recording proxy, every service call through the service proxy), and a module is generated that
 * constructs the same SDK clients at module scope and replays those requests, each once the
 * requests that had ended before it started are answered (bench/schedule.ts), with
 * nothing else: no middy, Powertools, zod or connector code. Both are then loaded
 * and invoked once by fresh `node` processes, round after round (bench/cold-start.ts).
 */

/** A request a first invocation made, as the wire saw it. */
export interface WireRequest {
  /** The AWS service by its JSON protocol target prefix, or the partner's service. */
  readonly system: 'dynamodb' | 'eventbridge' | 'secretsmanager' | 'sqs' | 'service';
  /** `GetItem`, `PutEvents`, …; `METHOD /path` for the service. */
  readonly operation: string;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly status: number;
  /** AWS: the JSON request body (the command input on the wire). */
  readonly input?: unknown;
  /** Service: what sends it again. */
  readonly http?: { method: string; path: string; headers: Record<string, string>; body: string };
}

/** X-Amz-Target prefixes of the AWS JSON protocols the connector's clients speak. */
const TARGETS: Record<string, WireRequest['system']> = {
  DynamoDB_20120810: 'dynamodb',
  AWSEvents: 'eventbridge',
  secretsmanager: 'secretsmanager',
  AmazonSQS: 'sqs',
};

export interface AwsWireRecorder {
  /** The proxy's address, by the upstream it stands in front of. */
  endpointFor(upstream: string): string;
  start(): void;
  stop(): WireRequest[];
  close(): Promise<void>;
}

/**
 * Loopback pass-through proxies in front of the local AWS endpoints (dynalite, the events/SQS/
 * Secrets Manager endpoint) that record every JSON-protocol request while recording. The local
 * endpoints never check signatures, so a request signed for another host passes through.
 */
export async function startAwsWireRecorder(upstreams: readonly string[]): Promise<AwsWireRecorder> {
  let recording = false;
  let taken: WireRequest[] = [];
  const proxies = new Map<string, ServiceProxy>();
  for (const upstream of new Set(upstreams)) {
    const proxy = await startRecordingProxy(upstream, {
      requestHeaders: 'all',
      answerHeaders: 'all',
      record: ({ headers, body, startedAt }) => {
        const [prefix, operation] = String(headers['x-amz-target'] ?? '').split('.');
        const system = TARGETS[prefix ?? ''];
        return ({ status, endedAt }) => {
          if (!recording || !system || !operation) return;
          taken.push({
            system,
            operation,
            startedAt,
            endedAt,
            status,
            input: body.length > 0 ? JSON.parse(body.toString('utf8')) : {},
          });
        };
      },
    });
    proxies.set(upstream, proxy);
  }
  return {
    endpointFor(upstream) {
      const proxy = proxies.get(upstream);
      if (!proxy) throw new Error(`no recording proxy in front of ${upstream}`);
      return proxy.url;
    },
    start() {
      taken = [];
      recording = true;
    },
    stop() {
      recording = false;
      const requests = taken;
      taken = [];
      return requests;
    },
    close: async () => {
      await Promise.all([...proxies.values()].map((proxy) => proxy.close()));
    },
  };
}

/** The service calls the bench's service proxy recorded, as wire requests. */
function serviceWireRequests(recorded: readonly RecordedRequest[]): WireRequest[] {
  return recorded
    .filter((request) => request.system === 'service' && request.http)
    .map((request) => ({
      system: 'service',
      operation: request.operation,
      startedAt: request.startedAt,
      endedAt: request.endedAt,
      status: request.status ?? 0,
      http: {
        method: request.http?.method ?? 'GET',
        path: request.http?.path ?? '/',
        headers: request.http?.headers ?? {},
        body: request.http?.body.toString('utf8') ?? '',
      },
    }));
}

/** Records what one run of `invoke` sends on the wire: AWS requests and service calls. */
export async function recordFirstInvocation(
  aws: AwsWireRecorder,
  service: RequestRecorder,
  invoke: () => Promise<void>,
): Promise<WireRequest[]> {
  aws.start();
  service.start();
  let requests: WireRequest[];
  try {
    await invoke();
  } finally {
    // Whatever happened, both recorders stop listening.
    requests = [...aws.stop(), ...serviceWireRequests(service.stop())];
  }
  return requests.sort((a, b) => a.startedAt - b.startedAt);
}

const CLIENTS: Record<Exclude<WireRequest['system'], 'service'>, { module: string; client: string }> = {
  dynamodb: { module: '@aws-sdk/client-dynamodb', client: 'DynamoDBClient' },
  eventbridge: { module: '@aws-sdk/client-eventbridge', client: 'EventBridgeClient' },
  secretsmanager: { module: '@aws-sdk/client-secrets-manager', client: 'SecretsManagerClient' },
  sqs: { module: '@aws-sdk/client-sqs', client: 'SQSClient' },
};

/**
 * What the generated module replays: the wire input as sent (the bench puts the table back as the
 * recorded invocation found it before each run of the raw reference: bench/cold-start.ts).
 */
function replayInput(request: WireRequest): unknown {
  if (request.system === 'eventbridge' && request.operation === 'PutEvents') {
    // On the wire an entry's Time is epoch seconds; the command takes a Date.
    const input = request.input as { Entries?: Array<Record<string, unknown>> };
    return { ...input, Entries: (input.Entries ?? []).map(({ Time: _time, ...entry }) => entry) };
  }
  return request.input;
}

/**
 * The raw handler for one recorded first invocation: the same SDK clients, constructed at module
 * scope with the same (default) configuration as the connector's, and node:http with a keep-alive
 * agent for the service, as the connector's client; the handler sends the recorded requests again,
 * each once those it waited for in the recording are answered, and nothing else. Service answers are read as JSON (as any client must); the rest are dropped.
 */
function rawReferenceSource(name: string, requests: readonly WireRequest[]): string {
  const systems = [...new Set(requests.map((request) => request.system))].filter(
    (system): system is Exclude<WireRequest['system'], 'service'> => system !== 'service',
  );
  const imports = systems.map((system) => {
    const { module, client } = CLIENTS[system];
    const commands = [
      ...new Set(requests.filter((r) => r.system === system).map((r) => `${r.operation}Command`)),
    ];
    return `import { ${[client, ...commands].join(', ')} } from '${module}';`;
  });
  const clientLines = systems.map((system) => `  ${system}: new ${CLIENTS[system].client}({}),`);
  const commandTable = systems.flatMap((system) =>
    [...new Set(requests.filter((r) => r.system === system).map((r) => r.operation))].map(
      (operation) => `  '${system}.${operation}': ${operation}Command,`,
    ),
  );
  const ordered = requests.map((request) => ({
    startedAt: request.startedAt,
    endedAt: request.endedAt,
    system: request.system,
    operation: request.operation,
    status: request.status,
    ...(request.system === 'service' ? { http: request.http } : { input: replayInput(request) }),
  }));
  const schedule = replaySchedule(ordered).map(
    ({ request: { startedAt: _s, endedAt: _e, ...request }, after }) => ({
      request,
      after,
    }),
  );
  return `/**
 * Generated by bench/first-invocation.ts: the raw reference for ${name}'s first invocation, the
 * same ${requests.length} requests with the same clients and nothing else.
 */
import { Agent, request } from 'node:http';
import { runSchedule } from ${JSON.stringify(join(REPO_ROOT, 'bench/schedule.ts'))};
${imports.join('\n')}

const clients = {
${clientLines.join('\n')}
};
const commands = {
${commandTable.join('\n')}
};
const agent = new Agent({ keepAlive: true, maxSockets: 16 });
const serviceUrl = new URL(process.env.BENCH_SERVICE_URL ?? 'http://127.0.0.1:1');
const schedule = ${JSON.stringify(schedule)};

function sendService(http) {
  return new Promise((resolve) => {
    const sent = request(
      { host: serviceUrl.hostname, port: serviceUrl.port, method: http.method, path: http.path, agent,
        headers: { ...http.headers, 'content-length': String(Buffer.byteLength(http.body)) } },
      (answer) => {
        // Read as any client of a JSON API must: the bytes, then JSON (as bench/recorder.ts).
        const chunks = [];
        answer.on('data', (chunk) => chunks.push(chunk));
        answer.on('end', () => {
          try {
            JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {}
          resolve(answer.statusCode);
        });
        answer.on('error', () => resolve(0));
      },
    );
    sent.on('error', () => resolve(0));
    sent.end(http.body);
  });
}

/** Requests this handler has sent: what it reports, so a reference that sends nothing shows it. */
let sentCount = 0;

/** Sends one entry; resolves with whether it was answered as it was when recorded. */
function send(entry) {
  sentCount += 1;
  if (entry.system === 'service') return sendService(entry.http).then((status) => status === entry.status);
  const Command = commands[entry.system + '.' + entry.operation];
  return clients[entry.system].send(new Command(entry.input)).then(
    () => entry.status === 200,
    (error) => entry.status === (error?.$metadata?.httpStatusCode ?? 0),
  );
}

// Each request once those it waited for in the recording are answered (bench/schedule.ts).
export const handler = async () => {
  const alike = await runSchedule(schedule, send);
  return { sent: sentCount, different: alike.filter((same) => !same).length };
};
`;
}

/** Writes and bundles (with the deploy options) the raw reference of `name`. */
export async function buildRawReference(
  name: string,
  requests: readonly WireRequest[],
  outDir: string,
): Promise<BuiltBundle> {
  const sourceDir = join(outDir, 'raw-sources');
  await mkdir(sourceDir, { recursive: true });
  const entry = join(sourceDir, `raw-${name}.ts`);
  await writeFile(entry, rawReferenceSource(name, requests));
  return buildBundle({ name: `raw-${name}`, kind: 'reference', entry }, outDir);
}
