import { type AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
// Ships with lib-dynamodb (its marshaller); the document client does not unmarshall error payloads.
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** The state repository's handle: every repository function takes it as its first argument. */
export interface Store {
  /** lib-dynamodb's document client: plain JavaScript values in and out. */
  readonly doc: DynamoDBDocumentClient;
  /** The low-level client under it, for what takes one (the Powertools idempotency layer). */
  readonly client: DynamoDBClient;
  readonly tableName: string;
}

export interface CreateStoreOptions {
  tableName: string;
  /** Defaults to a client configured from the environment (region, credentials, endpoint). */
  client?: DynamoDBClient;
}

export function createStore({ tableName, client = new DynamoDBClient({}) }: CreateStoreOptions): Store {
  const doc = DynamoDBDocumentClient.from(client, {
    // Optional fields of domain objects arrive as undefined; DynamoDB rejects them otherwise.
    marshallOptions: { removeUndefinedValues: true },
  });
  return { doc, client, tableName };
}

export function isConditionalCheckFailure(
  error: unknown,
): error is Error & { Item?: Record<string, AttributeValue> } {
  // Name, not instanceof: bundles may carry more than one copy of the SDK's error classes.
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

export interface CancellationReason {
  Code?: string;
  Message?: string;
  Item?: Record<string, AttributeValue>;
}

/** The item an error carries with ReturnValuesOnConditionCheckFailure = ALL_OLD, as plain values. */
export function conflictingItem(
  raw: Record<string, AttributeValue> | undefined,
): Record<string, unknown> | undefined {
  return raw ? unmarshall(raw) : undefined;
}

/**
 * The per-item outcome of a cancelled TransactWrite, in request order, or undefined when the
 * error is not a cancellation. Only `ConditionalCheckFailed` reasons are domain outcomes; others
 * (conflicts with concurrent transactions, throttling) are left for the caller to rethrow.
 */
export function cancellationReasons(error: unknown): CancellationReason[] | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as Error & { CancellationReasons?: CancellationReason[] }).CancellationReasons;
  return reasons ?? [];
}

export const CONDITIONAL_CHECK_FAILED = 'ConditionalCheckFailed';

/** DynamoDB TTL works in epoch seconds. */
export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** ISO timestamps are compared as strings in keys and conditions, so they must share one form. */
export function normalizeTimestamp(value: string | Date): string {
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) throw new RangeError(`not a timestamp: ${String(value)}`);
  return date.toISOString();
}
