import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { installPartition, POSITION_PREFIX, positionKey } from './keys.ts';
import { conflictingItem, isConditionalCheckFailure, normalizeTimestamp, type Store } from './store.ts';

/**
 * Per thing an inbound event sets (a business's plan, one employee field, one budget cell, one
 * location), the position of the last event applied to it: its `occurredAt` as a fixed-width UTC
 * key (contracts/date-time.ts `instantKey`), then its event id to break a tie. Positions only move
 * forward: a write is conditional on the stored position being older than, or the same as, the
 * one written, so whatever order events are handled in, the item ends at the newest applied one.
 *
 * One item per thing, in the install's partition (`INSTALL#<hostname>` / `POSITION#<thing>`): a
 * thing belongs to the install it was set in (a re-provisioned account starts afresh). No TTL: an
 * older event may come back as late as the archive keeps events (a replay), so a position is kept
 * as long as the thing exists. Items are small (≈ 150 bytes); a year of daily budgets of one
 * location and kind is 365 of them.
 */

/** Where an event stands among the events of one thing. */
export interface Position {
  /** `instantKey` of the event's occurredAt (or of its EventBridge time when it had none). */
  readonly occurredAt: string;
  readonly eventId: string;
}

/** Negative when `a` is older than `b`, 0 when it is the same event, positive when newer. */
export function comparePositions(a: Position, b: Position): number {
  if (a.occurredAt !== b.occurredAt) return a.occurredAt < b.occurredAt ? -1 : 1;
  if (a.eventId !== b.eventId) return a.eventId < b.eventId ? -1 : 1;
  return 0;
}

const positionItemSchema = z.object({
  sk: z.string(),
  occurredAt: z.string(),
  eventId: z.string(),
});

function thingOf(sk: string): string {
  return sk.slice(POSITION_PREFIX.length);
}

/**
 * The positions held for `things` (absent: nothing applied to it yet), read consistently. One
 * thing is one GetItem; several are one Query over the range of their keys (an employee's things
 * share a prefix, a budget's days sort by date), filtered to those asked for.
 */
export async function readPositions(
  store: Store,
  hostname: string,
  things: readonly string[],
): Promise<Map<string, Position>> {
  const wanted = [...new Set(things)].sort();
  const held = new Map<string, Position>();
  const [first] = wanted;
  const last = wanted.at(-1);
  if (first === undefined || last === undefined) return held;
  if (wanted.length === 1) {
    const { Item } = await store.doc.send(
      new GetCommand({ TableName: store.tableName, Key: positionKey(hostname, first), ConsistentRead: true }),
    );
    if (Item) {
      const item = positionItemSchema.parse(Item);
      held.set(first, { occurredAt: item.occurredAt, eventId: item.eventId });
    }
    return held;
  }
  const asked = new Set(wanted);
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await store.doc.send(
      new QueryCommand({
        TableName: store.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
        ExpressionAttributeValues: {
          ':pk': installPartition(hostname),
          ':first': positionKey(hostname, first).sk,
          ':last': positionKey(hostname, last).sk,
        },
        ConsistentRead: true,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const raw of page.Items ?? []) {
      const item = positionItemSchema.parse(raw);
      const thing = thingOf(item.sk);
      if (asked.has(thing)) held.set(thing, { occurredAt: item.occurredAt, eventId: item.eventId });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return held;
}

export type Advance = { advanced: true } | { advanced: false; held: Position };

/**
 * Records that the event at `position` was applied to `thing`, unless a newer event's position is
 * held there (then nothing is written and that position is returned). Writing the same position
 * again (a redelivery of the applied event) succeeds.
 */
export async function advancePosition(
  store: Store,
  hostname: string,
  thing: string,
  position: Position & { readonly detailType: string },
  at: Date,
): Promise<Advance> {
  try {
    await store.doc.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: positionKey(hostname, thing),
        UpdateExpression:
          'SET #type = :type, occurredAt = :occurredAt, eventId = :eventId, detailType = :detailType, appliedAt = :at',
        ConditionExpression:
          'attribute_not_exists(pk) OR occurredAt < :occurredAt OR (occurredAt = :occurredAt AND eventId <= :eventId)',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: {
          ':type': 'Position',
          ':occurredAt': position.occurredAt,
          ':eventId': position.eventId,
          ':detailType': position.detailType,
          ':at': normalizeTimestamp(at),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { advanced: true };
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
    const returned = conflictingItem(error.Item);
    const held = returned
      ? positionItemSchema.parse(returned)
      : (await readPositions(store, hostname, [thing])).get(thing);
    if (!held) throw error;
    return { advanced: false, held: { occurredAt: held.occurredAt, eventId: held.eventId } };
  }
}
