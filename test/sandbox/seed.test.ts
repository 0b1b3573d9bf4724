import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { awardLibrary, createInstall, rowsOf, type SeedFile } from '#sandbox/seed.ts';
import { formatSnapshot, SNAPSHOT_FILE, seedSnapshot } from './seed-snapshot.ts';

/**
 * The seed is what connector tests across the repository name by id: moving it between files, or
 * reshaping the code that loads it, must leave every install record as it was, field for field and
 * in the same key order (test/sandbox/seed-snapshot.ts says how the fixture was made).
 */
const expected = JSON.parse(readFileSync(SNAPSHOT_FILE, 'utf8')) as Record<string, unknown>;
const actual = seedSnapshot();

describe('sandbox seed', () => {
  it("covers every region with the spec's seed (strict) and the lenient one (default), and the award library", () => {
    // Assess
    expect(Object.keys(actual)).toEqual([
      'us/default',
      'us/strict',
      'uk/default',
      'uk/strict',
      'au/default',
      'au/strict',
      'awardLibrary',
    ]);
    expect(Object.keys(expected)).toEqual(Object.keys(actual));
  });

  it.each(Object.keys(expected))('seeds %s exactly as the snapshot, field values and key order', (name) => {
    // Act
    const seeded = actual[name];

    // Assess
    expect(seeded).toStrictEqual(expected[name]);
    expect(formatSnapshot(seeded)).toBe(formatSnapshot(expected[name]));
  });

  it("gives each install its own records: a write to one install's seed leaves the next install's as seeded", () => {
    // Prepare
    const first = createInstall('first-1.us.sandbox.test', 'us');
    const agreement = first.tables.EmployeeAgreement[0];
    const payRule = first.tables.PayRule[0];
    const customFields = first.tables.CustomFieldData[1];
    const award = awardLibrary()[0];

    // Act
    if (agreement) agreement.Active = false;
    if (payRule) payRule.HourlyRate = 999;
    if (customFields) customFields.F01 = 'changed';
    if (award) award.SvcEmploymentContract.Name = 'changed';
    const second = createInstall('second-1.us.sandbox.test', 'us');

    // Assess
    expect(agreement?.Active).toBe(false);
    expect(second.tables.EmployeeAgreement[0]?.Active).toBe(true);
    expect(second.tables.PayRule[0]?.HourlyRate).toBe(18.5);
    expect(second.tables.CustomFieldData[1]?.F01).toBe('Yes, Manager Requested');
    expect(awardLibrary()[0]?.SvcEmploymentContract.Name).toBe('Retail Employee Level 1');
  });
});

describe("a seed file's strict changes", () => {
  const file: SeedFile<{ Id: number; Name?: string; Note?: string }> = {
    records: [
      { Id: 1, Name: 'one', Note: 'a' },
      { Id: 2, Name: 'two' },
    ],
    strict: { change: [{ Id: 2, Note: 'b' }] },
  };

  it("apply only to the spec's seed, the change's fields first, the rest as seeded", () => {
    expect(rowsOf(file, false, 'f')).toEqual(file.records);
    expect(Object.keys(rowsOf(file, true, 'f')[1] ?? {})).toEqual(['Id', 'Note', 'Name']);
  });

  it('refuse a field no record of the file has: a misspelt field would otherwise pass unseen', () => {
    const misspelt = { ...file, strict: { change: [{ Id: 2, Nmae: 'x' } as { Id: number }] } };

    expect(() => rowsOf(misspelt, true, 'f')).toThrow(
      /strict.change of Id 2 names Nmae, a field no record of the file has/,
    );
    expect(rowsOf(misspelt, true, 'f', { anyField: true })[1]).toMatchObject({ Nmae: 'x' });
  });
});
