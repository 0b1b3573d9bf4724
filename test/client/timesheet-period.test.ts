import { describe, expect, it } from 'vitest';
import { QueryLimitReachedError, ResponseShapeError } from '#functions/domain/errors.ts';
import type { InstallClient } from '#functions/service/install.ts';
import type { QueryOptions } from '#functions/service/install-query.ts';
import { daysOf, timesheetsOfPeriod } from '#functions/service/timesheet-period.ts';

const SETTINGS = { resource: 'Timesheet', dateField: 'Date' };

interface Timesheet {
  Id: number;
  Date: unknown;
  Employee?: number;
  _DPMetaData?: { OperationalUnitInfo?: { Company?: number } | null };
}

/**
 * An install whose QUERY reads `lk` as "contains" (the spec-faithful reading) and cuts every
 * answer at `max` records, telling the caller so as queryComplete does with queryMaxRecords.
 */
function installOf(timesheets: readonly Timesheet[], max = Number.POSITIVE_INFINITY) {
  const asked: string[] = [];
  const install = {
    hostname: 'period-1.us.sandbox.test',
    async queryComplete(resource: string, options: QueryOptions) {
      const [condition, ...others] = options.conditions ?? [];
      expect(others).toEqual([]);
      const pattern = String(condition?.data).replaceAll('%', '');
      asked.push(`${resource} ${condition?.field} ${condition?.type} ${condition?.data}`);
      const answer = timesheets.filter((sheet) => String(sheet.Date).includes(pattern));
      if (answer.length >= max) throw new QueryLimitReachedError(resource, max);
      return answer;
    },
  } as unknown as InstallClient;
  return { install, asked };
}

const sheet = (Id: number, date: string, Employee = 1, Company = 1): Timesheet => ({
  Id,
  Date: date,
  Employee,
  _DPMetaData: { OperationalUnitInfo: { Company } },
});

describe('timesheetsOfPeriod', () => {
  it('reads a period within one month with one QUERY of one condition and keeps only its days', async () => {
    // Prepare
    const { install, asked } = installOf([
      sheet(4, '2026-03-09'),
      sheet(1, '2026-03-02'),
      sheet(3, '2026-03-08T00:00:00'),
      sheet(2, '2026-03-05'),
      sheet(5, '2026-02-28'),
    ]);

    // Act
    const found = await timesheetsOfPeriod(install, { from: '2026-03-02', to: '2026-03-08' }, SETTINGS);

    // Assess
    expect(asked).toEqual(['Timesheet Date lk 2026-03-%']);
    expect(found).toEqual([
      { id: 1, date: '2026-03-02' },
      { id: 2, date: '2026-03-05' },
      { id: 3, date: '2026-03-08' },
    ]);
  });

  it('reads each calendar month of a period once, and a single day by its date', async () => {
    // Prepare
    const { install, asked } = installOf([sheet(1, '2026-01-31'), sheet(2, '2026-02-01')]);

    // Act
    const across = await timesheetsOfPeriod(install, { from: '2026-01-20', to: '2026-02-10' }, SETTINGS);
    const oneDay = await timesheetsOfPeriod(install, { from: '2026-02-01', to: '2026-02-01' }, SETTINGS);

    // Assess
    expect(across.map((found) => found.id)).toEqual([1, 2]);
    expect(oneDay.map((found) => found.id)).toEqual([2]);
    expect(asked).toEqual([
      'Timesheet Date lk 2026-01-%',
      'Timesheet Date lk 2026-02-%',
      'Timesheet Date lk 2026-02-01%',
    ]);
  });

  it('reads a month again day by day when its answer reaches the QUERY maximum', async () => {
    // Prepare: 4 timesheets in March, at most 3 per answer; 2 per day at most.
    const { install, asked } = installOf(
      [sheet(1, '2026-03-02'), sheet(2, '2026-03-02'), sheet(3, '2026-03-03'), sheet(4, '2026-03-20')],
      3,
    );

    // Act
    const found = await timesheetsOfPeriod(install, { from: '2026-03-01', to: '2026-03-03' }, SETTINGS);

    // Assess
    expect(found.map((timesheet) => timesheet.id)).toEqual([1, 2, 3]);
    expect(asked).toEqual([
      'Timesheet Date lk 2026-03-%',
      'Timesheet Date lk 2026-03-01%',
      'Timesheet Date lk 2026-03-02%',
      'Timesheet Date lk 2026-03-03%',
    ]);
  });

  it('fails with QUERY_LIMIT_REACHED when one day alone reaches the maximum', async () => {
    // Prepare
    const { install } = installOf([sheet(1, '2026-03-02'), sheet(2, '2026-03-02')], 2);

    // Act
    const reading = timesheetsOfPeriod(install, { from: '2026-03-01', to: '2026-03-03' }, SETTINGS);

    // Assess
    await expect(reading).rejects.toMatchObject({ code: 'QUERY_LIMIT_REACHED' });
  });

  it('keeps only the employees and locations asked for, matched on the answer', async () => {
    // Prepare
    const { install, asked } = installOf([
      sheet(1, '2026-03-02', 7, 1),
      sheet(2, '2026-03-02', 8, 1),
      sheet(3, '2026-03-03', 7, 2),
    ]);

    // Act
    const byEmployee = await timesheetsOfPeriod(
      install,
      { from: '2026-03-01', to: '2026-03-31', employeeIds: [7] },
      SETTINGS,
    );
    const byBoth = await timesheetsOfPeriod(
      install,
      { from: '2026-03-01', to: '2026-03-31', employeeIds: [7], locationIds: [2] },
      SETTINGS,
    );

    // Assess: still one condition per QUERY (how several combine is not shown).
    expect(byEmployee.map((found) => found.id)).toEqual([1, 3]);
    expect(byBoth.map((found) => found.id)).toEqual([3]);
    expect(asked).toEqual(['Timesheet Date lk 2026-03-%', 'Timesheet Date lk 2026-03-%']);
  });

  it('refuses an answer whose date cannot be read, or whose location is missing when locations are asked for', async () => {
    // Prepare: a date the `lk` matched ("contains") that does not start with the day.
    const undated = installOf([{ Id: 9, Date: 'Mon 2026-03-02' }]).install;
    const placeless = installOf([{ Id: 8, Date: '2026-03-02', Employee: 1 }]).install;

    // Act
    const readUndated = timesheetsOfPeriod(undated, { from: '2026-03-01', to: '2026-03-02' }, SETTINGS);
    const readPlaceless = timesheetsOfPeriod(
      placeless,
      { from: '2026-03-01', to: '2026-03-02', locationIds: [1] },
      SETTINGS,
    );

    // Assess
    await expect(readUndated).rejects.toBeInstanceOf(ResponseShapeError);
    await expect(readUndated).rejects.toThrow(/timesheet 9: Date is not a date/);
    await expect(readPlaceless).rejects.toThrow(/timesheet 8 names no location/);
  });

  it('lists the days of a period across a month end and a leap day', () => {
    expect(daysOf('2028-02-28', '2028-03-01')).toEqual(['2028-02-28', '2028-02-29', '2028-03-01']);
  });
});
