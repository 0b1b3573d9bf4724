import { randomUUID } from 'node:crypto';
import {
  Agent,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  request,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { createStore, type Store } from '#functions/store/store.ts';
import { createTableInput } from '#functions/store/table.ts';

/**
 * dynalite in memory, fronted by a small proxy that adds what dynalite lacks and the connector
 * relies on: TransactWriteItems (all-or-nothing, with CancellationReasons) and
 * ReturnValuesOnConditionCheckFailure = ALL_OLD on single-item writes. The proxy serialises
 * those requests against every other request (a readers–writer lock), which gives them the
 * isolation DynamoDB gives; plain requests pass through concurrently and untouched.
 * Not emulated: ClientRequestToken idempotency, TransactionConflict, TransactGetItems.
 */

export interface DynaliteServer {
  /** `http://127.0.0.1:<port>` for a DynamoDBClient `endpoint`. */
  endpoint: string;
  /**
   * Authorizes every request from now on, before dynalite sees it (the local runtime's IAM
   * enforcement, local/iam/): a request the guard denies is answered as DynamoDB answers an
   * unauthorized one, HTTP 400 AccessDeniedException with the guard's message.
   */
  guard(check: DynamoGuard | undefined): void;
  close(): Promise<void>;
}

/** The AccessDenied message of a DynamoDB request, or undefined when it may go on. */
export type DynamoGuard = (request: {
  readonly operation: string;
  readonly body: string;
  readonly authorization: string | undefined;
}) => Promise<string | undefined>;

export interface DynaliteOptions {
  /** @default 0 (a free port): tests run concurrently; the local runtime passes 8000. */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
}

type Json = Record<string, unknown>;
type AttributeMap = Record<string, unknown>;

interface ProxyReply {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

interface BackendReply {
  status: number;
  body: Json;
}

const TARGET_PREFIX = 'DynamoDB_20120810.';
const SINGLE_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);
const MAX_TRANSACTION_ITEMS = 100;

/** Many readers or one writer; a waiting writer blocks new readers so it cannot starve. */
class ReadersWriterLock {
  #readers = 0;
  #writing = false;
  #queue: Array<{ exclusive: boolean; grant: () => void }> = [];

  async run<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
    await new Promise<void>((grant) => {
      this.#queue.push({ exclusive, grant });
      this.#dispatch();
    });
    try {
      return await work();
    } finally {
      if (exclusive) this.#writing = false;
      else this.#readers -= 1;
      this.#dispatch();
    }
  }

  #dispatch(): void {
    while (this.#queue.length > 0 && !this.#writing) {
      const next = this.#queue[0]!;
      if (next.exclusive) {
        if (this.#readers > 0) return;
        this.#writing = true;
      } else {
        this.#readers += 1;
      }
      this.#queue.shift();
      next.grant();
    }
  }
}

function readBody(message: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => resolve(Buffer.concat(chunks)));
    message.on('error', reject);
  });
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}

function errorType(body: Json): string {
  return (
    String(body['__type'] ?? '')
      .split('#')
      .pop() ?? ''
  );
}

class TransactionProxy {
  readonly #lock = new ReadersWriterLock();
  readonly #keyNames = new Map<string, string[]>();

  constructor(
    private readonly backendPort: number,
    private readonly agent: Agent,
  ) {}

