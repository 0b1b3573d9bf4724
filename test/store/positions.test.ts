import { describe, expect, it } from 'vitest';
import { EventOrder, eventPosition } from '#functions/domain/event-order.ts';
import { positionKey } from '#functions/store/keys.ts';
import { advancePosition, comparePositions, readPositions } from '#functions/store/positions.ts';
import { useTestStore } from './support.ts';

const store = useTestStore();
let sequence = 0;
const newHostname = () => `positions-${++sequence}.us.sandbox.test`;
const at = new Date('2030-01-01T00:00:00Z');

const T1 = '2026-03-01T09:00:00.000000000Z';
const T2 = '2026-03-01T09:00:00.000000001Z';

function position(occurredAt: string, eventId: string) {
  return { occurredAt, eventId, detailType: 'EmployeeChanged' };
}

describe('comparePositions', () => {
  it('orders by occurredAt first, then by event id, and calls the same position equal', () => {
    // Assess
    expect(comparePositions({ occurredAt: T1, eventId: 'z' }, { occurredAt: T2, eventId: 'a' })).toBeLessThan(
      0,
    );
    expect(comparePositions({ occurredAt: T2, eventId: 'a' }, { occurredAt: T2, eventId: 'b' })).toBeLessThan(
      0,
    );
    expect(
      comparePositions({ occurredAt: T2, eventId: 'b' }, { occurredAt: T2, eventId: 'a' }),
    ).toBeGreaterThan(0);
    expect(comparePositions({ occurredAt: T2, eventId: 'a' }, { occurredAt: T2, eventId: 'a' })).toBe(0);
  });
});

describe('thing positions', () => {
  it('moves forward to a newer event and stays on the newest whatever order the writes come in', async () => {
    // Prepare
    const hostname = newHostname();

    // Act
    const newer = await advancePosition(store, hostname, 'plan', position(T2, 'evt-b'), at);
    const older = await advancePosition(store, hostname, 'plan', position(T1, 'evt-z'), at);
    const tieLowerId = await advancePosition(store, hostname, 'plan', position(T2, 'evt-a'), at);

    // Assess
    expect(newer).toEqual({ advanced: true });
    expect(older).toEqual({ advanced: false, held: { occurredAt: T2, eventId: 'evt-b' } });
    expect(tieLowerId).toEqual({ advanced: false, held: { occurredAt: T2, eventId: 'evt-b' } });
    expect(await readPositions(store, hostname, ['plan'])).toEqual(
      new Map([['plan', { occurredAt: T2, eventId: 'evt-b' }]]),
    );
  });

  it('takes the same position again (a redelivery of the applied event)', async () => {
    // Prepare
    const hostname = newHostname();
    await advancePosition(store, hostname, 'plan', position(T1, 'evt-a'), at);

    // Act
    const again = await advancePosition(store, hostname, 'plan', position(T1, 'evt-a'), at);

    // Assess
    expect(again).toEqual({ advanced: true });
  });

  it('reads several things in one range, only those asked for, and nothing for things never set', async () => {
    // Prepare
    const hostname = newHostname();
    const otherHostname = newHostname();
    for (const thing of [
      'budget#1#-#WAGE#2026-03-01',
      'budget#1#-#WAGE#2026-03-02',
      'budget#1#-#WAGE#2026-03-03',
      'budget#1#-#WAGE#2026-03-04',
      'budget#1#1#WAGE#2026-03-02',
    ]) {
      await advancePosition(store, hostname, thing, position(T1, `evt-${thing}`), at);
    }
    await advancePosition(store, otherHostname, 'budget#1#-#WAGE#2026-03-03', position(T2, 'evt-other'), at);

    // Act
    const held = await readPositions(store, hostname, [
      'budget#1#-#WAGE#2026-03-04',
      'budget#1#-#WAGE#2026-03-01',
      'budget#1#-#WAGE#2026-03-03',
      'budget#1#-#WAGE#2026-03-05',
    ]);

    // Assess: 03-02 lies in the range but was not asked for; 03-05 was never set.
    expect([...held.keys()].sort()).toEqual([
      'budget#1#-#WAGE#2026-03-01',
      'budget#1#-#WAGE#2026-03-03',
      'budget#1#-#WAGE#2026-03-04',
    ]);
    expect(held.get('budget#1#-#WAGE#2026-03-03')).toEqual({
      occurredAt: T1,
      eventId: 'evt-budget#1#-#WAGE#2026-03-03',
    });
  });

  it("keeps each install's positions in its own partition, under POSITION#", () => {
    // Assess
    expect(positionKey('h.us.sandbox.test', 'employee#2#payRate')).toEqual({
      pk: 'INSTALL#h.us.sandbox.test',
      sk: 'POSITION#employee#2#payRate',
    });
  });
});

describe('EventOrder', () => {
  it('fails with ORDER_CONFLICT when a newer position appears between its read and its write', async () => {
    // Prepare: read with nothing held; then another delivery records a newer event on the thing.
    const hostname = newHostname();
    const plan = { key: 'plan', field: 'plan' };
    const order = await EventOrder.read(
      store,
      hostname,
      { id: 'evt-a', detailType: 'PlanChosen', time: '2026-05-01T10:00:00Z' },
      {},
      [plan],
    );
    await advancePosition(store, hostname, 'plan', position('2026-05-01T10:00:01.000000000Z', 'evt-b'), at);

    // Act
    const applied = order.applied([plan], at);

    // Assess
    expect(order.applies(plan)).toBe(true);
    await expect(applied).rejects.toMatchObject({
      name: 'PermanentError',
      code: 'ORDER_CONFLICT',
      message: expect.stringContaining('evt-b'),
    });
  });

  it('with lastWriterWins off (a local run only), applies an older event after a newer one and keeps the position on the newer', async () => {
    // Prepare: the newer event on the plan was applied first.
    const hostname = newHostname();
    const plan = { key: 'plan', field: 'plan' };
    await advancePosition(store, hostname, 'plan', position('2026-05-01T10:00:01.000000000Z', 'evt-new'), at);

    // Act
    const order = await EventOrder.read(
      store,
      hostname,
      { id: 'evt-old', detailType: 'PlanChosen', time: '2026-05-01T10:00:00Z' },
      {},
      [plan],
      { lastWriterWins: false },
    );
    await order.applied([plan], at);

    // Assess: the older event may set the plan and is told nothing; the position does not go back.
    expect(order.applies(plan)).toBe(true);
    expect(order.syncSkipped()).toEqual([]);
    expect((await readPositions(store, hostname, ['plan'])).get('plan')?.eventId).toBe('evt-new');
  });

  it('takes the envelope time for an event without occurredAt, and occurredAt over it', async () => {
    // Assess
    expect(eventPosition({ id: 'e', time: '2026-05-01T10:00:00Z' }, {})).toEqual({
      occurredAt: '2026-05-01T10:00:00.000000000Z',
      eventId: 'e',
    });
    expect(
      eventPosition(
        { id: 'e', time: '2026-05-01T10:00:00Z' },
        { occurredAt: '2026-04-30T09:00:00.25-01:00' },
      ),
    ).toEqual({ occurredAt: '2026-04-30T10:00:00.250000000Z', eventId: 'e' });
  });
});
