import * as z from 'zod';
import { QueryLimitReachedError, ResponseShapeError } from '#functions/domain/errors.ts';
import { DAY_MS } from '#functions/domain/time.ts';
import type { InstallClient } from './install.ts';

/**
 * The timesheets of a period, read with the install API's generic QUERY ("reading timesheets" is
 * named without a path: the resource and its date field are service assumptions).
 *
 * What the spec leaves open, and how the read stays right under every reading of it:
 * - How several conditions combine is not shown: each QUERY carries one condition (the date), and
 *   the employees and locations asked for are matched here on the answer.
 * - `lk` may answer broader matches than asked ("contains" in the spec-faithful reading, "starts
 *   with" when `%` ends the value): every answer's date is checked again against the period.
 * - No paging is shown and the most records one answer holds is not either: a period is read one
 *   calendar month at a time (`lk` on `YYYY-MM-%`); when the deployment knows that maximum
 *   (`queryMaxRecords`) and a month's answer reaches it, that month is read again one day at a
 *   time (`YYYY-MM-DD%`); a day that still reaches it fails with QUERY_LIMIT_REACHED rather than
 *   leave timesheets out in silence.
 */

export interface PeriodRead {
  /** YYYY-MM-DD, both included. */
  from: string;
  to: string;
  locationIds?: readonly number[];
  employeeIds?: readonly number[];
}

export interface TimesheetReadSettings {
  /** QUERY resource of timesheets (serviceAssumptions.timesheetResource). */
  resource: string;
  /** The field holding a timesheet's date (serviceAssumptions.timesheetDateField). */
  dateField: string;
}

export interface PeriodTimesheet {
  id: number;
  /** YYYY-MM-DD, the first ten characters of the date field. */
  date: string;
}

/** What is read of a timesheet to place it; the rest of the record is not needed here. */
const timesheetRecord = z.looseObject({
  Id: z.int().positive(),
  Employee: z.int().nullish(),
  _DPMetaData: z
    .looseObject({
      OperationalUnitInfo: z.looseObject({ Company: z.int().nullish() }).nullish(),
    })
    .nullish(),
});
type TimesheetRecord = z.output<typeof timesheetRecord>;

const DATE_PREFIX = /^\d{4}-\d{2}-\d{2}/;

/** Every day from `from` to `to` (YYYY-MM-DD), in order. */
export function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += DAY_MS) {
    days.push(new Date(at).toISOString().slice(0, 10));
  }
  return days;
}

/** The days of the period grouped by calendar month (YYYY-MM), in order. */
function monthsOf(from: string, to: string): Map<string, string[]> {
  const months = new Map<string, string[]>();
  for (const day of daysOf(from, to)) {
    const month = day.slice(0, 7);
    months.set(month, [...(months.get(month) ?? []), day]);
  }
  return months;
}

/**
 * The timesheets dated in the period (and of the locations / employees asked for), each once, in
 * date then id order.
 */
export async function timesheetsOfPeriod(
  install: InstallClient,
  period: PeriodRead,
  settings: TimesheetReadSettings,
): Promise<PeriodTimesheet[]> {
  const read = (prefix: string) =>
    install.queryComplete(
      settings.resource,
      { conditions: [{ field: settings.dateField, type: 'lk', data: `${prefix}%` }] },
      timesheetRecord,
    );
  const found = new Map<number, PeriodTimesheet>();
  const keep = (records: readonly TimesheetRecord[]) => {
    for (const record of records) {
      const date = dateOf(record, settings.dateField);
      if (date < period.from || date > period.to || !wanted(record, period)) continue;
      found.set(record.Id, { id: record.Id, date });
    }
  };
  for (const [month, days] of monthsOf(period.from, period.to)) {
    if (days.length === 1) {
      keep(await read(`${days[0]}`));
      continue;
    }
    try {
      keep(await read(`${month}-`));
    } catch (error) {
      if (!(error instanceof QueryLimitReachedError)) throw error;
      // The month's answer may have been cut: its days of the period, one answer each.
      for (const day of days) keep(await read(day));
    }
  }
  return [...found.values()].sort((a, b) => a.date.localeCompare(b.date) || a.id - b.id);
}

function dateOf(record: TimesheetRecord, field: string): string {
  const value = (record as Record<string, unknown>)[field];
  if (typeof value !== 'string' || !DATE_PREFIX.test(value)) {
    throw new ResponseShapeError(
      `timesheet ${record.Id}: ${field} is not a date (YYYY-MM-DD...), so its period cannot be told (serviceAssumptions.timesheetDateField)`,
    );
  }
  return value.slice(0, 10);
}

function wanted(record: TimesheetRecord, period: PeriodRead): boolean {
  if (period.employeeIds && !period.employeeIds.includes(record.Employee ?? 0)) return false;
  if (period.locationIds) {
    // The spec gives a timesheet's location in _DPMetaData.OperationalUnitInfo.Company.
    const location = record._DPMetaData?.OperationalUnitInfo?.Company;
    if (typeof location !== 'number') {
      throw new ResponseShapeError(
        `timesheet ${record.Id} names no location (_DPMetaData.OperationalUnitInfo.Company), so it cannot be matched to locationIds`,
      );
    }
    if (!period.locationIds.includes(location)) return false;
  }
  return true;
}
