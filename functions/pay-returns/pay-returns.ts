import type { PayReturnsRequestedDetail } from '#functions/contracts/inbound/pay-returns-requested.ts';
import type {
  PayLine,
  PayReturnsReadyDetail,
  TimesheetContext,
} from '#functions/contracts/outbound/pay-returns-ready.ts';
import { ResponseShapeError, ServiceRejectedError } from '#functions/domain/errors.ts';
import { provisionedBusinessOf } from '#functions/domain/provisioned-business.ts';
import { serviceRejection } from '#functions/domain/service-rejection.ts';
import { MAX_ENTRY_BYTES, type OutboundEvent } from '#functions/publisher/publisher.ts';
import { mapWithConcurrency } from '#functions/runtime/concurrency.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import type { UseCaseInput } from '#functions/runtime/use-case.ts';
import type { InstallClient } from '#functions/service/install.ts';
import {
  type CustomFieldData,
  customFieldDataSchema,
  FAIR_WORK_WEEK_VALUES,
  scheduleChangeFieldNames,
} from '#functions/service/records/custom-fields.ts';
import {
  type JoinedTimesheetPayReturn,
  PAY_RULE_CONFIG_KEYS,
  type TimesheetObject,
} from '#functions/service/records/timesheet-pay-returns.ts';
import { recordSyncSuccess } from '#functions/store/business.ts';
import { periodOf, publishPeriodAnswer, timesheetIdsOfPeriod } from './pay-period.ts';

/** Timesheets read at once: one QUERY each, kept small so one record cannot flood the install. */
export const PAY_RETURN_QUERY_CONCURRENCY = 4;

/** EventBridge counts Source, DetailType, Detail and 14 bytes for Time; this leaves room for them. */
const ENVELOPE_ALLOWANCE_BYTES = 1024;

/** Config keys the spec names for PayRuleObject.Config; a trimmed premium keeps only these. */
const SPEC_CONFIG_KEYS: ReadonlySet<string> = new Set(PAY_RULE_CONFIG_KEYS);

/**
 * readPayReturns — PayReturnsRequested → one joined TimesheetPayReturn QUERY per timesheet →
 * one PayReturnsReady per timesheet (and, for a period, one PayReturnsCompleted after them).
 *
 * Input: the PayReturnsRequested detail (accountId, and timesheetIds 1–100, or a period `from`–`to`
 * of up to 31 days with optional locationIds / employeeIds).
 * Output: one `PayReturnsReady` {hostname, timesheetId, timesheet?, lines, totals, truncated?} per
 * timesheet, in the order requested; `timesheet` (employee, date, shift, area and location,
 * scheduleChangeAnswers?) is absent when there are no pay lines to read it from, and such a
 * timesheet gets empty lines and zero totals.
 *
 * Steps:
 * 1. Resolve the account's install from the table (never from the event); no ACTIVE business →
 *    waits, fails or counts as provisionedBusinessOf says (domain/provisioned-business.ts).
 *    A period: its timesheets first (pay-period.ts, timesheetsOfPeriod: one QUERY per calendar
 *    month, by day when a month's answer may be cut), at most 100 (more → SyncFailed
 *    PERIOD_TOO_LARGE); each then gets steps 2–6 as an id asked for.
 * 2. Per timesheet, getPayReturns (QUERY with TimesheetObject and PayRuleObject joined; up to
 *    PAY_RETURN_QUERY_CONCURRENCY at once). A refusal → SyncFailed with the service's code.
 * 3. Normalize each line (payRuleLine); schedule-change premium lines (EventIds not null) carry
 *    the decoded event ids, the rule's eventTypes and its decoded Config.
 * 4. The timesheet's context from the joined TimesheetObject: employee, date, shift, area and its
 *    location; when a line is a schedule-change premium, the timesheet's schedule-change answers
 *    (its custom field data: expanded in the answer, or one QUERY by id), kept as given.
 * 5. Totals over every line, rounded to 4 decimals to drop float noise.
 * 6. Fit each event under EventBridge's 256 KB entry limit (fitToEntryLimit): premium configs are
 *    first trimmed to the keys the spec names, then trailing lines are cut; either sets
 *    `truncated: true` while totals still cover every line.
 * 7. A period: the PayReturnsReady events are published here, then PayReturnsCompleted once per
 *    request (pay-period.ts, publishPeriodAnswer). Any failure before that (a refusal of one
 *    timesheet's pay returns included) fails the request whole: SyncFailed naming the timesheet
 *    and the service's code, and no PayReturnsCompleted, so a partial set is never called whole.
 */