  async handle(incoming: IncomingMessage, body: Buffer): Promise<ProxyReply> {
    const target = String(incoming.headers['x-amz-target'] ?? '');
    const operation = target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : '';
    if (operation === 'TransactWriteItems') {
      return this.#lock.run(true, () =>
        this.#transactWrite(incoming.headers, JSON.parse(body.toString()) as Json),
      );
    }
    if (SINGLE_WRITES.has(operation) && body.includes('ReturnValuesOnConditionCheckFailure')) {
      const input = JSON.parse(body.toString()) as Json;
      if (input['ReturnValuesOnConditionCheckFailure'] === 'ALL_OLD') {
        return this.#lock.run(true, () => this.#writeReturningOld(incoming.headers, operation, input));
      }
    }
    return this.#lock.run(false, () => this.#forward(incoming, body));
  }

  #forward(incoming: IncomingMessage, body: Buffer): Promise<ProxyReply> {
    return new Promise((resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port: this.backendPort,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
          agent: this.agent,
        },
        (response) => {
          readBody(response).then(
            (payload) =>
              resolve({ status: response.statusCode ?? 500, headers: response.headers, body: payload }),
            reject,
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  #call(headers: IncomingHttpHeaders, operation: string, input: Json): Promise<BackendReply> {
    const payload = Buffer.from(JSON.stringify(input));
    return new Promise((resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port: this.backendPort,
          method: 'POST',
          path: '/',
          agent: this.agent,
          headers: {
            authorization: headers.authorization ?? '',
            'x-amz-date': headers['x-amz-date'] ?? new Date().toISOString(),
            'content-type': 'application/x-amz-json-1.0',
            'content-length': payload.length,
            'x-amz-target': `${TARGET_PREFIX}${operation}`,
          },
        },
        (response) => {
          readBody(response).then((text) => {
            resolve({
              status: response.statusCode ?? 500,
              body: JSON.parse(text.toString() || '{}') as Json,
            });
          }, reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  }

  async #keyOf(headers: IncomingHttpHeaders, tableName: string, item: AttributeMap): Promise<AttributeMap> {
    let names = this.#keyNames.get(tableName);
    if (!names) {
      const described = await this.#call(headers, 'DescribeTable', { TableName: tableName });
      const table = described.body['Table'] as { KeySchema?: Array<{ AttributeName: string }> } | undefined;
      names = (table?.KeySchema ?? []).map((key) => key.AttributeName);
      this.#keyNames.set(tableName, names);
    }
    return Object.fromEntries(names.map((name) => [name, item[name]]));
  }

  async #currentItem(
    headers: IncomingHttpHeaders,
    tableName: string,
    key: AttributeMap,
  ): Promise<AttributeMap | undefined> {
    const reply = await this.#call(headers, 'GetItem', {
      TableName: tableName,
      Key: key,
      ConsistentRead: true,
    });
    return reply.body['Item'] as AttributeMap | undefined;
  }

  async #writeReturningOld(
    headers: IncomingHttpHeaders,
    operation: string,
    input: Json,
  ): Promise<ProxyReply> {
    const { ReturnValuesOnConditionCheckFailure: _, ...write } = input;
    const reply = await this.#call(headers, operation, write);
    if (reply.status === 400 && errorType(reply.body) === 'ConditionalCheckFailedException') {
      const tableName = String(input['TableName']);
      const key =
        (input['Key'] as AttributeMap | undefined) ??
        (await this.#keyOf(headers, tableName, input['Item'] as AttributeMap));
      const old = await this.#currentItem(headers, tableName, key);
      if (old) reply.body['Item'] = old;
    }
    return jsonReply(reply);
  }

  async #transactWrite(headers: IncomingHttpHeaders, input: Json): Promise<ProxyReply> {
    const items = (input['TransactItems'] as Json[] | undefined) ?? [];
    if (items.length < 1 || items.length > MAX_TRANSACTION_ITEMS) {
      return validationError(`TransactItems must have 1..${MAX_TRANSACTION_ITEMS} items`);
    }
    const actions: Array<{ kind: string; spec: Json; tableName: string; key: AttributeMap }> = [];
    const seen = new Set<string>();
    for (const item of items) {
      const [kind, spec] = Object.entries(item)[0] as [string, Json];
      const tableName = String(spec['TableName']);
      const key =
        (spec['Key'] as AttributeMap | undefined) ??
        (await this.#keyOf(headers, tableName, spec['Item'] as AttributeMap));
      const identity = JSON.stringify([tableName, key]);
      if (seen.has(identity)) {
        return validationError('Transaction request cannot include multiple operations on one item');
      }
      seen.add(identity);
      actions.push({ kind, spec, tableName, key });
    }

    const before = await Promise.all(
      actions.map((action) => this.#currentItem(headers, action.tableName, action.key)),
    );
    const reasons: Json[] = [];
    const touched: number[] = [];
    let failure: BackendReply | undefined;
    for (const [index, action] of actions.entries()) {
      const { ReturnValuesOnConditionCheckFailure: returnOld, ...spec } = action.spec;
      const reply =
        action.kind === 'ConditionCheck'
          ? // An UpdateItem without an update expression evaluates the condition and at most creates
            // an empty item, which the rollback below removes again.
            await this.#call(headers, 'UpdateItem', spec)
          : await this.#call(headers, `${action.kind}Item`, spec);
      if (reply.status === 200) {
        touched.push(index);
        reasons.push({ Code: 'None' });
      } else if (errorType(reply.body) === 'ConditionalCheckFailedException') {
        const old = before[index];
        reasons.push({
          Code: 'ConditionalCheckFailed',
          Message: 'The conditional request failed',
          ...(returnOld === 'ALL_OLD' && old ? { Item: old } : {}),
        });
      } else {
        failure = reply;
        break;
      }
    }
    const cancelled = failure !== undefined || reasons.some((reason) => reason['Code'] !== 'None');
    const restore = cancelled
      ? touched
      : touched.filter((index) => actions[index]?.kind === 'ConditionCheck');
    for (const index of restore.reverse()) {
      const action = actions[index]!;
      const old = before[index];
      await (old
        ? this.#call(headers, 'PutItem', { TableName: action.tableName, Item: old })
        : this.#call(headers, 'DeleteItem', { TableName: action.tableName, Key: action.key }));
    }
    if (failure) return jsonReply(failure);
    if (!cancelled) return jsonReply({ status: 200, body: {} });
    return jsonReply({
      status: 400,
      body: {
        __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
        message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons
          .map((reason) => reason['Code'])
          .join(', ')}]`,
        CancellationReasons: reasons,
      },
    });
  }
}

function jsonReply(reply: BackendReply): ProxyReply {
  return {
    status: reply.status,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': randomUUID() },
    body: Buffer.from(JSON.stringify(reply.body)),
  };
}

/** DynamoDB's answer to an unauthorized call (DynamoDB API reference, "Common Errors": AccessDeniedException, HTTP 400). */
function accessDenied(message: string): ProxyReply {
  return jsonReply({
    status: 400,
    body: { __type: 'com.amazon.coral.service#AccessDeniedException', message },
  });
}

function validationError(message: string): ProxyReply {
  return jsonReply({
    status: 400,
    body: { __type: 'com.amazon.coral.validate#ValidationException', message },
  });
}

export async function startDynalite(options: DynaliteOptions = {}): Promise<DynaliteServer> {
  const host = options.host ?? '127.0.0.1';
  const backend = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const backendPort = await listen(backend, 0, '127.0.0.1');
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const proxy = new TransactionProxy(backendPort, agent);
  let guard: DynamoGuard | undefined;
  const front = createServer((incoming, outgoing) => {
    readBody(incoming)
      .then(async (body) => {
        const target = String(incoming.headers['x-amz-target'] ?? '');
        const denied = await guard?.({
          operation: target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : target,
          body: body.toString(),
          authorization: incoming.headers.authorization,
        });
        return denied === undefined ? proxy.handle(incoming, body) : accessDenied(denied);
      })
      .then((reply) => {
        const {
          'content-length': _length,
          'x-amz-crc32': _crc,
          connection: _connection,
          ...headers
        } = reply.headers;
        outgoing.writeHead(reply.status, { ...headers, 'content-length': reply.body.length });
        outgoing.end(reply.body);
      })
      .catch((error: unknown) => {
        outgoing.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
        outgoing.end(JSON.stringify({ __type: 'InternalServerError', message: String(error) }));
      });
  });
  const port = await listen(front, options.port ?? 0, host);
  return {
    endpoint: `http://${host}:${port}`,
    guard(check) {
      guard = check;
    },
    async close() {
      await closeServer(front);
      agent.destroy();
      await closeServer(backend);
    },
  };
}

export type TestStore = Store & { client: DynamoDBClient };

/**
 * A fresh table (random name, so test files sharing a server never see each other's items)
 * created from the production definition, and a Store on it.
 */
export async function createTestStore(
  endpoint: string,
  tableName = `state-${randomUUID()}`,
): Promise<TestStore> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  return { ...createStore({ tableName, client }), client };
}
