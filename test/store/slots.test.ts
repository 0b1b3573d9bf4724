import { describe, expect, it } from 'vitest';
import { getSlot, listSlots, MAX_SLOTS, reserveSlot } from '#functions/store/slots.ts';
import { useTestStore } from './support.ts';

const store = useTestStore();
let sequence = 0;
const newHostname = () => `install-${++sequence}.us.sandbox.test`;

describe('slot registry', () => {
  it('reserves a free slot and finds it by api name', async () => {
    // Prepare
    const hostname = newHostname();

    // Act
    const reservation = await reserveSlot(store, hostname, 'Employee', 'badgeNumber', 7);

    // Assess
    expect(reservation).toEqual({ reserved: true });
    expect(await getSlot(store, hostname, 'Employee', 'badgeNumber')).toBe(7);
  });

  it('answers undefined for a name that holds no slot', async () => {
    // Prepare
    const hostname = newHostname();

    // Act
    const slot = await getSlot(store, hostname, 'Employee', 'unknown');

    // Assess
    expect(slot).toBeUndefined();
  });

  it('lists the slots of one system only, ordered by slot', async () => {
    // Prepare
    const hostname = newHostname();
    await reserveSlot(store, hostname, 'Employee', 'shoeSize', 3);
    await reserveSlot(store, hostname, 'Employee', 'badgeNumber', 1);
    await reserveSlot(store, hostname, 'Timesheet', 'consent', 1);

    // Act
    const employeeSlots = await listSlots(store, hostname, 'Employee');

    // Assess
    expect(employeeSlots).toEqual([
      { apiName: 'badgeNumber', slot: 1 },
      { apiName: 'shoeSize', slot: 3 },
    ]);
  });

  it('keeps the same slot number independent between Employee and Timesheet', async () => {
    // Prepare
    const hostname = newHostname();
    await reserveSlot(store, hostname, 'Employee', 'badgeNumber', 5);

    // Act
    const reservation = await reserveSlot(store, hostname, 'Timesheet', 'consent', 5);

    // Assess
    expect(reservation).toEqual({ reserved: true });
  });

  it('gives a contested slot to exactly one of two concurrent names', async () => {
    // Prepare
    const hostname = newHostname();

    // Act
    const results = await Promise.all([
      reserveSlot(store, hostname, 'Employee', 'badgeNumber', 9),
      reserveSlot(store, hostname, 'Employee', 'shoeSize', 9),
    ]);

    // Assess
    expect(results.filter((result) => result.reserved)).toHaveLength(1);
    expect(results.find((result) => !result.reserved)).toEqual({ reserved: false, reason: 'SLOT_TAKEN' });
    expect(await listSlots(store, hostname, 'Employee')).toHaveLength(1);
  });

  it('gives one name exactly one slot when two deliveries allocate it concurrently', async () => {
    // Prepare
    const hostname = newHostname();

    // Act
    const results = await Promise.all([
      reserveSlot(store, hostname, 'Employee', 'badgeNumber', 10),
      reserveSlot(store, hostname, 'Employee', 'badgeNumber', 11),
    ]);

    // Assess
    const winner = results.findIndex((result) => result.reserved);
    const winningSlot = winner === 0 ? 10 : 11;
    expect(results.filter((result) => result.reserved)).toHaveLength(1);
    expect(results.find((result) => !result.reserved)).toEqual({
      reserved: false,
      reason: 'NAME_TAKEN',
      existingSlot: winningSlot,
    });
    expect(await listSlots(store, hostname, 'Employee')).toEqual([
      { apiName: 'badgeNumber', slot: winningSlot },
    ]);
  });

  it('leaves the losing slot free for the next name after a name conflict', async () => {
    // Prepare
    const hostname = newHostname();
    await reserveSlot(store, hostname, 'Employee', 'badgeNumber', 1);
    await reserveSlot(store, hostname, 'Employee', 'badgeNumber', 2);

    // Act
    const reservation = await reserveSlot(store, hostname, 'Employee', 'shoeSize', 2);

    // Assess
    expect(reservation).toEqual({ reserved: true });
  });

  it('refuses slot numbers outside F01..F128', async () => {
    // Prepare
    const hostname = newHostname();

    // Act
    const outOfRange = [0, MAX_SLOTS + 1, 1.5].map((slot) =>
      reserveSlot(store, hostname, 'Employee', 'x', slot),
    );

    // Assess
    for (const attempt of outOfRange) await expect(attempt).rejects.toThrow(RangeError);
  });
});
