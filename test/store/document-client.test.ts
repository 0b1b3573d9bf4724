import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DocumentClient } from '#functions/runtime/clients/document-client.ts';

/**
 * The store's document client must put the same bytes on the wire as lib-dynamodb's
 * DynamoDBDocumentClient and hand back the same values, for every command the connector sends.
 * Both run over a low-level client whose request handler records each request body and answers
 * with a canned low-level (marshalled) output, so the SDK serializes and deserializes as it would
 * against DynamoDB.
 */

interface Wire {
  readonly client: DynamoDBClient;
  readonly bodies: string[];
  readonly sends: number[];
}

function wireAnswering(answer: unknown): Wire {
  const bodies: string[] = [];
  const sends: number[] = [];
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' },
    requestHandler: {
      handle: async (request: { body?: unknown }) => {
        bodies.push(String(request.body));
        return {
          response: {
            statusCode: 200,
            headers: { 'content-type': 'application/x-amz-json-1.0' },
            body: new TextEncoder().encode(JSON.stringify(answer)),
          },
        };
      },
    },
  });
  client.middlewareStack.add(
    (next) => async (args) => {
      sends.push(1);
      return next(args);
    },
    { step: 'initialize', name: 'countSends' },
  );
  return { client, bodies, sends };
}

const withoutMetadata = (output: object) => {
  const { $metadata: _ignored, ...rest } = output as Record<string, unknown>;
  return rest;
};

/** Every kind of value the store writes, undefined ones included (removeUndefinedValues). */
const item = {
  pk: 'BUSINESS#acct-1',
  sk: 'BUSINESS',
  count: 3,
  rate: 24.5,
  active: true,
  nothing: null,
  empty: '',
  absent: undefined,
  list: ['a', 1, { nested: 'x', gone: undefined }],
  map: { a: { b: [1, 2] }, skipped: undefined },
  tags: new Set(['x', 'y']),
  numbers: new Set([1, 2]),
  bytes: new Uint8Array([1, 2, 3]),
};

const values = { ':now': '2026-11-26T00:00:00.000Z', ':one': 1, ':list': ['a'], ':map': { k: 'v' } };

const commands = [
  () => new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' }, ConsistentRead: true }),
  () =>
    new PutCommand({
      TableName: 't',
      Item: item,
      ConditionExpression: 'attribute_not_exists(pk) OR #at < :now',
      ExpressionAttributeNames: { '#at': 'at' },
      ExpressionAttributeValues: { ':now': values[':now'] },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    }),
  () =>
    new UpdateCommand({
      TableName: 't',
      Key: { pk: 'a', sk: 'b' },
      UpdateExpression: 'SET #l = :list, #m = :map ADD attempts :one',
      ExpressionAttributeNames: { '#l': 'l', '#m': 'm' },
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  () =>
    new DeleteCommand({
      TableName: 't',
      Key: { pk: 'a', sk: 'b' },
      ConditionExpression: 'eventId = :id',
      ExpressionAttributeValues: { ':id': 'evt-1' },
    }),
  () =>
    new QueryCommand({
      TableName: 't',
      IndexName: 'due',
      KeyConditionExpression: 'shard = :s AND dueAt <= :now',
      ExpressionAttributeValues: { ':s': 3, ':now': values[':now'] },
      ExclusiveStartKey: { pk: 'a', sk: 'b', shard: 3 },
      Limit: 100,
    }),
  () => new ScanCommand({ TableName: 't', ExclusiveStartKey: { pk: 'a', sk: 'b' } }),
  // A function where a value goes is left out, as lib-dynamodb leaves it out.
  () =>
    new UpdateCommand({
      TableName: 't',
      Key: { pk: 'a', sk: 'b', helper: () => 'x' },
      UpdateExpression: 'SET n = :n',
      ExpressionAttributeValues: { ':n': 1, ':unused': () => 2 },
    } as never),
  () =>
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: 't', Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
        {
          Update: {
            TableName: 't',
            Key: { pk: 'a', sk: 'b' },
            UpdateExpression: 'SET #s = :s',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':s': 'ACTIVE' },
          },
        },
        {
          ConditionCheck: {
            TableName: 't',
            Key: { pk: 'c', sk: 'd' },
            ConditionExpression: '#s = :s',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':s': 'PENDING' },
          },
        },
        { Delete: { TableName: 't', Key: { pk: 'e', sk: 'f' } } },
      ],
    }),
  () =>
    new BatchWriteCommand({
      RequestItems: {
        t: [{ PutRequest: { Item: item } }, { DeleteRequest: { Key: { pk: 'a', sk: 'b' } } }],
      },
    }),
];

/** A low-level answer carrying every output key path the commands above read. */
const answer = {
  Item: { pk: { S: 'a' }, n: { N: '3' }, l: { L: [{ S: 'x' }, { M: { k: { BOOL: true } } }] } },
  Attributes: { pk: { S: 'a' }, attempts: { N: '2' }, nothing: { NULL: true } },
  Items: [
    { pk: { S: 'a' }, tags: { SS: ['x'] } },
    { pk: { S: 'b' }, bytes: { B: 'AQID' } },
  ],
  LastEvaluatedKey: { pk: { S: 'b' }, sk: { S: 'c' } },
  Count: 2,
  ScannedCount: 2,
  UnprocessedItems: { t: [{ PutRequest: { Item: { pk: { S: 'z' }, n: { N: '1.5' } } } }] },
  ConsumedCapacity: [{ TableName: 't', CapacityUnits: 1 }],
};

