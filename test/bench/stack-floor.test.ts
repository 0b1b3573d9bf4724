import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  NumberValue,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '#bench/bundle.ts';
import type { ColdStartResult } from '#bench/cold-start.ts';
import {
  buildStackFloor,
  documentInput,
  isIdempotencyRequest,
  sourceOf,
  stackFloorParts,
  type WireRequest,
} from '#bench/first-invocation.ts';
import { coldStartRows, GOALS, type ResultRow, sameRequests } from '#bench/report.ts';

/** What lib-dynamodb's document client puts on the wire for `command` (captured, never sent). */
async function wireBodyOf(command: unknown) {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'AKIATESTSTACKFLOOR00', secretAccessKey: 'test' },
  });
  // As the store builds it (functions/store/store.ts).
  const documents = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  let body: unknown;
  client.middlewareStack.add(
    () => async (args) => {
      body = JSON.parse(String((args.request as { body: string }).body));
      throw new Error('captured');
    },
    { step: 'build', name: 'captureBody' },
  );
  await expect(documents.send(command as never)).rejects.toThrow('captured');
  client.destroy();
  return body;
}

/** The document input a generated stack floor holds, evaluated as its module would. */
function evaluated(input: Record<string, unknown>): Record<string, unknown> {
  return new Function('NumberValue', 'Buffer', `return ${sourceOf(input)};`)(NumberValue, Buffer) as Record<
    string,
    unknown
  >;
}

const TABLE = 'connector-table';

describe("a stack floor's DynamoDB requests", () => {
  // Every kind of value and every command shape the wire can carry, as recorded low-level inputs.
  const item = {
    pk: { S: 'ACCOUNT#a-1' },
    sk: { S: 'BUSINESS' },
    count: { N: '3' },
    rate: { N: '24.50' },
    big: { N: '12345678901234567890' },
    at: { N: '1.5e3' },
    active: { BOOL: true },
    gone: { NULL: true },
    tags: { SS: ['a', 'b'] },
    sizes: { NS: ['1', '2.0'] },
    blob: { B: Buffer.from('bytes').toString('base64') },
    nested: { M: { list: { L: [{ S: 'x' }, { N: '1' }, { M: { deep: { BOOL: false } } }] } } },
  };
  const recorded: [string, Record<string, unknown>][] = [
    [
      'GetItem',
      { TableName: TABLE, Key: { pk: { S: 'ACCOUNT#a-1' }, sk: { S: 'BUSINESS' } }, ConsistentRead: true },
    ],
    [
      'PutItem',
      {
        TableName: TABLE,
        Item: item,
        ConditionExpression: 'attribute_not_exists(pk) OR #at < :at',
        ExpressionAttributeNames: { '#at': 'at' },
        ExpressionAttributeValues: { ':at': { N: '1500' } },
      },
    ],
    [
      'UpdateItem',
      {
        TableName: TABLE,
        Key: { pk: { S: 'BUDGET#x' }, sk: { S: 'TAT' } },
        UpdateExpression: 'SET tat = :next',
        ExpressionAttributeValues: { ':next': { N: '1764280000123' }, ':tags': { SS: ['q'] } },
        ReturnValues: 'ALL_NEW',
      },
    ],
    ['DeleteItem', { TableName: TABLE, Key: { pk: { S: 'CLAIM#1' }, sk: { S: 'CLAIM' } } }],
    [
      'Query',
      {
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'INSTALL#h' } },
        ExclusiveStartKey: { pk: { S: 'INSTALL#h' }, sk: { S: 'SLOT#2' } },
        Limit: 25,
      },
    ],
    [
      'TransactWriteItems',
      {
        // The SDK's own when a caller gives none; recorded as sent, so replayed as sent.
        ClientRequestToken: 'b4c1b1c5-6a0e-4d8f-9d1e-2f9b7a0c3e11',
        TransactItems: [
          { Put: { TableName: TABLE, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
          {
            Update: {
              TableName: TABLE,
              Key: { pk: { S: 'INSTALL#h' }, sk: { S: 'SLOTS' } },
              UpdateExpression: 'SET n = n + :one',
              ExpressionAttributeValues: { ':one': { N: '1' } },
            },
          },
          { ConditionCheck: { TableName: TABLE, Key: item, ConditionExpression: 'attribute_exists(pk)' } },
          { Delete: { TableName: TABLE, Key: { pk: { S: 'X' }, sk: { S: 'Y' } } } },
        ],
      },
    ],
    [
      'BatchWriteItem',
      {
        RequestItems: {
          [TABLE]: [
            { PutRequest: { Item: item } },
            { DeleteRequest: { Key: { pk: { S: 'X' }, sk: { S: 'Y' } } } },
          ],
        },
      },
    ],
    [
      'BatchGetItem',
      { RequestItems: { [TABLE]: { Keys: [{ pk: { S: 'X' }, sk: { S: 'Y' } }], ConsistentRead: true } } },
    ],
  ];
  const commandOf: Record<string, new (input: never) => unknown> = {
    GetItem: GetCommand,
    PutItem: PutCommand,
    UpdateItem: UpdateCommand,
    DeleteItem: DeleteCommand,
    Query: QueryCommand,
    TransactWriteItems: TransactWriteCommand,
    BatchWriteItem: BatchWriteCommand,
    BatchGetItem: BatchGetCommand,
  };

  it.each(recorded)(
    'go through the document client and leave it as recorded: %s',
    async (operation, input) => {
      // Prepare: the input the generated module holds for the recorded request.
      const Command = commandOf[operation] as new (input: never) => unknown;

      // Act
      const body = await wireBodyOf(
        new Command(evaluated(documentInput(operation, input)) as never) as never,
      );

      // Assess
      expect(body).toEqual(input);
    },
  );

  it('are refused in a legacy form the document client would marshall otherwise', () => {
    // Act + Assess
    expect(() =>
      documentInput('Query', {
        TableName: TABLE,
        KeyConditions: { pk: { AttributeValueList: [{ S: 'x' }] } },
      }),
    ).toThrow(/no document input for KeyConditions/);
  });
});

