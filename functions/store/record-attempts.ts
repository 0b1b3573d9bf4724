import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { recordAttemptsKey } from './keys.ts';
import { epochSeconds, type Store } from './store.ts';

/**
 * The retry budget of one SQS message on one route: counted failures, the last one's code, and
 * whether the record already gave up (it was kept in the dead-letter queue and the partner told).
 * Keyed by the message id, which SQS keeps across receives and replaces on a redrive: a redriven
 * record starts with a fresh budget, a record delivered again after its give-up (a lost delete)
 * is recognised and not reported twice. Written only when a record fails, so the happy path
 * pays nothing.
 */

/** Longer than any message stays in a route queue (14 days), so a budget never expires early. */
const ATTEMPTS_TTL_SECONDS = 15 * 24 * 60 * 60;

export interface RecordAttempts {
  readonly attempts: number;
  readonly lastCode?: string;
  readonly gaveUp: boolean;
}

export async function readRecordAttempts(
  store: Store,
  route: string,
  messageId: string,
): Promise<RecordAttempts | undefined> {
  const { Item } = await store.doc.send(
    new GetCommand({
      TableName: store.tableName,
      Key: recordAttemptsKey(route, messageId),
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  return {
    attempts: typeof Item['attempts'] === 'number' ? Item['attempts'] : 0,
    ...(typeof Item['lastCode'] === 'string' ? { lastCode: Item['lastCode'] } : {}),
    gaveUp: Item['gaveUpAt'] !== undefined,
  };
}

/** Counts one failed attempt and returns how many there have been. */
export async function countFailedAttempt(
  store: Store,
  route: string,
  messageId: string,
  failure: { eventId: string; code: string; at: Date },
): Promise<number> {
  const { Attributes } = await store.doc.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: recordAttemptsKey(route, messageId),
      UpdateExpression:
        'ADD attempts :one SET lastCode = :code, lastFailedAt = :at, eventId = :eventId, #ttl = :ttl',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':one': 1,
        ':code': failure.code,
        ':at': failure.at.toISOString(),
        ':eventId': failure.eventId,
        ':ttl': epochSeconds(failure.at) + ATTEMPTS_TTL_SECONDS,
      },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.['attempts'] ?? 1);
}

/** Marks the record as given up: a later delivery of the same message is acknowledged as is. */
export async function markGaveUp(
  store: Store,
  route: string,
  messageId: string,
  gaveUp: { eventId: string; code: string; at: Date },
): Promise<void> {
  await store.doc.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: recordAttemptsKey(route, messageId),
      UpdateExpression: 'SET gaveUpAt = :at, lastCode = :code, eventId = :eventId, #ttl = :ttl',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':at': gaveUp.at.toISOString(),
        ':code': gaveUp.code,
        ':eventId': gaveUp.eventId,
        ':ttl': epochSeconds(gaveUp.at) + ATTEMPTS_TTL_SECONDS,
      },
    }),
  );
}
