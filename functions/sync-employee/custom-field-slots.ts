import { PermanentError } from '#functions/domain/errors.ts';
import type { InstallClient } from '#functions/service/install.ts';
import { type CustomFieldData, slotField } from '#functions/service/records/custom-fields.ts';
import { getSlot, listSlots, MAX_SLOTS, reserveSlot } from '#functions/store/slots.ts';
import type { Store } from '#functions/store/store.ts';

const SYSTEM = 'Employee';

/**
 * The connector's slot registry for employee custom fields of one install (store/slots.ts),
 * used within one event. The service does not validate slots and silently overwrites a slot in
 * use, so the connector never writes to a slot it has not reserved:
 *
 * - a known apiName → its registered slot, no service call;
 * - a new apiName → the install's custom field data is read once per event (all records) and the
 *   lowest slot is taken that holds no value on any record and is not reserved in the
 *   registry; the reservation is a conditional write, so of two concurrent allocations only one
 *   gets a slot (SLOT_TAKEN → the next slot; NAME_TAKEN → the slot the name already has).
 *
 * Residual risk: another integration of the same install may write a slot between our read and
 * our first write (or later), since the service offers no reservation of its own; the registry
 * cannot see those writes. Reading the install for every new apiName keeps that window short.
 */
export class EmployeeSlotRegistry {
  #takenInInstall: Set<number> | undefined;

  constructor(
    private readonly store: Store,
    private readonly install: InstallClient,
    private readonly at: () => Date,
  ) {}

  async slotFor(apiName: string): Promise<number> {
    const known = await getSlot(this.store, this.install.hostname, SYSTEM, apiName);
    return known ?? this.#allocate(apiName);
  }

  async #allocate(apiName: string): Promise<number> {
    const { hostname } = this.install;
    this.#takenInInstall ??= takenSlots(await this.install.listCustomFieldData());
    const reserved = new Set((await listSlots(this.store, hostname, SYSTEM)).map((entry) => entry.slot));
    for (let slot = 1; slot <= MAX_SLOTS; slot++) {
      if (this.#takenInInstall.has(slot) || reserved.has(slot)) continue;
      const reservation = await reserveSlot(this.store, hostname, SYSTEM, apiName, slot, this.at());
      if (reservation.reserved) return slot;
      if (reservation.reason === 'NAME_TAKEN') {
        // A concurrent delivery registered this name first: use its slot.
        const existing = reservation.existingSlot ?? (await getSlot(this.store, hostname, SYSTEM, apiName));
        if (existing !== undefined) return existing;
      }
    }
    throw new PermanentError(
      'CUSTOM_FIELD_SLOTS_EXHAUSTED',
      `no free employee custom field slot for ${apiName}: all ${MAX_SLOTS} slots of the install hold data or are reserved`,
    );
  }
}

/**
 * Slots holding a value on any custom field data record of the install. Only null or absent
 * count as free: an unticked checkbox is `false` and a cleared text field is '', and both still
 * belong to a field. Timesheet records are counted too although the spec gives each type its own
 * 128 slots: it also calls slots "shared across the whole install", and wasting a slot is
 * recoverable where overwriting another field's data is not.
 */
export function takenSlots(records: readonly CustomFieldData[]): Set<number> {
  const taken = new Set<number>();
  for (const record of records) {
    const slots = record as Record<string, unknown>;
    for (let slot = 1; slot <= MAX_SLOTS; slot++) {
      const value = slots[slotField(slot)];
      if (value !== null && value !== undefined) taken.add(slot);
    }
  }
  return taken;
}
