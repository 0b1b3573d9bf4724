import {
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { useTestStore } from './support.ts';

// The store's guarantees rest on this emulation, so its DynamoDB semantics are tested here.

const store = useTestStore();
let sequence = 0;
const newKey = () => ({ pk: { S: `TX#${++sequence}` }, sk: { S: 'ITEM' } });

const read = async (key: ReturnType<typeof newKey>) =>
  (
    await store.client.send(
      new GetItemCommand({ TableName: store.tableName, Key: key, ConsistentRead: true }),
    )
  ).Item;

describe('dynalite transaction emulation', () => {
  it('applies every write when every condition holds', async () => {
    // Prepare
    const [first, second] = [newKey(), newKey()];

    // Act
    await store.client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: store.tableName, Item: { ...first, v: { N: '1' } } } },
          {
            Update: {
              TableName: store.tableName,
              Key: second,
              UpdateExpression: 'SET v = :v',
              ExpressionAttributeValues: { ':v': { N: '2' } },
            },
          },
        ],
      }),
    );

    // Assess
    expect(await read(first)).toMatchObject({ v: { N: '1' } });
    expect(await read(second)).toMatchObject({ v: { N: '2' } });
  });

  it('rolls back earlier writes and reports a reason per item when one condition fails', async () => {
    // Prepare
    const [fresh, existing, deleted] = [newKey(), newKey(), newKey()];
    await store.client.send(
      new PutItemCommand({ TableName: store.tableName, Item: { ...existing, v: { N: '7' } } }),
    );
    await store.client.send(
      new PutItemCommand({ TableName: store.tableName, Item: { ...deleted, v: { N: '8' } } }),
    );

    // Act
    const attempt = store.client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: store.tableName, Item: { ...fresh, v: { N: '1' } } } },
          { Delete: { TableName: store.tableName, Key: deleted } },
          {
            Put: {
              TableName: store.tableName,
              Item: { ...existing, v: { N: '9' } },
              ConditionExpression: 'attribute_not_exists(pk)',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
      }),
    );

    // Assess
    const error = await attempt.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'None' },
      {
        Code: 'ConditionalCheckFailed',
        Message: 'The conditional request failed',
        Item: { ...existing, v: { N: '7' } },
      },
    ]);
    expect(await read(fresh)).toBeUndefined();
    expect(await read(deleted)).toMatchObject({ v: { N: '8' } });
    expect(await read(existing)).toMatchObject({ v: { N: '7' } });
  });

  it('evaluates a condition check without leaving an item behind', async () => {
    // Prepare
    const [guard, target] = [newKey(), newKey()];

    // Act
    await store.client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: store.tableName,
              Key: guard,
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          { Put: { TableName: store.tableName, Item: { ...target, v: { N: '1' } } } },
        ],
      }),
    );

    // Assess
    expect(await read(guard)).toBeUndefined();
    expect(await read(target)).toMatchObject({ v: { N: '1' } });
  });

  it('rejects two operations on one item like DynamoDB does', async () => {
    // Prepare
    const key = newKey();

    // Act
    const attempt = store.client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: store.tableName, Item: { ...key } } },
          { Delete: { TableName: store.tableName, Key: key } },
        ],
      }),
    );

    // Assess
    await expect(attempt).rejects.toMatchObject({ name: 'ValidationException' });
    expect(await read(key)).toBeUndefined();
  });

  it('returns the current item with a failed single conditional write when asked for ALL_OLD', async () => {
    // Prepare
    const key = newKey();
    await store.client.send(
      new PutItemCommand({ TableName: store.tableName, Item: { ...key, v: { S: 'old' } } }),
    );

    // Act
    const attempt = store.client.send(
      new PutItemCommand({
        TableName: store.tableName,
        Item: { ...key, v: { S: 'new' } },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );

    // Assess
    await expect(attempt).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
      Item: { ...key, v: { S: 'old' } },
    });
  });

  it('keeps concurrent transactions on the same item all-or-nothing', async () => {
    // Prepare
    const shared = newKey();
    const owners = Array.from({ length: 8 }, () => newKey());

    // Act
    const outcomes = await Promise.allSettled(
      owners.map((owner) =>
        store.client.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              {
                Put: {
                  TableName: store.tableName,
                  Item: { ...shared, owner: owner.pk },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              {
                Put: {
                  TableName: store.tableName,
                  Item: { ...owner },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
            ],
          }),
        ),
      ),
    );

    // Assess
    const winners = outcomes.flatMap((outcome, index) =>
      outcome.status === 'fulfilled' ? [owners[index]!] : [],
    );
    expect(winners).toHaveLength(1);
    expect(await read(shared)).toMatchObject({ owner: winners[0]!.pk });
    const ownerItems = await Promise.all(owners.map(read));
    expect(ownerItems.filter(Boolean)).toHaveLength(1);
  });
});