export async function readPayReturns(
  { event, detail }: UseCaseInput<PayReturnsRequestedDetail>,
  dependencies: Dependencies,
): Promise<OutboundEvent[]> {
  const { store, service, clock } = dependencies;
  const business = await provisionedBusinessOf(store, detail.accountId);
  const install = service.install(business.hostname);
  if (detail.timesheetIds !== undefined) {
    const events = await readyEventsOf(install, detail.accountId, detail.timesheetIds, dependencies);
    await recordSyncSuccess(store, detail.accountId, clock.now());
    return events;
  }
  // The period form (the contract allows no third): its timesheets, then the same answer for each.
  const period = periodOf(detail);
  const timesheetIds = await timesheetIdsOfPeriod(install, period, dependencies);
  const events = await readyEventsOf(install, detail.accountId, timesheetIds, dependencies);
  await recordSyncSuccess(store, detail.accountId, clock.now());
  return publishPeriodAnswer(dependencies, {
    eventId: event.id,
    accountId: detail.accountId,
    hostname: business.hostname,
    period,
    timesheetIds,
    ready: events,
  });
}

/** One PayReturnsReady per timesheet, in the order given (steps 2–6 above). */
async function readyEventsOf(
  install: InstallClient,
  accountId: string,
  timesheetIds: readonly number[],
  { config }: Dependencies,
): Promise<OutboundEvent[]> {
  const perTimesheet = await mapWithConcurrency(timesheetIds, PAY_RETURN_QUERY_CONCURRENCY, async (id) => {
    const records = await payReturnsOf(install, id);
    return { records, context: await timesheetContextOf(install, records) };
  });

  const events = timesheetIds.map((timesheetId, index) => {
    const read = perTimesheet[index];
    const lines = (read?.records ?? []).map(payRuleLine);
    const ready: ReadyDetail = {
      accountId,
      hostname: install.hostname,
      timesheetId,
      ...(read?.context ? { timesheet: read.context } : {}),
      lines,
      totals: totalsOf(lines),
    };
    return { detailType: 'PayReturnsReady', detail: ready };
  });
  const overhead = Buffer.byteLength(config.outboundSource) + Buffer.byteLength('PayReturnsReady');
  return events.map((event) => ({
    detailType: event.detailType,
    detail: fitToEntryLimit(event.detail, MAX_ENTRY_BYTES - overhead - ENVELOPE_ALLOWANCE_BYTES),
  }));
}

async function payReturnsOf(
  install: InstallClient,
  timesheetId: number,
): Promise<JoinedTimesheetPayReturn[]> {
  try {
    return await install.getPayReturns(timesheetId);
  } catch (error) {
    if (error instanceof ServiceRejectedError) {
      throw serviceRejection(`pay returns of timesheet ${timesheetId}`, error);
    }
    throw error;
  }
}

/** The names of the timesheet custom fields that explain schedule-change premiums. */
const SCHEDULE_CHANGE_ANSWER_FIELDS: readonly string[] = [
  ...Object.keys(FAIR_WORK_WEEK_VALUES),
  ...scheduleChangeFieldNames,
];

/**
 * What the pay lines of one timesheet are about, from the TimesheetObject joined to them (every
 * line joins the same timesheet). Its schedule-change answers are read only when a line is a
 * schedule-change premium: the custom field data record is expanded in the answer, or named by id
 * and read with one QUERY. An answer the service adds later, or a value it starts to use, is kept.
 */
async function timesheetContextOf(
  install: InstallClient,
  records: readonly JoinedTimesheetPayReturn[],
): Promise<TimesheetContext | undefined> {
  const timesheet = records[0]?.TimesheetObject;
  if (!timesheet) return undefined;
  const context: TimesheetContext = { employeeId: timesheet.Employee, ...shiftOf(timesheet) };
  if (records.some((record) => record.EventIds !== null)) {
    const answers = answersOf(await customFieldDataOf(install, timesheet));
    if (answers) context.scheduleChangeAnswers = answers;
  }
  return context;
}

function shiftOf(timesheet: TimesheetObject): Omit<TimesheetContext, 'employeeId'> {
  const unit = timesheet._DPMetaData.OperationalUnitInfo;
  const iso = (seconds: number | null | undefined) =>
    typeof seconds === 'number' && Number.isFinite(seconds)
      ? new Date(seconds * 1000).toISOString()
      : undefined;
  const start = iso(timesheet.StartTime);
  const end = iso(timesheet.EndTime);
  const areaId = timesheet.OperationalUnit ?? unit?.Id;
  return {
    ...(typeof timesheet.Date === 'string' ? { date: timesheet.Date } : {}),
    ...(start ? { start } : {}),
    ...(end ? { end } : {}),
    ...(typeof areaId === 'number' && areaId > 0 ? { areaId } : {}),
    ...(unit?.OperationalUnitName ? { areaName: unit.OperationalUnitName } : {}),
    ...(typeof unit?.Company === 'number' && unit.Company > 0 ? { locationId: unit.Company } : {}),
    ...(unit?.CompanyName ? { locationName: unit.CompanyName } : {}),
  };
}