const wire = (
  system: WireRequest['system'],
  operation: string,
  startedAt: number,
  endedAt: number,
  input: unknown = {},
): WireRequest => ({ system, operation, startedAt, endedAt, status: 200, input });

describe("a stack floor's parts", () => {
  it("leaves the function's idempotency records to its own idempotency layer, and sends the rest before or inside the idempotent unit as the function did", () => {
    // Prepare: a replay-marker read before the record, the record in progress, the work, the record completed.
    const marker = wire('dynamodb', 'GetItem', 0, 2, {
      Key: { pk: { S: 'APPLIED#e-1' }, sk: { S: 'APPLIED' } },
    });
    const opened = wire('dynamodb', 'PutItem', 3, 5, {
      Item: { pk: { S: 'idempotency#PlanChosen' }, sk: { S: 'PlanChosen#abc' } },
    });
    const token = wire('secretsmanager', 'GetSecretValue', 6, 8);
    const business = wire('dynamodb', 'GetItem', 6, 9, {
      Key: { pk: { S: 'ACCOUNT#a' }, sk: { S: 'BUSINESS' } },
    });
    const published = wire('eventbridge', 'PutEvents', 10, 12);
    const completed = wire('dynamodb', 'UpdateItem', 13, 15, {
      Key: { pk: { S: 'idempotency#PlanChosen' }, sk: { S: 'PlanChosen#abc' } },
    });

    // Act
    const parts = stackFloorParts([marker, opened, token, business, published, completed]);

    // Assess
    expect(parts).toEqual({
      idempotency: [opened, completed],
      before: [marker],
      inside: [token, business, published],
    });
    expect([opened, completed, marker].map(isIdempotencyRequest)).toEqual([true, true, false]);
  });

  it('sends everything in the handler when there is no idempotency record (a scheduled function)', () => {
    // Prepare
    const queries = [wire('dynamodb', 'Query', 0, 3), wire('dynamodb', 'Query', 1, 4)];

    // Act + Assess
    expect(stackFloorParts(queries)).toEqual({ idempotency: [], before: [], inside: queries });
  });
});

