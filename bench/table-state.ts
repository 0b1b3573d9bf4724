import {
  type AttributeValue,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { tableDefinition } from '#functions/store/table.ts';
import { withPutBack } from './put-back.ts';

/**
 * The table as a handler found it, so its raw replay can start from the same state.
 *
 * A raw replay sends the handler's requests again. Sent onto the items the handler had just written,
 * its conditional writes would be refused, and a refused write costs the table less than a stored
 * one. Making the conditions hold instead (`(cond) OR attribute_not_exists(#never)`) was the first
 * answer, and it was wrong the other way: dynalite parses and evaluates the longer expression more
 * slowly, so the raw side was slower than any raw client meeting the handler's state (measured
 * by hand: 1–3 ms per event on three flows, about as much as the connector's own overhead). Now
 * the bench puts back, before each replay, the items the handler wrote as they were before it ran
 * (their before-images), replays every request as it was sent, and then puts back what the
 * handler left, so the next event meets the handler's state, not the replay's.
 */

type Item = Record<string, AttributeValue>;

/** One item of the table: its key, and the whole item, or undefined where there was none. */
export interface ItemImage {
  readonly key: Item;
  readonly item: Item | undefined;
}

/** A DynamoDB request as the bench recorded it: the SDK command name (`PutItemCommand`) or the wire target (`PutItem`). */
interface WriteLike {
  readonly system: string;
  readonly operation: string;
  readonly input?: unknown;
}

type Write = { TableName?: string; Key?: Item; Item?: Item };

/** The single writes of one request: one for PutItem/UpdateItem/DeleteItem, each write of a transaction or batch. */
function writesOf(request: WriteLike): Write[] {
  if (request.system !== 'dynamodb') return [];
  const input = (request.input ?? {}) as Record<string, unknown>;
  switch (request.operation.replace(/Command$/, '')) {
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [input as Write];
    case 'TransactWriteItems':
      // A ConditionCheck writes nothing.
      return ((input['TransactItems'] ?? []) as Array<Record<string, Write>>).flatMap((action) =>
        ['Put', 'Update', 'Delete'].flatMap((kind) => (action[kind] ? [action[kind]] : [])),
      );
    case 'BatchWriteItem':
      return Object.entries(
        (input['RequestItems'] ?? {}) as Record<string, Array<Record<string, Write>>>,
      ).flatMap(([TableName, writes]) =>
        writes.map((write) => ({
          TableName,
          Item: write['PutRequest']?.Item,
          Key: write['DeleteRequest']?.Key,
        })),
      );
    default:
      return [];
  }
}

export class TableState {
  readonly #items: Map<string, Item>;

  private constructor(
    private readonly client: DynamoDBClient,
    readonly tableName: string,
    private readonly keyNames: readonly string[],
    items: Map<string, Item>,
  ) {
    this.#items = items;
  }

  /** The whole table, read now (a consistent scan); its key is the connector's (`tableDefinition`). */
  static async read(client: DynamoDBClient, tableName: string): Promise<TableState> {
    const keyNames = [tableDefinition.partitionKey.name, tableDefinition.sortKey.name];
    const state = new TableState(client, tableName, keyNames, new Map());
    let start: Item | undefined;
    do {
      const page = await client.send(
        new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey: start }),
      );
      for (const item of page.Items ?? []) state.#items.set(state.#identity(item), item);
      start = page.LastEvaluatedKey;
    } while (start);
    return state;
  }

  #identity(item: Item): string {
    return JSON.stringify(this.keyNames.map((name) => item[name]));
  }

  #keyOf(item: Item): Item {
    return Object.fromEntries(this.keyNames.map((name) => [name, item[name] as AttributeValue]));
  }

  /** The keys of the items `requests` wrote to this table (each once, in the order first written). */
  keysWrittenBy(requests: readonly WriteLike[]): Item[] {
    const keys = new Map<string, Item>();
    for (const write of requests.flatMap(writesOf)) {
      if (write.TableName !== this.tableName) continue;
      const key = write.Key ?? (write.Item ? this.#keyOf(write.Item) : undefined);
      if (key) keys.set(this.#identity(key), key);
    }
    return [...keys.values()];
  }

  /** The items at `keys` as this state holds them. */
  imagesOf(keys: readonly Item[]): ItemImage[] {
    return keys.map((key) => ({ key, item: this.#items.get(this.#identity(key)) }));
  }

  /** The items at `keys` as the table holds them now (consistent reads). */
  async current(keys: readonly Item[]): Promise<ItemImage[]> {
    return Promise.all(
      keys.map(async (key) => {
        const read = await this.client.send(
          new GetItemCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
        );
        return { key, item: read.Item };
      }),
    );
  }

  /** Writes `images` to the table: each item as it was, or no item where there was none. */
  async putBack(images: readonly ItemImage[]): Promise<void> {
    await Promise.all(
      images.map(({ key, item }) =>
        item
          ? this.client.send(new PutItemCommand({ TableName: this.tableName, Item: item }))
          : this.client.send(new DeleteItemCommand({ TableName: this.tableName, Key: key })),
      ),
    );
  }

  /** Takes `images` as the state's own (what the table now holds at their keys). */
  remember(images: readonly ItemImage[]): void {
    for (const { key, item } of images) {
      if (item) this.#items.set(this.#identity(key), item);
      else this.#items.delete(this.#identity(key));
    }
  }
}

/**
 * Runs `replay` with the table holding `images` (before-images: what a recorded handler found), then
 * puts back what the table held at their keys before, and takes that into `state`.
 */
export async function replayedFrom<T>(
  state: TableState,
  images: readonly ItemImage[],
  replay: () => Promise<T>,
): Promise<T> {
  const left = await state.current(images.map((image) => image.key));
  return withPutBack('the replay and putting the table back', {
    setUp: () => state.putBack(images),
    run: replay,
    restore: async () => {
      await state.putBack(left);
      state.remember(left);
    },
  });
}

/**
 * Runs `replay` from the state a handler met, right after it ran: the items it wrote are put back as
 * `state` holds them (before it ran), the replay runs, and then the handler's own result is put back
 * and taken into `state`, which so stays the table's state for the next event.
 */
export function fromStateMet<T>(
  state: TableState,
  handlerRequests: readonly WriteLike[],
  replay: () => Promise<T>,
): Promise<T> {
  return replayedFrom(state, state.imagesOf(state.keysWrittenBy(handlerRequests)), replay);
}