async function customFieldDataOf(
  install: InstallClient,
  timesheet: TimesheetObject,
): Promise<CustomFieldData | undefined> {
  const data = timesheet.CustomFieldData;
  if (data === null || data === undefined) return undefined;
  if (typeof data !== 'number') return data;
  try {
    const records = await install.query(
      'CustomFieldData',
      { conditions: [{ field: 'Id', type: 'eq', data }] },
      customFieldDataSchema,
    );
    // Only the record with that id: an answer broader than the condition is not trusted.
    return records.find((record) => record.Id === data);
  } catch (error) {
    if (error instanceof ServiceRejectedError) {
      throw serviceRejection(`custom field data ${data} of timesheet ${timesheet.Id}`, error);
    }
    // The answers are context next to the pay lines: an answer that cannot be read leaves them
    // out rather than fail the pay returns of every timesheet of the request.
    if (error instanceof ResponseShapeError) return undefined;
    throw error;
  }
}

/** What a custom field data record holds besides its named fields: its own fields and slots. */
const RECORD_FIELDS: ReadonlySet<string> = new Set([
  'Id',
  'System',
  'Creator',
  'Created',
  'Modified',
  '_DPMetaData',
]);
const SLOT_FIELD = /^F\d{2,3}$/;

function answersOf(
  data: CustomFieldData | undefined,
): Record<string, string | boolean | number | null> | undefined {
  if (!data) return undefined;
  const record = data as Record<string, unknown>;
  const answers: Record<string, string | boolean | number | null> = {};
  // The listed fields, any fair-work-week field the service adds later (`fww…`), and every other
  // named field (a definition's API name mirroring its slot: a question the partner defined with
  // TimesheetFieldsDefined is answered at the same approval).
  const names = new Set([
    ...SCHEDULE_CHANGE_ANSWER_FIELDS,
    ...Object.keys(record).filter((key) => !RECORD_FIELDS.has(key) && !SLOT_FIELD.test(key)),
  ]);
  for (const name of names) {
    const value = record[name];
    if (value === undefined) continue;
    answers[name] =
      value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number'
        ? value
        : JSON.stringify(value);
  }
  return Object.keys(answers).length > 0 ? answers : undefined;
}

/** One pay line as partners see it; premium details only on schedule-change premium lines. */
export function payRuleLine(record: JoinedTimesheetPayReturn): PayLine {
  const rule = record.PayRuleObject;
  const line: PayLine = {
    payReturnId: record.Id,
    payRuleId: record.PayRule,
    payRuleTitle: rule.PayTitle ?? '',
    payrollCategory: rule.PayrollCategory ?? '',
    value: record.Value,
    cost: record.Cost,
    overridden: record.Overridden ?? false,
    comment: record.OverrideComment ?? '',
  };
  if (record.EventIds !== null) {
    const config = rule.Config ?? {};
    line.premium = {
      eventIds: record.EventIds,
      eventTypes: (config.eventTypes ?? []).filter((type): type is string => typeof type === 'string'),
      config: { ...config },
    };
  }
  return line;
}

export function totalsOf(lines: readonly PayLine[]): { value: number; cost: number } {
  const round = (amount: number) => Math.round(amount * 10_000) / 10_000;
  return {
    value: round(lines.reduce((sum, line) => sum + line.value, 0)),
    cost: round(lines.reduce((sum, line) => sum + line.cost, 0)),
  };
}

/** The runtime fills causationId with the inbound event id. */
export type ReadyDetail = Omit<PayReturnsReadyDetail, 'causationId'>;

/** Room the runtime's causationId (an event id, at most 128 characters) takes in the JSON. */
const CAUSATION_ALLOWANCE_BYTES = 160;

function detailBytes(detail: ReadyDetail): number {
  return Buffer.byteLength(JSON.stringify(detail), 'utf8') + CAUSATION_ALLOWANCE_BYTES;
}

/**
 * Keeps a PayReturnsReady detail within `limitBytes` of JSON. The outbound contract has no
 * part/parts fields, so an oversized timesheet is not split: premium configs are trimmed to the
 * keys the spec names (dropping anything the service added beyond them), then, if still too big,
 * lines are cut from the end. `truncated: true` tells the partner to read the rest in the
 * product; `totals` are left as computed over every line.
 */
export function fitToEntryLimit(detail: ReadyDetail, limitBytes: number): ReadyDetail {
  if (detailBytes(detail) <= limitBytes) return detail;
  const trimmed: ReadyDetail = {
    ...detail,
    truncated: true,
    lines: detail.lines.map((line) =>
      line.premium === undefined
        ? line
        : {
            ...line,
            premium: {
              ...line.premium,
              config: Object.fromEntries(
                Object.entries(line.premium.config).filter(([key]) => SPEC_CONFIG_KEYS.has(key)),
              ),
            },
          },
    ),
  };
  if (detailBytes(trimmed) <= limitBytes) return trimmed;
  // Binary search for the most leading lines that fit: O(log n) serializations, not O(n).
  const fits = (count: number) =>
    detailBytes({ ...trimmed, lines: trimmed.lines.slice(0, count) }) <= limitBytes;
  let low = 0;
  let high = trimmed.lines.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return { ...trimmed, lines: trimmed.lines.slice(0, low) };
}
