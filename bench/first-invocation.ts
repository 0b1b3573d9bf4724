import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PIPE_EVENT_KEY } from '#functions/contracts/envelope.ts';
import {
  idempotencyPartition,
  idempotencyPersistenceOptions,
  tableDefinition,
} from '#functions/store/table.ts';
import { type BuiltBundle, buildBundle, REPO_ROOT } from './bundle.ts';
import {
  type RecordedRequest,
  type RequestRecorder,
  type ServiceProxy,
  startRecordingProxy,
} from './recorder.ts';
import { replaySchedule } from './schedule.ts';

/**
 * Issues #17 §1 and #24: what a function's first invocation costs beyond the requests it must
 * make, and beyond the stack it must use. The function's own first invocation is recorded on the
 * wire (every AWS request through a recording proxy, every service call through the service
 * proxy), and two modules are generated from the recording, each replaying those requests, each
 * once the requests that had ended before it started are answered (bench/schedule.ts):
 *
 * - the **raw reference** constructs the same SDK clients at module scope and nothing else: no
 *   middy, Powertools, zod or connector code;
 * - the **stack floor** (the goals' reference) constructs the required stack and uses it as a
 *   connector handler does — lib-dynamodb's document client, Powertools logger and metrics through
 *   middy, the FIFO batch processor and idempotency for a queue route, one zod envelope parse —
 *   with none of the connector's code.
 *
 * Both are bundled with the deploy options, then loaded and invoked once by fresh `node`
 * processes next to the function, round after round (bench/cold-start.ts).
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

/** The service sender and the count of requests sent, shared by the raw reference and the stack floor. */
const SERVICE_SENDER = `const agent = new Agent({ keepAlive: true, maxSockets: 16 });
const serviceUrl = new URL(process.env.BENCH_SERVICE_URL ?? 'http://127.0.0.1:1');

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
let sentCount = 0;`;

/** The SDK clients' imports and construction (default configuration) for the systems of `requests`. */
function sdkClients(
  requests: readonly WireRequest[],
  systems: readonly Exclude<WireRequest['system'], 'service'>[],
): { imports: string[]; clientLines: string[]; commandTable: string[] } {
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
  return { imports, clientLines, commandTable };
}

const awsSystemsOf = (requests: readonly WireRequest[]) =>
  [...new Set(requests.map((request) => request.system))].filter(
    (system): system is Exclude<WireRequest['system'], 'service'> => system !== 'service',
  );

/**
 * The raw handler for one recorded first invocation: the same SDK clients, constructed at module
 * scope with the same (default) configuration as the connector's, and node:http with a keep-alive
 * agent for the service, as the connector's client; the handler sends the recorded requests again,
 * each once those it waited for in the recording are answered, and nothing else. Service answers are read as JSON (as any client must); the rest are dropped.
 */
