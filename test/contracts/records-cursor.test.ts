import { describe, expect, it } from 'vitest';
import { compareRecordIds, decodeCursor, encodeCursor } from '#functions/contracts/records-cursor.ts';
import { matches, serverCondition } from '#functions/read-records/read-records.ts';

const query = { resource: 'Employee', where: [{ field: 'LastName', op: 'lk', value: 'Le%' }] };

describe('the RecordsReported cursor', () => {
  it('gives back the id it was made from, for the same resource and where only', () => {
    // Act
    const cursor = encodeCursor(query, 'pr_us_base');

    // Assess
    expect(decodeCursor(cursor, query)).toEqual({ ok: true, after: 'pr_us_base' });
    expect(decodeCursor(cursor, { ...query, resource: 'PayRule' })).toMatchObject({ ok: false });
    expect(decodeCursor(cursor, { resource: 'Employee' })).toMatchObject({ ok: false });
    expect(decodeCursor('e30', query)).toEqual({ ok: false, reason: 'is not a cursor of a RecordsReported' });
  });

  it('orders numeric ids by value before text ids', () => {
    expect([10, 'b', 9, 'a', 100].sort(compareRecordIds)).toEqual([9, 10, 100, 'a', 'b']);
  });
});

describe('a where condition on a record', () => {
  it('reads lk as the whole text with % at its ends, case-insensitive, and eq as the exact value', () => {
    const record = { LastName: 'Lemaire', Id: 7, Active: true };
    const lk = (value: string) => matches(record, { field: 'LastName', op: 'lk', value });
    expect([lk('le%'), lk('%AIRE'), lk('%mai%'), lk('lemaire'), lk('Le'), lk('%le')]).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(matches(record, { field: 'Id', op: 'eq', value: '7' })).toBe(true);
    expect(matches(record, { field: 'Active', op: 'eq', value: true })).toBe(true);
    expect(matches(record, { field: 'Missing', op: 'eq', value: null })).toBe(false);
  });

  it('sends the service one condition: the first eq, else the first lk', () => {
    expect(
      serverCondition([
        { field: 'LastName', op: 'lk', value: 'Le%' },
        { field: 'Company', op: 'eq', value: 1 },
      ]),
    ).toEqual({ field: 'Company', type: 'eq', data: 1 });
    expect(serverCondition([{ field: 'LastName', op: 'lk', value: 'Le%' }])).toEqual({
      field: 'LastName',
      type: 'lk',
      data: 'Le%',
    });
    expect(serverCondition([])).toBeUndefined();
  });
});
