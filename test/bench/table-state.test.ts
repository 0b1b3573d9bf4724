import {
  type AttributeValue,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { fromStateMet, TableState } from '#bench/table-state.ts';
import { useTestStore } from '#test/store/support.ts';

type Item = Record<string, AttributeValue>;
const key = (pk: string, sk = 'META'): Item => ({ pk: { S: pk }, sk: { S: sk } });

describe('the table state a raw replay starts from', () => {
  const store = useTestStore();

  /** The requests a handler made, as the recorder keeps them: a create and a conditional update. */
  const handlerWrites = (name: string) => [
    {
      system: 'dynamodb',
      operation: 'PutItemCommand',
      status: 200,
      input: {
        TableName: store.tableName,
        Item: { ...key(`CREATED#${name}`), name: { S: name } },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      system: 'dynamodb',
      operation: 'UpdateItemCommand',
      status: 200,
      input: {
        TableName: store.tableName,
        Key: key(`COUNTER#${name}`),
        UpdateExpression: 'SET #n = #n + :one',
        ConditionExpression: '#n < :limit',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':one': { N: '1' }, ':limit': { N: '10' } },
      },
    },
  ];
  const send = (write: ReturnType<typeof handlerWrites>[number]) =>
    write.operation === 'PutItemCommand'
      ? store.client.send(new PutItemCommand(write.input as never))
      : store.client.send(new UpdateItemCommand(write.input as never));
  const itemAt = async (at: Item) =>
    (
      await store.client.send(
        new GetItemCommand({ TableName: store.tableName, Key: at, ConsistentRead: true }),
      )
    ).Item;

  it('names the items each kind of write touched, each once, and none a read or a condition check touched', async () => {
    // Prepare
    const state = await TableState.read(store.client, store.tableName);
    const table = store.tableName;
    const requests = [
      { system: 'dynamodb', operation: 'GetItemCommand', input: { TableName: table, Key: key('READ') } },
      {
        system: 'dynamodb',
        operation: 'PutItem',
        input: { TableName: table, Item: { ...key('A'), x: { S: '1' } } },
      },
      { system: 'dynamodb', operation: 'UpdateItemCommand', input: { TableName: table, Key: key('B') } },
      { system: 'dynamodb', operation: 'DeleteItemCommand', input: { TableName: table, Key: key('A') } },
      {
        system: 'dynamodb',
        operation: 'TransactWriteItems',
        input: {
          TransactItems: [
            { ConditionCheck: { TableName: table, Key: key('CHECKED') } },
            { Put: { TableName: table, Item: { ...key('C'), y: { N: '2' } } } },
            { Update: { TableName: table, Key: key('D') } },
            { Delete: { TableName: 'another-table', Key: key('ELSEWHERE') } },
          ],
        },
      },
      {
        system: 'dynamodb',
        operation: 'BatchWriteItemCommand',
        input: {
          RequestItems: {
            [table]: [{ PutRequest: { Item: { ...key('E') } } }, { DeleteRequest: { Key: key('F') } }],
          },
        },
      },
      { system: 'eventbridge', operation: 'PutEventsCommand', input: { Entries: [] } },
    ];

    // Act
    const keys = state.keysWrittenBy(requests);

    // Assess
    expect(keys).toEqual([key('A'), key('B'), key('C'), key('D'), key('E'), key('F')]);
  });

  it('lets a replay meet what the handler met: its conditional writes succeed as sent, as they did for the handler', async () => {
    // Prepare: a counter the handler will move, and the state before the handler runs.
    await store.client.send(
      new PutItemCommand({ TableName: store.tableName, Item: { ...key('COUNTER#met'), n: { N: '9' } } }),
    );
    const state = await TableState.read(store.client, store.tableName);
    const writes = handlerWrites('met');
    for (const write of writes) await send(write);
    const handlerLeft = [await itemAt(key('CREATED#met')), await itemAt(key('COUNTER#met'))];
    // Sent again onto what the handler left, both conditions fail: that is what the replay must not meet.
    const ontoHandlerState = await Promise.allSettled(writes.map(send));
    expect(ontoHandlerState.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);

    // Act
    const replayed = await fromStateMet(state, writes, () => Promise.allSettled(writes.map(send)));

    // Assess
    expect(replayed.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled']);
    expect([await itemAt(key('CREATED#met')), await itemAt(key('COUNTER#met'))]).toEqual(handlerLeft);
  });

  it('leaves the table and the state as the handler left it, whatever the replay wrote', async () => {
    // Prepare
    const state = await TableState.read(store.client, store.tableName);
    const writes = handlerWrites('left');
    await store.client.send(
      new PutItemCommand({ TableName: store.tableName, Item: { ...key('COUNTER#left'), n: { N: '1' } } }),
    );
    // The counter was written after the state was read: tell the state, as a replay would have.
    state.remember(await state.current([key('COUNTER#left')]));
    for (const write of writes) await send(write);

    // Act: a replay that writes something else and fails.
    const replay = fromStateMet(state, writes, async () => {
      await store.client.send(
        new PutItemCommand({
          TableName: store.tableName,
          Item: { ...key('CREATED#left'), name: { S: 'replay' } },
        }),
      );
      throw new Error('replay failed');
    });

    // Assess
    await expect(replay).rejects.toThrow('replay failed');
    expect((await itemAt(key('CREATED#left')))?.['name']).toEqual({ S: 'left' });
    expect((await itemAt(key('COUNTER#left')))?.['n']).toEqual({ N: '2' });
    expect(state.imagesOf([key('CREATED#left'), key('COUNTER#left')]).map((image) => image.item)).toEqual([
      await itemAt(key('CREATED#left')),
      await itemAt(key('COUNTER#left')),
    ]);
  });

  it('puts back no item where the handler found none', async () => {
    // Prepare
    const state = await TableState.read(store.client, store.tableName);
    const [create] = handlerWrites('absent');
    await send(create!);

    // Act
    const during = await fromStateMet(state, [create!], () => itemAt(key('CREATED#absent')));

    // Assess
    expect(during).toBeUndefined();
    expect(await itemAt(key('CREATED#absent'))).toBeDefined();
  });
});