function rawReferenceSource(name: string, requests: readonly WireRequest[]): string {
  const { imports, clientLines, commandTable } = sdkClients(requests, awsSystemsOf(requests));
  const schedule = scheduleOf(requests, (request) =>
    request.system === 'service' ? { http: request.http } : { input: replayInput(request) },
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
const schedule = ${sourceOf(schedule)};

${SERVICE_SENDER}

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

/** The order a replay keeps (bench/schedule.ts), each entry as `body` says it is sent. */
function scheduleOf(
  requests: readonly WireRequest[],
  body: (request: WireRequest) => Record<string, unknown>,
): unknown[] {
  return replaySchedule(requests).map(({ request, after }) => ({
    request: {
      system: request.system,
      operation: request.operation,
      status: request.status,
      ...body(request),
    },
    after,
  }));
}

/** JavaScript source to put in a generated module as it is (a Set, a Buffer, a NumberValue). */
class Code {
  constructor(readonly code: string) {}
}

/** `value` as a JavaScript expression: JSON, but for the Code nodes, written as they are. */
export function sourceOf(value: unknown): string {
  if (value instanceof Code) return value.code;
  if (Array.isArray(value)) return `[${value.map(sourceOf).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, field]) => field !== undefined);
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}: ${sourceOf(field)}`).join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

type AttributeValueJson = Record<string, unknown>;

/** A DynamoDB number as the document client's input: a JavaScript number when it is one exactly. */
function numberOf(text: string): number | Code {
  const value = Number(text);
  return Number.isFinite(value) && String(value) === text
    ? value
    : new Code(`new NumberValue(${JSON.stringify(text)})`);
}

/** One attribute value of the wire as the value lib-dynamodb marshalls back into it. */
function nativeOf(attribute: AttributeValueJson): unknown {
  const [[type, value] = []] = Object.entries(attribute);
  switch (type) {
    case 'S':
    case 'BOOL':
      return value;
    case 'NULL':
      return null;
    case 'N':
      return numberOf(value as string);
    case 'M':
      return nativeMapOf(value as Record<string, AttributeValueJson>);
    case 'L':
      return (value as AttributeValueJson[]).map(nativeOf);
    case 'B':
      return new Code(`Buffer.from(${JSON.stringify(value)}, 'base64')`);
    case 'SS':
      return new Code(`new Set(${JSON.stringify(value)})`);
    case 'NS':
      return new Code(`new Set(${sourceOf((value as string[]).map(numberOf))})`);
    case 'BS':
      return new Code(
        `new Set([${(value as string[]).map((item) => `Buffer.from(${JSON.stringify(item)}, 'base64')`).join(', ')}])`,
      );
    default:
      throw new Error(`bench/first-invocation.ts: no document value for the attribute type ${type}`);
  }
}

function nativeMapOf(map: Record<string, AttributeValueJson>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(map).map(([name, value]) => [name, nativeOf(value)]));
}

/** lib-dynamodb's command for each low-level operation the document client covers. */
const DOCUMENT_COMMANDS: Readonly<Record<string, string>> = {
  GetItem: 'GetCommand',
  PutItem: 'PutCommand',
  UpdateItem: 'UpdateCommand',
  DeleteItem: 'DeleteCommand',
  Query: 'QueryCommand',
  Scan: 'ScanCommand',
  BatchGetItem: 'BatchGetCommand',
  BatchWriteItem: 'BatchWriteCommand',
  TransactGetItems: 'TransactGetCommand',
  TransactWriteItems: 'TransactWriteCommand',
};

/** The fields of a command (or of a transaction's part) that hold attribute values. */
const VALUE_FIELDS = ['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey'] as const;
/** Legacy parameters lib-dynamodb also marshalls; the connector sends none, so none is translated. */
const LEGACY_FIELDS = ['Expected', 'AttributeUpdates', 'KeyConditions', 'QueryFilter', 'ScanFilter'];

function documentFields(input: Record<string, unknown>): Record<string, unknown> {
  const legacy = LEGACY_FIELDS.filter((field) => field in input);
  if (legacy.length > 0)
    throw new Error(`bench/first-invocation.ts: no document input for ${legacy.join(', ')}`);
  const converted = { ...input };
  for (const field of VALUE_FIELDS) {
    const map = input[field] as Record<string, AttributeValueJson> | undefined;
    if (map) converted[field] = nativeMapOf(map);
  }
  return converted;
}

/**
 * A recorded low-level DynamoDB input as the input of lib-dynamodb's command for it: what a
 * store hands the document client, which marshalls it back into the recorded request.
 */
export function documentInput(operation: string, input: Record<string, unknown>): Record<string, unknown> {
  switch (operation) {
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return {
        ...input,
        TransactItems: (input['TransactItems'] as Record<string, Record<string, unknown>>[]).map((item) =>
          Object.fromEntries(Object.entries(item).map(([kind, part]) => [kind, documentFields(part)])),
        ),
      };
    case 'BatchWriteItem':
      return {
        ...input,
        RequestItems: Object.fromEntries(
          Object.entries(
            input['RequestItems'] as Record<string, Record<string, Record<string, unknown>>[]>,
          ).map(([table, writes]) => [
            table,
            writes.map((write) =>
              Object.fromEntries(Object.entries(write).map(([kind, part]) => [kind, documentFields(part)])),
            ),
          ]),
        ),
      };
    case 'BatchGetItem':
      return {
        ...input,
        RequestItems: Object.fromEntries(
          Object.entries(input['RequestItems'] as Record<string, Record<string, unknown>>).map(
            ([table, read]) => [
              table,
              {
                ...read,
                Keys: (read['Keys'] as Record<string, AttributeValueJson>[]).map(nativeMapOf),
              },
            ],
          ),
        ),
      };
    default:
      return documentFields(input);
  }
}

/** How the stack floor of a function takes its event: a queue route's batch, or a schedule. */
export type StackFloorShape =
  | { readonly kind: 'queue'; readonly detailType: string }
  | { readonly kind: 'scheduled' };

/** The name of a function's stack floor (a reference bundle beside it in every round). */
export const stackFloorOf = (functionName: string) => `stack-${functionName}`;

/** An idempotency record's request (Powertools' persistence layer, in the connector's table). */
export function isIdempotencyRequest(request: WireRequest): boolean {
  if (request.system !== 'dynamodb') return false;
  const input = (request.input ?? {}) as { Key?: AttributeValueJson; Item?: AttributeValueJson };
  const key = (input.Key ?? input.Item)?.[tableDefinition.partitionKey.name] as { S?: unknown } | undefined;
  return typeof key?.S === 'string' && key.S.startsWith(idempotencyPartition(''));
}

/**
 * What the stack floor of a function sends itself: its idempotency layer writes the records the
 * function's wrote (one in progress, one completed), so those are not replayed; the rest is, in
 * two parts: what the function sent before its idempotency record (the record's checks), and what
 * it sent inside the idempotent unit.
 */
export function stackFloorParts(requests: readonly WireRequest[]): {
  readonly idempotency: readonly WireRequest[];
  readonly before: readonly WireRequest[];
  readonly inside: readonly WireRequest[];
} {
  const idempotency = requests.filter(isIdempotencyRequest);
  const rest = requests.filter((request) => !isIdempotencyRequest(request));
  // Without an idempotency record (a scheduled function) everything goes inside the handler.
  const opened = idempotency[0]?.startedAt ?? Number.NEGATIVE_INFINITY;
  return {
    idempotency,
    before: rest.filter((request) => request.startedAt < opened),
    inside: rest.filter((request) => request.startedAt >= opened),
  };
}

/**
 * The stack floor of one recorded first invocation (issue 24): the required stack constructed
 * and used as a connector handler uses it — the SDK clients with lib-dynamodb's document client
 * over the DynamoDB client, Powertools logger and metrics through middy's middlewares, for a queue
 * route the FIFO batch processor and idempotency (the connector's persistence options and key,
 * in the same partition), and one small zod envelope parsed per record — around a handler that
 * sends the function's recorded requests again, in the recorded order: DynamoDB through the
 * document client (the store's way), Secrets Manager, EventBridge and SQS through their clients,
 * the service through node:http as the raw reference does. None of the connector's code.
 */
function stackFloorSource(name: string, shape: StackFloorShape, requests: readonly WireRequest[]): string {
  const { idempotency, before, inside } = stackFloorParts(requests);
  const replayed = [...before, ...inside];
  const lowLevel = replayed.filter(
    (request) => request.system !== 'dynamodb' || DOCUMENT_COMMANDS[request.operation] === undefined,
  );
  // Every client a function constructs (the SDK floor's), and any other its requests need.
  const systems = [
    ...new Set<Exclude<WireRequest['system'], 'service'>>([
      'dynamodb',
      'eventbridge',
      'secretsmanager',
      ...awsSystemsOf(requests),
    ]),
  ];
  const { imports, clientLines, commandTable } = sdkClients(lowLevel, systems);
  const documentCommands = [
    ...new Set(
      replayed
        .filter((request) => request.system === 'dynamodb')
        .map((request) => DOCUMENT_COMMANDS[request.operation])
        .filter((command): command is string => command !== undefined),
    ),
  ];
  const body = (request: WireRequest): Record<string, unknown> => {
    if (request.system === 'service') return { http: request.http };
    const document = request.system === 'dynamodb' ? DOCUMENT_COMMANDS[request.operation] : undefined;
    return document
      ? { document, input: documentInput(request.operation, request.input as Record<string, unknown>) }
      : { input: replayInput(request) };
  };
  const queue = shape.kind === 'queue';
  const persistence = queue
    ? (({ awsSdkV3Client: _client, tableName: _table, ...options }) => options)(
        idempotencyPersistenceOptions('', shape.detailType),
      )
    : undefined;
  const powertoolsImports = [
    ...(queue
      ? [
          "import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';",
          "import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';",
          "import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';",
        ]
      : []),
    "import { Logger } from '@aws-lambda-powertools/logger';",
    "import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';",
    "import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';",
    "import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';",
  ];
  const handlerSource = queue
    ? `const envelope = z.object({
  id: z.string(),
  'detail-type': z.string(),
  time: z.string(),
  detail: z.object({ accountId: z.string() }).loose(),
});
const idempotencyConfig = new IdempotencyConfig({
  eventKeyJmesPath: 'id',
  payloadValidationJmesPath: 'detail',
  throwOnNoIdempotencyKey: true,
  expiresAfterSeconds: Number(process.env.IDEMPOTENCY_TTL_SECONDS ?? 86400),
});
// The connector's persistence options (functions/store/table.ts), its partition and key prefix.
const persistenceStore = new DynamoDBPersistenceLayer({
  ...${sourceOf(persistence)},
  tableName: process.env.TABLE_NAME,
  awsSdkV3Client: clients.dynamodb,
});
const work = makeIdempotent(
  async (event) => {
    await replayPart(inside);
    return { accountId: event.detail.accountId };
  },
  { persistenceStore, config: idempotencyConfig, keyPrefix: ${JSON.stringify(shape.detailType)}, dataIndexArgument: 0 },
);

export const handler = middy(async (event, context) => {
  idempotencyConfig.registerLambdaContext(context);
  const response = await processPartialResponse(
    event,
    async (record) => {
      const parsed = envelope.parse(JSON.parse(record.body)[${JSON.stringify(PIPE_EVENT_KEY)}]);
      await replayPart(before);
      await work(parsed);
      metrics.addMetric('RecordsProcessed', MetricUnit.Count, 1);
    },
    new SqsFifoPartialProcessorAsync(),
    { context, skipGroupOnError: true, throwOnFullBatchFailure: false },
  );
  return { ...response, sent: sentCount, different };
})
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(logMetrics(metrics, { captureColdStartMetric: true }));`
    : `const envelope = z.object({ id: z.string(), 'detail-type': z.string(), time: z.string() }).loose();

export const handler = middy(async (event) => {
  envelope.parse(event);
  await replayPart(before);
  await replayPart(inside);
  metrics.addMetric('RunsCompleted', MetricUnit.Count, 1);
  return { sent: sentCount, different };
})
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(logMetrics(metrics, { captureColdStartMetric: true }));`;
  return `/**
 * Generated by bench/first-invocation.ts: the stack floor for ${name}'s first invocation, the
 * required stack constructed and used as a handler uses it around the same ${replayed.length} requests
 * (and ${idempotency.length} of its idempotency layer's own), and nothing of the connector.
 */
import { Agent, request } from 'node:http';
${powertoolsImports.join('\n')}
${imports.join('\n')}
import { DynamoDBDocumentClient, NumberValue${documentCommands.map((command) => `, ${command}`).join('')} } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import * as z from 'zod';
import { runSchedule } from ${JSON.stringify(join(REPO_ROOT, 'bench/schedule.ts'))};

const clients = {
${clientLines.join('\n')}
};
// As the store builds it (functions/store/store.ts).
const documents = DynamoDBDocumentClient.from(clients.dynamodb, {
  marshallOptions: { removeUndefinedValues: true },
});
const commands = {
${commandTable.join('\n')}
};
const documentCommands = { ${documentCommands.join(', ')} };
const logger = new Logger({ serviceName: 'bench-stack-floor' });
const metrics = new Metrics({ namespace: 'BenchStackFloor', serviceName: 'bench-stack-floor' });
const before = ${sourceOf(scheduleOf(before, body))};
const inside = ${sourceOf(scheduleOf(inside, body))};

${SERVICE_SENDER}
let different = 0;

/** Sends one entry; counts it when it is answered otherwise than when recorded. */
function send(entry) {
  sentCount += 1;
  const answered = (status) => {
    if (status !== entry.status) different += 1;
  };
  if (entry.system === 'service') return sendService(entry.http).then(answered);
  const sent = entry.document
    ? documents.send(new documentCommands[entry.document](entry.input))
    : clients[entry.system].send(new commands[entry.system + '.' + entry.operation](entry.input));
  return sent.then(
    () => answered(200),
    (error) => answered(error?.$metadata?.httpStatusCode ?? 0),
  );
}

const replayPart = (part) => runSchedule(part, send);

${handlerSource}
`;
}

/** Writes and bundles (with the deploy options) the stack floor of `name`, for its configured memory. */
export async function buildStackFloor(
  name: string,
  shape: StackFloorShape,
  requests: readonly WireRequest[],
  outDir: string,
  memorySizeMb?: number,
): Promise<BuiltBundle> {
  const sourceDir = join(outDir, 'stack-sources');
  await mkdir(sourceDir, { recursive: true });
  const entry = join(sourceDir, `${stackFloorOf(name)}.ts`);
  await writeFile(entry, stackFloorSource(name, shape, requests));
  return buildBundle(
    {
      name: stackFloorOf(name),
      kind: 'reference',
      entry,
      referenceOf: name,
      ...(memorySizeMb === undefined ? {} : { memorySizeMb }),
    },
    outDir,
  );
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