describe('the store document client', () => {
  it.each(commands.map((build) => [build().constructor.name, build] as const))(
    'sends %s as lib-dynamodb does and reads its answer the same',
    async (_name, build) => {
      // Prepare
      const ours = wireAnswering(answer);
      const theirs = wireAnswering(answer);
      const options = { marshallOptions: { removeUndefinedValues: true } };
      const documents = new DocumentClient(ours.client, options);
      const reference = DynamoDBDocumentClient.from(theirs.client, options);

      // Act
      const got = await documents.send(build() as never);
      const expected = await reference.send(build() as never);

      // Assess
      // TransactWriteItems gets a random ClientRequestToken from the SDK on both sides.
      const comparable = (bodies: string[]) =>
        bodies.map((body) =>
          body.replace(/"ClientRequestToken":"[0-9a-f-]{36}"/, '"ClientRequestToken":"…"'),
        );
      expect(ours.bodies).toHaveLength(1);
      expect(comparable(ours.bodies)).toEqual(comparable(theirs.bodies));
      expect(withoutMetadata(got)).toEqual(withoutMetadata(expected));
      // One low-level send per command.
      expect(ours.sends).toHaveLength(1);
    },
  );

  it('passes a low-level command through unchanged', async () => {
    // Prepare
    const ours = wireAnswering({ Item: { pk: { S: 'a' } } });
    const documents = new DocumentClient(ours.client);
    const { GetItemCommand } = await import('@aws-sdk/client-dynamodb');

    // Act
    const got = await documents.send(
      new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' }, sk: { S: 'b' } } }) as never,
    );

    // Assess
    expect(JSON.parse(ours.bodies[0] ?? '{}')).toEqual({
      TableName: 't',
      Key: { pk: { S: 'a' }, sk: { S: 'b' } },
    });
    expect((got as { Item?: unknown }).Item).toEqual({ pk: { S: 'a' } });
  });

  it('refuses an undefined value nested in a list or map unless told to remove it, as lib-dynamodb does', async () => {
    // Prepare
    const ours = new DocumentClient(wireAnswering({}).client);
    const reference = DynamoDBDocumentClient.from(wireAnswering({}).client);
    const put = () => new PutCommand({ TableName: 't', Item: { pk: 'a', map: { gone: undefined } } });

    // Act
    const mine = ours.send(put());
    const theirs = reference.send(put());

    // Assess
    await expect(theirs).rejects.toThrow(/removeUndefinedValues/);
    await expect(mine).rejects.toThrow(/removeUndefinedValues/);
  });

  it('refuses a lib-dynamodb command that no longer declares its key paths rather than send it unmarshalled', async () => {
    // Prepare: a GetCommand as a lib-dynamodb that dropped its key-path members would build it
    const wire = wireAnswering({});
    const documents = new DocumentClient(wire.client);
    const command = Object.assign(Object.create(GetCommand.prototype) as object, {
      input: { TableName: 't', Key: { pk: 'a' } },
    });

    // Act
    const sent = documents.send(command as never);

    // Assess
    await expect(sent).rejects.toThrow(/does not declare its key paths/);
    expect(wire.bodies).toEqual([]);
  });

  it('refuses a null where a map of values goes, as lib-dynamodb does', async () => {
    // Prepare
    const ours = wireAnswering({});
    const theirs = wireAnswering({});
    const get = () => new GetCommand({ TableName: 't', Key: null as never });

    // Act
    const mine = new DocumentClient(ours.client).send(get());
    const reference = DynamoDBDocumentClient.from(theirs.client).send(get());

    // Assess
    await expect(reference).rejects.toThrow(TypeError);
    await expect(mine).rejects.toThrow(TypeError);
    expect(ours.bodies).toEqual([]);
  });

  it('sends one command object again as it sent it the first time, its plain input kept', async () => {
    // Prepare
    const wire = wireAnswering({ Item: { pk: { S: 'a' } } });
    const documents = new DocumentClient(wire.client);
    const command = new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } });

    // Act
    const first = await documents.send(command);
    const again = await documents.send(command);

    // Assess
    expect(wire.bodies).toHaveLength(2);
    expect(wire.bodies[1]).toBe(wire.bodies[0]);
    expect(first.Item).toEqual({ pk: 'a' });
    expect(again.Item).toEqual({ pk: 'a' });
    expect(command.input.Key).toEqual({ pk: 'a', sk: 'b' });
  });

  it('takes a command alone: options or a callback are refused, not ignored', async () => {
    // Prepare
    const wire = wireAnswering({});
    const documents = new DocumentClient(wire.client);
    const send = documents.send as (...args: unknown[]) => Promise<unknown>;

    // Act
    const withOptions = send(new GetCommand({ TableName: 't', Key: { pk: 'a' } }), {
      abortSignal: undefined,
    });

    // Assess
    await expect(withOptions).rejects.toThrow(/alone/);
    expect(wire.bodies).toEqual([]);
  });
});
