import { describe, expect, it } from 'vitest';
import {
  dynamoActions,
  eventsActions,
  type ResourceNames,
  secretsActions,
  sqsActions,
  UnmappedOperationError,
} from '#local/iam/requests.ts';

/** Which IAM action on which resource each API call the functions make is (local/iam/requests.ts). */

const where = { region: 'us-east-1', account: '000000000000' };
const table = 'arn:aws:dynamodb:us-east-1:000000000000:table/state';
const names: ResourceNames = {
  ...where,
  queueArn: (urlOrName) =>
    urlOrName === 'http://127.0.0.1:4010/000000000000/route.fifo' || urlOrName === 'route.fifo'
      ? 'arn:aws:sqs:us-east-1:000000000000:route.fifo'
      : undefined,
  secret: (nameOrArn) =>
    nameOrArn === 'token'
      ? { arn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:token-LOCAL1' }
      : nameOrArn === 'encrypted'
        ? {
            arn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:encrypted-LOCAL1',
            keyArn: 'arn:aws:kms:us-east-1:000000000000:key/k1',
          }
        : undefined,
};

describe('DynamoDB calls as IAM actions', () => {
  it('maps a single-item operation to its action on the table named, by the table ARN format', async () => {
    // Act
    const update = await dynamoActions('UpdateItem', { TableName: 'state', Key: {} }, where);
    const byArn = await dynamoActions('GetItem', { TableName: table }, where);

    // Assess
    expect(update).toEqual([{ action: 'dynamodb:UpdateItem', resource: table }]);
    expect(byArn).toEqual([{ action: 'dynamodb:GetItem', resource: table }]);
  });

  it('maps a Query on an index to the index ARN, and one on the table to the table', async () => {
    // Act
    const onIndex = await dynamoActions('Query', { TableName: 'state', IndexName: 'trialIndex' }, where);
    const onTable = await dynamoActions('Query', { TableName: 'state' }, where);

    // Assess
    expect(onIndex).toEqual([{ action: 'dynamodb:Query', resource: `${table}/index/trialIndex` }]);
    expect(onTable).toEqual([{ action: 'dynamodb:Query', resource: table }]);
  });

  it('maps TransactWriteItems to each item’s own action on its table, once per distinct pair', async () => {
    // Act
    const actions = await dynamoActions(
      'TransactWriteItems',
      {
        TransactItems: [
          { Put: { TableName: 'state', Item: {} } },
          { Update: { TableName: 'state', Key: {} } },
          { Update: { TableName: 'state', Key: {} } },
          { ConditionCheck: { TableName: 'other', Key: {} } },
          { Delete: { TableName: 'state', Key: {} } },
        ],
      },
      where,
    );

    // Assess
    expect(actions).toEqual([
      { action: 'dynamodb:PutItem', resource: table },
      { action: 'dynamodb:UpdateItem', resource: table },
      {
        action: 'dynamodb:ConditionCheckItem',
        resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/other',
      },
      { action: 'dynamodb:DeleteItem', resource: table },
    ]);
  });

  it('checks BatchWriteItem on each table of the request', async () => {
    // Act
    const actions = await dynamoActions('BatchWriteItem', { RequestItems: { state: [], other: [] } }, where);

    // Assess
    expect(actions.map((action) => [action.action, action.resource.split('/').pop()])).toEqual([
      ['dynamodb:BatchWriteItem', 'state'],
      ['dynamodb:BatchWriteItem', 'other'],
    ]);
  });

  it('refuses to map an operation that is no IAM action', async () => {
    // Act / Assess
    await expect(dynamoActions('NoSuchOperation', { TableName: 'state' }, where)).rejects.toBeInstanceOf(
      UnmappedOperationError,
    );
  });
});

describe('SQS, EventBridge and Secrets Manager calls as IAM actions', () => {
  it('maps SQS operations to their action on the queue the URL names, batches to their single action', async () => {
    // Act
    const url = 'http://127.0.0.1:4010/000000000000/route.fifo';
    const visibility = await sqsActions('ChangeMessageVisibility', { QueueUrl: url }, names);
    const batch = await sqsActions('SendMessageBatch', { QueueUrl: url }, names);
    const byName = await sqsActions('GetQueueUrl', { QueueName: 'route.fifo' }, names);
    const unknown = await sqsActions(
      'SendMessage',
      { QueueUrl: 'http://127.0.0.1:4010/000000000000/gone' },
      names,
    );

    // Assess
    const queue = 'arn:aws:sqs:us-east-1:000000000000:route.fifo';
    expect(visibility).toEqual([{ action: 'sqs:ChangeMessageVisibility', resource: queue }]);
    expect(batch).toEqual([{ action: 'sqs:SendMessage', resource: queue }]);
    expect(byName).toEqual([{ action: 'sqs:GetQueueUrl', resource: queue }]);
    expect(unknown).toEqual([
      { action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:000000000000:gone' },
    ]);
  });

  it('maps PutEvents to events:PutEvents on each bus, with the entries’ sources and detail-types as context', async () => {
    // Act
    const actions = await eventsActions(
      'PutEvents',
      {
        Entries: [
          { EventBusName: 'connector', Source: 'workforce.connector', DetailType: 'B' },
          { EventBusName: 'connector', Source: 'workforce.connector', DetailType: 'A' },
          { Source: 'partner.app', DetailType: 'A' },
        ],
      },
      where,
    );

    // Assess
    expect(actions).toEqual([
      {
        action: 'events:PutEvents',
        resource: 'arn:aws:events:us-east-1:000000000000:event-bus/connector',
        context: { 'events:source': ['workforce.connector'], 'events:detail-type': ['A', 'B'] },
      },
      {
        action: 'events:PutEvents',
        resource: 'arn:aws:events:us-east-1:000000000000:event-bus/default',
        context: { 'events:source': ['partner.app'], 'events:detail-type': ['A'] },
      },
    ]);
  });

  it('maps GetSecretValue to the secret, and to kms:Decrypt via Secrets Manager when a customer managed key encrypts it', async () => {
    // Act
    const plain = await secretsActions('GetSecretValue', { SecretId: 'token' }, names);
    const encrypted = await secretsActions('GetSecretValue', { SecretId: 'encrypted' }, names);

    // Assess
    expect(plain).toEqual([
      {
        action: 'secretsmanager:GetSecretValue',
        resource: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:token-LOCAL1',
      },
    ]);
    expect(encrypted[1]).toEqual({
      action: 'kms:Decrypt',
      resource: 'arn:aws:kms:us-east-1:000000000000:key/k1',
      context: {
        'kms:ViaService': 'secretsmanager.us-east-1.amazonaws.com',
        'kms:CallerAccount': '000000000000',
        'kms:EncryptionContext:SecretARN':
          'arn:aws:secretsmanager:us-east-1:000000000000:secret:encrypted-LOCAL1',
      },
    });
  });
});
