import type { DynamoDBPersistenceOptionsWithClientInstance } from '@aws-lambda-powertools/idempotency/dynamodb/types';
import type { CreateTableCommandInput, DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * The connector's single DynamoDB table, described once. `lib/` turns `tableDefinition` into a CDK
 * Table (on-demand, PITR, TTL on `ttl`); dynalite and the local runtime use `createTableInput`.
 */

export const TRIAL_INDEX_NAME = 'trialIndex';

/**
 * Trial-index writes are spread over this many partition-key values so that a burst of signups
 * (every one of which is a trial) never lands on a single index partition. Readers query every
 * shard, so raising the count later means rewriting the index attributes of existing trials
 * first; lowering it strands items in shards nobody reads.
 */
export const TRIAL_SHARD_COUNT = 16;

/**
 * Attributes copied into the trial index beyond its keys and the table keys: exactly what the
 * trial watch needs to call subscription-status (hostname, region) and to name the announcement
 * (accountId, trialEndDate). INCLUDE rather than KEYS_ONLY avoids one GetItem per due business;
 * rather than ALL, it keeps index writes small as sync timestamps and errors change.
 */
export const TRIAL_INDEX_ATTRIBUTES = ['accountId', 'hostname', 'trialEndDate', 'region'] as const;

/**
 * The drift watch's due list: every ACTIVE business carries `driftShard` / `driftDueAt` (when it is
 * next checked against the service), so a run reads only the businesses due (drift-index.ts).
 * Sparse like the trial index: a business leaves it when it is gone (or never had a hostname).
 */
export const DRIFT_INDEX_NAME = 'driftIndex';

/** Drift-index writes (one per check of every tracked business) are spread like the trial index's. */
export const DRIFT_SHARD_COUNT = 16;

/**
 * Only the account id beyond the keys: the watch reads the business itself (consistently) before
 * deciding, because an index item may lag a plan change written a moment ago.
 */
export const DRIFT_INDEX_ATTRIBUTES = ['accountId'] as const;

export type KeyAttributeType = 'S' | 'N' | 'B';

export interface KeyDescriptor {
  readonly name: string;
  readonly type: KeyAttributeType;
}

export interface GlobalIndexDescriptor {
  readonly indexName: string;
  readonly partitionKey: KeyDescriptor;
  readonly sortKey: KeyDescriptor;
  readonly projection: { readonly type: 'INCLUDE'; readonly nonKeyAttributes: readonly string[] };
}

export interface TableDescriptor {
  readonly partitionKey: KeyDescriptor;
  readonly sortKey: KeyDescriptor;
  readonly globalSecondaryIndexes: readonly GlobalIndexDescriptor[];
  /** Epoch seconds; DynamoDB deletes expired items lazily (typically within days). */
  readonly ttlAttribute: string;
  readonly billing: 'PAY_PER_REQUEST';
  readonly pointInTimeRecovery: true;
}

export const tableDefinition: TableDescriptor = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: TRIAL_INDEX_NAME,
      partitionKey: { name: 'trialShard', type: 'S' },
      sortKey: { name: 'trialEndsAt', type: 'S' },
      projection: { type: 'INCLUDE', nonKeyAttributes: TRIAL_INDEX_ATTRIBUTES },
    },
    {
      indexName: DRIFT_INDEX_NAME,
      partitionKey: { name: 'driftShard', type: 'S' },
      sortKey: { name: 'driftDueAt', type: 'S' },
      projection: { type: 'INCLUDE', nonKeyAttributes: DRIFT_INDEX_ATTRIBUTES },
    },
  ],
  ttlAttribute: 'ttl',
  billing: 'PAY_PER_REQUEST',
  pointInTimeRecovery: true,
};

/** CreateTable input for dynalite and the local runtime (TTL and PITR are not CreateTable options). */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const keys = [
    tableDefinition.partitionKey,
    tableDefinition.sortKey,
    ...tableDefinition.globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  const attributeDefinitions = [...new Map(keys.map((key) => [key.name, key])).values()].map((key) => ({
    AttributeName: key.name,
    AttributeType: key.type,
  }));
  return {
    TableName: tableName,
    BillingMode: tableDefinition.billing,
    AttributeDefinitions: attributeDefinitions,
    KeySchema: [
      { AttributeName: tableDefinition.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: tableDefinition.sortKey.name, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
      ],
      Projection: {
        ProjectionType: index.projection.type,
        NonKeyAttributes: [...index.projection.nonKeyAttributes],
      },
    })),
  };
}

export type IdempotencyPersistenceOptions = DynamoDBPersistenceOptionsWithClientInstance;

/**
 * Options for Powertools' `DynamoDBPersistenceLayer` so idempotency records share this table:
 * `pk = idempotency#<scope>` (the route's detail-type, or `Refusal`: a static value, so records
 * survive a function's rename or replacement, unlike Powertools' default of the function name) and
 * `sk = <scope>#<hash of the event id>`; the `idempotency#` prefix cannot collide with the entity
 * keys in `keys.ts`. `ttl` holds the expiry in epoch seconds (IDEMPOTENCY_TTL_SECONDS, 24 hours
 * unless the deployment config sets `idempotencyTtlSeconds`), so DynamoDB TTL removes spent records.
 */
export function idempotencyPersistenceOptions(
  tableName: string,
  scope: string,
  client?: DynamoDBClient,
): IdempotencyPersistenceOptions {
  return {
    tableName,
    keyAttr: tableDefinition.partitionKey.name,
    sortKeyAttr: tableDefinition.sortKey.name,
    staticPkValue: idempotencyPartition(scope),
    expiryAttr: tableDefinition.ttlAttribute,
    inProgressExpiryAttr: 'inProgressExpiresAtMs',
    statusAttr: 'idempotencyStatus',
    dataAttr: 'idempotencyResult',
    validationKeyAttr: 'payloadHash',
    ...(client ? { awsSdkV3Client: client } : {}),
  };
}

/** The partition of one route's (or the refusal function's) idempotency records. */
export const idempotencyPartition = (scope: string) => `idempotency#${scope}`;
