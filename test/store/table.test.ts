import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  createTableInput,
  idempotencyPersistenceOptions,
  TRIAL_INDEX_NAME,
  tableDefinition,
} from '#functions/store/table.ts';
import { useTestStore } from './support.ts';

const store = useTestStore();

describe('table definition', () => {
  it('creates the table with the keys and the trial index of the definition', async () => {
    // Prepare
    const describe = new DescribeTableCommand({ TableName: store.tableName });

    // Act
    const { Table } = await store.client.send(describe);

    // Assess
    expect(Table?.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(Table?.GlobalSecondaryIndexes?.[0]).toMatchObject({
      IndexName: TRIAL_INDEX_NAME,
      KeySchema: [
        { AttributeName: 'trialShard', KeyType: 'HASH' },
        { AttributeName: 'trialEndsAt', KeyType: 'RANGE' },
      ],
      Projection: {
        ProjectionType: 'INCLUDE',
        NonKeyAttributes: ['accountId', 'hostname', 'trialEndDate', 'region'],
      },
    });
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
  });

  it('defines every key attribute exactly once', () => {
    // Prepare
    const input = createTableInput('any-table');

    // Act
    const names = input.AttributeDefinitions?.map((definition) => definition.AttributeName);

    // Assess
    expect(names).toEqual(['pk', 'sk', 'trialShard', 'trialEndsAt', 'driftShard', 'driftDueAt']);
    expect(tableDefinition.ttlAttribute).toBe('ttl');
  });
});

describe('idempotency records', () => {
  it('stores Powertools idempotency records in the same table with a TTL and replays the result', async () => {
    // Prepare
    let runs = 0;
    const persistenceStore = new DynamoDBPersistenceLayer(
      idempotencyPersistenceOptions(store.tableName, 'PlanChosen', store.client),
    );
    const config = new IdempotencyConfig({});
    config.registerLambdaContext({ getRemainingTimeInMillis: () => 30_000 } as Context);
    const handleRecord = makeIdempotent(
      async (record: { id: string }) => {
        runs += 1;
        return { handled: record.id, run: runs };
      },
      { persistenceStore, config },
    );

    // Act
    const first = await handleRecord({ id: 'evt-1' });
    const replay = await handleRecord({ id: 'evt-1' });

    // Assess
    expect(runs).toBe(1);
    expect(replay).toEqual(first);
    const { Items } = await store.doc.send(new ScanCommand({ TableName: store.tableName }));
    const record = Items?.find((item) => String(item['pk']).startsWith('idempotency#'));
    // A static partition per route: records outlive a function's rename or replacement.
    expect(record).toMatchObject({ pk: 'idempotency#PlanChosen', idempotencyStatus: 'COMPLETED' });
    expect(record?.['ttl']).toBeGreaterThan(Date.now() / 1000);
  });
});
