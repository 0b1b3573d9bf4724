import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Store } from './store.ts';

/**
 * Every item one Query finds, page after page, each read by `read`: for the few small item sets
 * read whole (an install's location markers, the unconfirmed signups). Its own module: the bundle
 * test reads a function's DynamoDB actions from the store modules it carries (Query only where used).
 */
export async function queryAll<T>(
  store: Store,
  query: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
  read: (item: Record<string, unknown>) => T,
): Promise<T[]> {
  const found: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await store.doc.send(
      new QueryCommand({
        ...query,
        TableName: store.tableName,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const item of page.Items ?? []) found.push(read(item));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return found;
}