describe("a stack floor's bundle", () => {
  const outDir = join(REPO_ROOT, '.tmp', `stack-floor-test-${process.pid}`);
  afterAll(async () => {
    await rm(outDir, { recursive: true, force: true });
  });

  /** The packages and connector files esbuild puts into a bundle of `entry` (buildStackFloor bundles it with the deploy options). */
  async function inputsOf(entry: string): Promise<string[]> {
    const result = await build({
      entryPoints: [resolve(entry)],
      bundle: true,
      platform: 'node',
      format: 'esm',
      mainFields: ['module', 'main'],
      absWorkingDir: REPO_ROOT,
      outdir: join(outDir, 'inputs'),
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    return Object.keys(result.metafile.inputs);
  }
  const requests = [
    wire('dynamodb', 'PutItem', 0, 1, {
      TableName: TABLE,
      Item: { pk: { S: 'idempotency#PlanChosen' }, sk: { S: 's' } },
    }),
    wire('dynamodb', 'GetItem', 2, 3, {
      TableName: TABLE,
      Key: { pk: { S: 'ACCOUNT#a' }, sk: { S: 'BUSINESS' } },
    }),
    wire('eventbridge', 'PutEvents', 4, 5, { Entries: [{ Source: 's', DetailType: 'd', Detail: '{}' }] }),
  ];
  const packagesOf = (inputs: readonly string[], names: readonly string[]) =>
    names.filter((name) => inputs.some((input) => input.includes(`node_modules/${name}/`)));
  const stack = [
    '@aws-lambda-powertools/batch',
    '@aws-lambda-powertools/idempotency',
    '@aws-lambda-powertools/logger',
    '@aws-lambda-powertools/metrics',
    '@aws-sdk/lib-dynamodb',
    '@aws-sdk/client-dynamodb',
    '@aws-sdk/client-eventbridge',
    '@aws-sdk/client-secrets-manager',
    '@middy/core',
    'zod',
  ];

  it('holds the required stack and none of the connector, built with the deploy options', async () => {
    // Act
    const floor = await buildStackFloor(
      'change-plan',
      { kind: 'queue', detailType: 'PlanChosen' },
      requests,
      outDir,
      512,
    );
    const inputs = await inputsOf(join(outDir, 'stack-sources', 'stack-change-plan.ts'));

    // Assess
    expect(floor).toMatchObject({
      name: 'stack-change-plan',
      kind: 'reference',
      referenceOf: 'change-plan',
      memorySizeMb: 512,
    });
    expect(packagesOf(inputs, stack)).toEqual(stack);
    expect(inputs.filter((input) => input.startsWith('functions/'))).toEqual([]);
  });

  it('leaves out the batch processor and idempotency for a scheduled function, which uses neither', async () => {
    // Act
    await buildStackFloor('trial-watch', { kind: 'scheduled' }, requests.slice(1), outDir);
    const inputs = await inputsOf(join(outDir, 'stack-sources', 'stack-trial-watch.ts'));

    // Assess
    expect(packagesOf(inputs, stack)).toEqual(
      stack.filter(
        (name) => !['@aws-lambda-powertools/batch', '@aws-lambda-powertools/idempotency'].includes(name),
      ),
    );
  });
});

describe('the cold-start goals', () => {
  const requests = [
    'dynamodb PutItem',
    'secretsmanager GetSecretValue',
    'eventbridge PutEvents',
    'dynamodb UpdateItem',
  ];
  const result = (name: string, fields: Partial<ColdStartResult>): ColdStartResult => ({
    name,
    kind: 'reference',
    bytes: 500_000,
    mapBytes: 0,
    topPackages: [],
    samples: 3,
    readyMsMedian: Number.NaN,
    initMsMedian: Number.NaN,
    readyMs: [],
    initMs: [],
    errors: [],
    ...fields,
  });
  // Per round: the function 110/105/130 ms ready against its stack floor's 100/100/100 (1.10,
  // 1.05, 1.30: median 1.10); loaded in 66/60/61 against 60/60/50 (1.10, 1.00, 1.22: median 1.10).
  const fn = result('change-plan', {
    kind: 'function',
    bytes: 650_000,
    readyMs: [110, 105, 130],
    initMs: [66, 60, 61],
    readyMsMedian: 110,
    initMsMedian: 61,
    firstInvocationRequests: requests,
  });
  const floor = result('stack-change-plan', {
    referenceOf: 'change-plan',
    readyMs: [100, 100, 100],
    initMs: [60, 60, 50],
    readyMsMedian: 100,
    initMsMedian: 60,
    firstInvocationRequests: [...requests].reverse(),
    answeredDifferently: 0,
  });
  const raw = result('raw-change-plan', { readyMs: [80, 84, 88], initMs: [40, 40, 40], readyMsMedian: 84 });
  const row = (rows: readonly ResultRow[], item: string) => rows.find((one) => one.item === item);

  it("judges a function's first invocation and module load against its stack floor, per round, on the median", () => {
    // Act
    const rows = coldStartRows([fn, floor, raw]);

    // Assess
    expect(row(rows, 'change-plan first invocation / stack floor')).toMatchObject({
      figure: '1.100 (1.050–1.300, n=3): 110 vs 100 ms for the same 4 requests',
      goal: `≤ ${GOALS.firstInvocationRatio} (median of rounds)`,
      pass: true,
    });
    expect(row(rows, 'change-plan module load / stack floor')).toMatchObject({
      figure: "1.100 (1.000–1.220, n=3): 61 vs 60 ms; bundle 634.8 KB = 1.3 × its stack floor's",
      goal: `≤ ${GOALS.moduleLoadRatio} (median of rounds)`,
      pass: true,
    });
    // Against the raw reference: shown, not judged.
    expect(row(rows, 'change-plan first invocation / raw')).toMatchObject({
      figure: expect.stringMatching(/^1\.375 \(1\.250–1\.477, n=3\): 110 vs 84 ms for the same 4 requests$/),
      pass: undefined,
    });
    expect(rows.map((one) => one.item)).not.toContain('reference stack-change-plan');
  });

  it('misses the goal when the median round is over it', () => {
    // Prepare: the middle round at 1.12.
    const slower = { ...fn, readyMs: [112, 105, 130] };

    // Act + Assess
    expect(row(coldStartRows([slower, floor, raw]), 'change-plan first invocation / stack floor')?.pass).toBe(
      false,
    );
  });

  it('is not met by a stack floor that sent other requests than the function, nor without one, nor when either failed', () => {
    // Prepare
    const other = { ...floor, firstInvocationRequests: requests.slice(1) };
    const failedFloor = { ...floor, errors: ['the child wrote no result'] };
    const judged = (results: ColdStartResult[]) =>
      row(coldStartRows(results), 'change-plan first invocation / stack floor');

    // Act + Assess
    expect(judged([fn, other, raw])).toMatchObject({
      figure: expect.stringContaining('4 requests, its stack floor sent 3 others'),
      pass: false,
    });
    expect(judged([fn, raw])).toMatchObject({
      figure: expect.stringContaining('no stack floor measured'),
      pass: false,
    });
    expect(judged([fn, failedFloor, raw])?.pass).toBe(false);
    expect(judged([{ ...fn, errors: ['boom'] }, floor, raw])?.pass).toBe(false);
    expect(sameRequests(requests, [...requests].reverse())).toBe(true);
    expect(sameRequests(requests, [...requests, 'dynamodb GetItem'])).toBe(false);
  });
});
