import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import {
  type CustomFieldSystem,
  installPartition,
  slotNameKey,
  slotNamePrefix,
  slotNumberKey,
} from './keys.ts';
import { CONDITIONAL_CHECK_FAILED, cancellationReasons, conflictingItem, type Store } from './store.ts';

export type { CustomFieldSystem };

/** The service offers F01..F128 per system and install, shared by every integration of the install. */
export const MAX_SLOTS = 128;

const slotSchema = z.object({ apiName: z.string(), slot: z.number().int() });

export interface SlotAssignment {
  apiName: string;
  slot: number;
}

export type SlotReservation =
  | { reserved: true }
  | { reserved: false; reason: 'SLOT_TAKEN' }
  | { reserved: false; reason: 'NAME_TAKEN'; existingSlot?: number };

function assertSlotNumber(slot: number): void {
  if (!Number.isInteger(slot) || slot < 1 || slot > MAX_SLOTS) {
    throw new RangeError(`custom field slot must be 1..${MAX_SLOTS}, got ${slot}`);
  }
}

export async function getSlot(
  store: Store,
  hostname: string,
  system: CustomFieldSystem,
  apiName: string,
): Promise<number | undefined> {
  const { Item } = await store.doc.send(
    new GetCommand({
      TableName: store.tableName,
      Key: slotNameKey(hostname, system, apiName),
      ConsistentRead: true,
    }),
  );
  return Item ? slotSchema.parse(Item).slot : undefined;
}

/** Every slot this connector holds in the install for one system, in one Query (≤ 128 small items). */
export async function listSlots(
  store: Store,
  hostname: string,
  system: CustomFieldSystem,
): Promise<SlotAssignment[]> {
  const { Items } = await store.doc.send(
    new QueryCommand({
      TableName: store.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': installPartition(hostname), ':prefix': slotNamePrefix(system) },
      ConsistentRead: true,
    }),
  );
  return (Items ?? [])
    .map((item) => {
      const { apiName, slot } = slotSchema.parse(item);
      return { apiName, slot };
    })
    .sort((a, b) => a.slot - b.slot);
}

/**
 * Reserves `slot` for `apiName` with two items written in one transaction: name → slot and
 * slot → name, each only if absent. Two concurrent allocations therefore never share a slot
 * (the slot item refuses the second) and one name never gets two slots (the name item refuses).
 * Both conditions are reported; a name conflict wins because the caller then simply uses the
 * slot the name already has.
 */
export async function reserveSlot(
  store: Store,
  hostname: string,
  system: CustomFieldSystem,
  apiName: string,
  slot: number,
  at: Date = new Date(),
): Promise<SlotReservation> {
  assertSlotNumber(slot);
  const common = { type: 'CustomFieldSlot', hostname, system, apiName, slot, reservedAt: at.toISOString() };
  try {
    await store.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: store.tableName,
              Item: { ...slotNameKey(hostname, system, apiName), ...common },
              ConditionExpression: 'attribute_not_exists(pk)',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          {
            Put: {
              TableName: store.tableName,
              Item: { ...slotNumberKey(hostname, system, slot), ...common },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
    return { reserved: true };
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    const [nameReason, slotReason] = reasons;
    if (nameReason?.Code === CONDITIONAL_CHECK_FAILED) {
      const held = slotSchema.safeParse(conflictingItem(nameReason.Item));
      const existingSlot = held.success ? held.data.slot : await getSlot(store, hostname, system, apiName);
      return existingSlot === undefined
        ? { reserved: false, reason: 'NAME_TAKEN' }
        : { reserved: false, reason: 'NAME_TAKEN', existingSlot };
    }
    if (slotReason?.Code === CONDITIONAL_CHECK_FAILED) return { reserved: false, reason: 'SLOT_TAKEN' };
    throw error;
  }
}
