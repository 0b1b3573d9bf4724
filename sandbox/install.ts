import { ApiError, invalid, notFound } from './errors.ts';
import {
  isObject,
  type JsonObject,
  optionalBoolean,
  optionalFlag,
  optionalInteger,
  optionalString,
  requireBodyObject,
  requiredInteger,
  requiredNumber,
  requiredObject,
  requiredString,
} from './fields.ts';
import { STRICT_QUERY_MAX_RECORDS } from './mode.ts';
import { type JoinResolver, parseQuery, runQuery } from './query.ts';
import {
  type AwardLibraryEntry,
  areaRecord,
  leaveAccrualRecord,
  locationRecord,
  payRuleRecord,
  replaceActiveAgreement,
} from './record-shapes.ts';
import {
  dpMetaData,
  emptySlots,
  findById,
  INSTALL_OWNER,
  type Install,
  type InstallRecord,
  type InstallResource,
  nextId,
  REGION_TIME_ZONES,
  SLOT_PATTERN,
} from './records.ts';
import { json, type Route, type SandboxResponse } from './routing.ts';
import { awardLibrary } from './seed.ts';
import type { SandboxState } from './state.ts';
import { toIsoInZone, toIsoOffset } from './time.ts';
import { withNamedFields } from './timesheet-fields.ts';

export interface InstallContext {
  state: SandboxState;
  install: Install;
  body: unknown;
}

/**
 * QUERY resource names. The spec shows the first six; the others are calls it names without
 * a path, exposed through the same generic QUERY as a sandbox assumption.
 */
export const QUERYABLE: Readonly<Record<string, InstallResource>> = {
  Country: 'Country',
  State: 'State',
  CustomFieldData: 'CustomFieldData',
  EmployeeAgreement: 'EmployeeAgreement',
  TimesheetPayReturn: 'TimesheetPayReturn',
  LeaveRule: 'LeaveRule',
  Employee: 'Employee',
  EmploymentContract: 'EmploymentContract',
  PayRule: 'PayRule',
  LeaveAccrual: 'LeaveAccrual',
  Timesheet: 'Timesheet',
  Company: 'Location',
  OperationalUnit: 'Area',
  // Custom field definitions (the path of the create is not shown): sandbox/assumed-calls.ts.
  CustomField: 'CustomField',
};

const envelope = (data: unknown): SandboxResponse => json(200, { success: true, data });

/** A record timestamp: the install's local time (any UTC offset is allowed), or UTC with `utc-timestamps`. */
export function stamp(context: InstallContext, epochMs: number): string {
  return context.state.mode.lenient('utc-timestamps')
    ? toIsoOffset(epochMs)
    : toIsoInZone(epochMs, REGION_TIME_ZONES[context.install.region]);
}

export function now(context: InstallContext): string {
  return stamp(context, context.state.clock.now());
}

export function employeeOf(install: Install, rawId: string): InstallRecord {
  const employee = /^\d+$/.test(rawId) ? findById(install, 'Employee', Number(rawId)) : undefined;
  if (!employee) throw notFound(`employee ${rawId} not found`);
  return employee;
}

function query(context: InstallContext, [resourceName = '']: string[]): SandboxResponse {
  const resource = QUERYABLE[resourceName];
  if (!resource) throw notFound(`resource ${resourceName} not found`);
  const { install } = context;
  const { mode } = context.state;
  const expandCustomFields = !mode.lenient('custom-field-ids');
  const joins: Record<string, JoinResolver> =
    resource === 'TimesheetPayReturn'
      ? {
          TimesheetObject: (line) => {
            const timesheet = findById(install, 'Timesheet', line.Timesheet);
            // The response expands the timesheet's custom field data (the spec allows it).
            if (!expandCustomFields || !timesheet || typeof timesheet.CustomFieldData !== 'number')
              return timesheet;
            const expanded = findById(install, 'CustomFieldData', timesheet.CustomFieldData);
            return expanded
              ? { ...timesheet, CustomFieldData: withNamedFields(install, expanded) }
              : timesheet;
          },
          PayRuleObject: (line) => findById(install, 'PayRule', line.PayRule),
        }
      : {};
  const queryMode = {
    lkExact: mode.lenient('lk-exact'),
    andConditions: mode.lenient('and-conditions'),
    ...(mode.lenient('all-records') ? {} : { maxRecords: STRICT_QUERY_MAX_RECORDS }),
  };
  // A timesheet record carries one property per defined field (API name) mirroring its slot.
  const records =
    resource === 'CustomFieldData'
      ? install.tables.CustomFieldData.map((record) => withNamedFields(install, record))
      : install.tables[resource];
  return json(200, runQuery(resourceName, records, parseQuery(context.body), joins, queryMode));
}

function writeEmployeeCustomFields(context: InstallContext, [rawId = '']: string[]): SandboxResponse {
  const body = requireBodyObject(context.body);
  const system = requiredString(body, 'System');
  if (system !== 'Employee') throw invalid('System must be Employee for employee custom field data');
  const writes = Object.entries(body).filter(([key]) => key !== 'System');
  if (writes.length === 0) throw invalid('at least one slot field (F01..F128) is required');
  for (const [key, value] of writes) {
    if (!SLOT_PATTERN.test(key)) throw invalid(`${key} is not a custom field slot (F01..F128)`);
    if (typeof value !== 'string' && typeof value !== 'boolean') {
      throw invalid(`${key} must be a string or a boolean`);
    }
  }
  const { install } = context;
  const employee = employeeOf(install, rawId);
  const timestamp = now(context);
  let record = findById(install, 'CustomFieldData', employee.CustomFieldData);
  if (!record) {
    record = {
      Id: nextId(install, 'CustomFieldData'),
      System: 'Employee',
      ...emptySlots(),
      Creator: INSTALL_OWNER.id,
      Created: timestamp,
      Modified: timestamp,
      _DPMetaData: dpMetaData('CustomFieldData'),
    };
    install.tables.CustomFieldData.push(record);
    employee.CustomFieldData = record.Id;
    employee.Modified = timestamp;
  }
  // The service does not protect slots: a used slot is silently overwritten.
  for (const [key, value] of writes) record[key] = value;
  record.Modified = timestamp;
  return json(200, structuredClone(record));
}

const SIMPLE_CYCLES = ['WEEKLY', 'TWO_WEEKLY', 'FOUR_WEEKLY'];
const FULL_CYCLES = ['WEEKLY', 'TWO_WEEK', 'FOUR_WEEK'];
const DAYS_OF_WEEK = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];

function validateAgreedHour(agreedHour: JsonObject): void {
  requiredNumber(agreedHour, 'threshold', 'agreedHour.threshold');
  const workPeriod = requiredObject(agreedHour, 'workPeriod', 'agreedHour.workPeriod');
  const details = agreedHour['details'];
  if (details !== undefined && details !== null && !isObject(details)) {
    throw invalid('agreedHour.details must be an object');
  }
  const weeks = isObject(details) ? details['weeks'] : undefined;
  if (weeks !== undefined && !Array.isArray(weeks))
    throw invalid('agreedHour.details.weeks must be an array');
  const fullForm = Array.isArray(weeks) && weeks.length > 0;
  const cycles = fullForm ? FULL_CYCLES : SIMPLE_CYCLES;
  const cycle = requiredString(workPeriod, 'cycle', 'agreedHour.workPeriod.cycle');
  if (!cycles.includes(cycle)) {
    throw invalid(
      `agreedHour.workPeriod.cycle must be one of ${cycles.join(', ')} in the ${fullForm ? 'full' : 'simple'} form`,
    );
  }
  const dayOfWeek = optionalString(workPeriod, 'dayOfWeek', 'agreedHour.workPeriod.dayOfWeek');
  if (dayOfWeek !== undefined && !DAYS_OF_WEEK.includes(dayOfWeek)) {
    throw invalid('agreedHour.workPeriod.dayOfWeek must be a day name such as MONDAY');
  }
  const applyThreshold = agreedHour['applyThreshold'];
  if (applyThreshold !== undefined && typeof applyThreshold !== 'boolean') {
    throw invalid('agreedHour.applyThreshold must be a boolean');
  }
}

function setAgreedHour(context: InstallContext, [rawId = '']: string[]): SandboxResponse {
  const body = requireBodyObject(context.body);
  const agreedHour = requiredObject(body, 'agreedHour');
  validateAgreedHour(agreedHour);
  const { install } = context;
  const employeeId = employeeOf(install, rawId).Id as number;
  const timestamp = now(context);
  const existing = install.tables.AgreedHour.find((record) => record.Employee === employeeId);
  if (existing) {
    existing.agreedHour = structuredClone(agreedHour);
    existing.Modified = timestamp;
  } else {
    install.tables.AgreedHour.push({
      Id: nextId(install, 'AgreedHour'),
      Employee: employeeId,
      agreedHour: structuredClone(agreedHour),
      Creator: INSTALL_OWNER.id,
      Created: timestamp,
      Modified: timestamp,
      _DPMetaData: dpMetaData('AgreedHour'),
    });
  }
  // The answer is "not shown"; the sandbox gives none at all (unless `agreed-hour-answer`).
  if (!context.state.mode.lenient('agreed-hour-answer')) return { status: 204, body: undefined };
  return envelope({ employeeId, agreedHour });
}

function getAgreedHour(context: InstallContext, [rawId = '']: string[]): SandboxResponse {
  const employeeId = employeeOf(context.install, rawId).Id as number;
  const record = context.install.tables.AgreedHour.find((candidate) => candidate.Employee === employeeId);
  return envelope({ employeeId, agreedHour: record ? structuredClone(record.agreedHour) : null });
}

const METRIC_TYPES = new Set(['budget_wage', 'budget_hour', 'budget_staffhour']);

interface MetricItem {
  timestamp: number;
  type: string;
  value: number;
  location: number;
  area: number | undefined;
  reference: string | undefined;
  raw: JsonObject;
}

function readMetricItem(install: Install, item: unknown, index: number): MetricItem {
  const path = `data[${index}]`;
  if (!isObject(item)) throw invalid(`${path} must be an object`);
  const timestamp = requiredInteger(item, 'timestamp', `${path}.timestamp`);
  const type = requiredString(item, 'type', `${path}.type`).toLowerCase();
  // The spec's prose says budget_hour and its sample budget_StaffHour; both are accepted.
  if (!METRIC_TYPES.has(type)) {
    throw invalid(`${path}.type must be budget_wage, budget_hour or budget_StaffHour`);
  }
  const value = requiredNumber(item, 'value', `${path}.value`);
  const location = requiredInteger(item, 'location', `${path}.location`);
  const area = optionalInteger(item, 'area', `${path}.area`);
  const reference = optionalString(item, 'reference', `${path}.reference`);
  if (!findById(install, 'Location', location)) throw notFound(`${path}.location ${location} not found`);
  if (area !== undefined && area !== 0) {
    const areaRecord = findById(install, 'Area', area);
    if (!areaRecord) throw notFound(`${path}.area ${area} not found`);
    if (areaRecord.Company !== location)
      throw invalid(`${path}.area ${area} does not belong to location ${location}`);
  }
  return { timestamp, type, value, location, area, reference, raw: item };
}

/** The metric a request item replaces: same location, area, employee (0), type and timestamp. */
function sameMetric(record: InstallRecord, other: InstallRecord): boolean {
  return (
    record.location === other.location &&
    record.area === other.area &&
    record.employee === other.employee &&
    record.type === other.type &&
    record.timestamp === other.timestamp
  );
}

/** Saves one metric now: a new record, or the new value on the record it replaces. */
function applyMetric(install: Install, incoming: InstallRecord, modified: string): InstallRecord {
  const existing = install.tables.Metric.find((metric) => sameMetric(metric, incoming));
  if (existing) {
    // Budgets replace, never add: same identity keeps its id and gets a new value.
    Object.assign(existing, {
      value: incoming.value,
      reference: incoming.reference,
      payload: incoming.payload,
      modified,
    });
    return existing;
  }
  install.tables.Metric.push(incoming);
  return incoming;
}

/** Bulk metrics whose time has come become visible, in the order they were accepted. */
export function applyDueMetrics(install: Install, nowMs: number): void {
  if (install.pendingMetrics.length === 0) return;
  const due = install.pendingMetrics.filter((pending) => pending.visibleAt <= nowMs);
  if (due.length === 0) return;
  install.pendingMetrics = install.pendingMetrics.filter((pending) => pending.visibleAt > nowMs);
  for (const pending of due) applyMetric(install, pending.record, toIsoOffset(pending.visibleAt));
}

function saveMetrics(context: InstallContext, delayMs = 0): SandboxResponse {
  const body = requireBodyObject(context.body);
  const data = body['data'];
  if (data === undefined || data === null) throw invalid('data is required');
  if (!Array.isArray(data) || data.length === 0) throw invalid('data must be a non-empty array');
  const { install } = context;
  // Validate every item before writing any, so a rejected request leaves nothing half-saved.
  const items = data.map((item, index) => readMetricItem(install, item, index));
  const nowMs = context.state.clock.now();
  // Metric timestamps are UTC in every mode (the spec says so for created/modified).
  const timestamp = toIsoOffset(nowMs);
  const saved = items.map((item) => {
    const incoming: InstallRecord = {
      timestamp: String(item.timestamp),
      employee: 0,
      area: item.area ?? 0,
      type: item.type,
      reference: item.reference ?? null,
      value: item.value,
      state: 'ACTUAL',
      location: item.location,
      id: '',
      created: timestamp,
      modified: '',
      payload: JSON.stringify(item.raw),
      _DPMetaData: dpMetaData('Metric'),
    };
    if (delayMs <= 0) {
      if (!install.tables.Metric.some((metric) => sameMetric(metric, incoming))) {
        incoming.id = `mt_${String(nextId(install, 'Metric')).padStart(6, '0')}`;
      }
      return structuredClone(applyMetric(install, incoming, timestamp));
    }
    // Accepted now, visible later: the id is the one the metric has or will have.
    const known =
      install.tables.Metric.find((metric) => sameMetric(metric, incoming)) ??
      install.pendingMetrics.find((pending) => sameMetric(pending.record, incoming))?.record;
    if (known) {
      Object.assign(incoming, { id: known.id, created: known.created, modified: timestamp });
    } else {
      incoming.id = `mt_${String(nextId(install, 'Metric')).padStart(6, '0')}`;
    }
    install.pendingMetrics.push({ visibleAt: nowMs + delayMs, record: structuredClone(incoming) });
    return incoming;
  });
  return envelope(saved);
}

function createLocation(context: InstallContext): SandboxResponse {
  const body = requireBodyObject(context.body);
  const companyName = requiredString(body, 'CompanyName');
  const code = optionalString(body, 'Code');
  const tradingName = optionalString(body, 'TradingName');
  const payrollExportCode = optionalString(body, 'PayrollExportCode');
  const address = optionalString(body, 'Address');
  const parentCompany = optionalInteger(body, 'ParentCompany');
  const isWorkplace = optionalFlag(body, 'IsWorkplace') ?? 0;
  const isPayrollEntity = optionalFlag(body, 'IsPayrollEntity') ?? 0;
  const active = optionalBoolean(body, 'Active');
  if (isWorkplace !== 1 && isPayrollEntity !== 1) {
    throw invalid('at least one of IsWorkplace and IsPayrollEntity must be 1');
  }
  const { install } = context;
  if (parentCompany !== undefined && !findById(install, 'Location', parentCompany)) {
    throw notFound(`ParentCompany ${parentCompany} not found`);
  }
  const timestamp = now(context);
  let addressId: number | null = null;
  if (address !== undefined && address.trim() !== '') {
    // The service turns the address text into a separate address record and keeps its id.
    addressId = nextId(install, 'Address');
    install.tables.Address.push({
      Id: addressId,
      Address: address,
      Creator: INSTALL_OWNER.id,
      Created: timestamp,
      Modified: timestamp,
      _DPMetaData: dpMetaData('Address'),
    });
  }
  const location = locationRecord({
    Id: nextId(install, 'Location'),
    CompanyName: companyName,
    Code: code ?? null,
    TradingName: tradingName ?? null,
    Active: active ?? true,
    ParentCompany: parentCompany ?? null,
    IsWorkplace: isWorkplace,
    IsPayrollEntity: isPayrollEntity,
    PayrollExportCode: payrollExportCode ?? null,
    Address: addressId,
    Created: timestamp,
  });
  install.tables.Location.push(location);
  return json(200, structuredClone(location));
}

function firstPresent(body: JsonObject, keys: string[]): string {
  return keys.find((key) => body[key] !== undefined && body[key] !== null) ?? keys[0] ?? '';
}

function createArea(context: InstallContext): SandboxResponse {
  const body = requireBodyObject(context.body);
  const companyId = requiredInteger(body, 'intCompanyId');
  // The spec spells these fields two ways; both spellings are accepted.
  const name = requiredString(body, firstPresent(body, ['strOpunitName', 'strOpUnitName']), 'strOpunitName');
  const typeKey = firstPresent(body, ['intOpunitType', 'intOpUnitType']);
  const unitType = optionalFlag(body, typeKey, 'intOpunitType') ?? 0;
  const address = optionalString(body, 'strAddress');
  const exportName = optionalString(body, 'strExportName');
  const { install } = context;
  const location = findById(install, 'Location', companyId);
  if (!location) throw notFound(`intCompanyId ${companyId} is not an existing location`);
  const area = areaRecord({
    Id: nextId(install, 'Area'),
    Company: companyId,
    CompanyName: String(location.CompanyName),
    OperationalUnitName: name,
    Address: address ?? null,
    ExportName: exportName ?? null,
    OperationalUnitType: unitType,
    Created: now(context),
  });
  install.tables.Area.push(area);
  return json(200, structuredClone(area));
}

function listAwards(): SandboxResponse {
  return envelope(awardLibrary());
}

function awardByCode(code: string) {
  const entry = awardLibrary().find((candidate) => candidate.AwardCode === code);
  if (!entry) throw notFound(`award ${code} not found`);
  return entry;
}

function getAward(_context: InstallContext, [code = '']: string[]): SandboxResponse {
  return envelope(awardByCode(code));
}

/** The install's pay rule paying `hourlyRate` under an award (non-US installs, the spec's reading). */
function ratePayRule(
  install: Install,
  entry: AwardLibraryEntry,
  hourlyRate: number,
  timestamp: string,
): string {
  const id = `${entry.BasePayRule}_${String(hourlyRate).replace('.', '_')}`;
  if (!findById(install, 'PayRule', id)) {
    install.tables.PayRule.push({
      ...payRuleRecord({
        Id: id,
        PayTitle: `${String(entry.BasePayRuleObject.PayTitle)} (${hourlyRate})`,
        HourlyRate: hourlyRate,
        PayrollCategory: String(entry.BasePayRuleObject.PayrollCategory),
      }),
      Created: timestamp,
      Modified: timestamp,
    });
  }
  return id;
}

function setAwardFromLibrary(context: InstallContext, [rawId = '']: string[]): SandboxResponse {
  const body = requireBodyObject(context.body);
  const countryCode = requiredString(body, 'strCountryCode');
  const awardCode = requiredString(body, 'strAwardCode');
  const overrides = body['arrOverridePayRules'];
  if (overrides === undefined || overrides === null) throw invalid('arrOverridePayRules is required');
  if (!Array.isArray(overrides) || overrides.length === 0)
    throw invalid('arrOverridePayRules must be a non-empty array');
  const { install } = context;
  const employee = employeeOf(install, rawId);
  const entry = awardByCode(awardCode);
  if (countryCode !== entry.CountryCode) {
    throw invalid(`strCountryCode ${countryCode} does not match award ${awardCode} (${entry.CountryCode})`);
  }
  // The spec describes an override's Id as the base pay rule's; with the mode's lenient
  // `other-pay-rule-overrides` the array may also name other pay rules of the install (each once),
  // whose rates are kept on the agreement (OverridePayRules).
  let hourlyRate = Number(entry.BasePayRuleObject.HourlyRate);
  const otherRules: Array<{ Id: string; HourlyRate: number }> = [];
  const named = new Set<string>();
  overrides.forEach((override, index) => {
    const path = `arrOverridePayRules[${index}]`;
    if (!isObject(override)) throw invalid(`${path} must be an object`);
    const id = requiredString(override, 'Id', `${path}.Id`);
    const rate = requiredNumber(override, 'HourlyRate', `${path}.HourlyRate`);
    if (rate <= 0) throw invalid(`${path}.HourlyRate must be greater than 0`);
    if (named.has(id)) throw invalid(`${path}.Id names pay rule ${id} a second time`);
    named.add(id);
    if (id === entry.BasePayRule) hourlyRate = rate;
    else if (context.state.mode.lenient('other-pay-rule-overrides') && findById(install, 'PayRule', id))
      otherRules.push({ Id: id, HourlyRate: rate });
    else throw invalid(`${path}.Id must be the award's BasePayRule ${entry.BasePayRule}`);
  });

  const timestamp = now(context);
  if (!findById(install, 'PayRule', entry.BasePayRule)) {
    install.tables.PayRule.push({
      ...payRuleRecord({
        Id: entry.BasePayRule,
        PayTitle: String(entry.BasePayRuleObject.PayTitle),
        HourlyRate: Number(entry.BasePayRuleObject.HourlyRate),
        PayrollCategory: String(entry.BasePayRuleObject.PayrollCategory),
      }),
      Created: timestamp,
      Modified: timestamp,
    });
  }
  // BaseRate is for US installs only (unless `base-rate-everywhere`). Elsewhere the rate is kept on
  // a pay rule of the install (one per award and rate), reached through the agreement's contract.
  const withoutBaseRate = !context.state.mode.lenient('base-rate-everywhere') && install.region !== 'us';
  const basePayRule = withoutBaseRate
    ? ratePayRule(install, entry, hourlyRate, timestamp)
    : entry.BasePayRule;
  let contract = install.tables.EmploymentContract.find(
    (candidate) => candidate.AwardCode === awardCode && candidate.BasePayRule === basePayRule,
  );
  if (!contract) {
    contract = {
      Id: nextId(install, 'EmploymentContract'),
      ...entry.SvcEmploymentContract,
      BasePayRule: basePayRule,
      AwardCode: awardCode,
      Creator: INSTALL_OWNER.id,
      Created: timestamp,
      Modified: timestamp,
      _DPMetaData: dpMetaData('EmploymentContract'),
    };
    install.tables.EmploymentContract.push(contract);
  }
  const agreement = replaceActiveAgreement(install, employee, timestamp, {
    Contract: contract.Id as number,
    BaseRate: withoutBaseRate ? null : hourlyRate,
    ...(otherRules.length > 0 ? { OverridePayRules: otherRules } : {}),
  });
  return envelope({ AgreementId: agreement.Id });
}

function readTransactionDate(context: InstallContext, body: JsonObject, nowMs: number): string {
  const value = body['TransactionDate'];
  if (value === undefined || value === null || value === '') throw invalid('TransactionDate is required');
  if (value === 'now') return stamp(context, nowMs);
  if (typeof value === 'number' && Number.isInteger(value)) return stamp(context, value * 1000);
  if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return stamp(context, Date.parse(value));
  throw invalid("TransactionDate must be a timestamp or 'now'");
}

function overwriteLeaveBalance(context: InstallContext): SandboxResponse {
  const { install } = context;
  if (install.region === 'uk') {
    throw new ApiError(422, 'LEAVE_NOT_SUPPORTED', 'Leave balances cannot be overwritten on UK installs');
  }
  const body = requireBodyObject(context.body);
  const employeeId = requiredInteger(body, 'Employee');
  const leaveRuleId = requiredInteger(body, 'LeaveRule');
  const nowMs = context.state.clock.now();
  const transactionDate = readTransactionDate(context, body, nowMs);
  const hours = requiredNumber(body, 'Hours');
  if (!findById(install, 'Employee', employeeId)) throw notFound(`employee ${employeeId} not found`);
  if (!findById(install, 'LeaveRule', leaveRuleId)) throw notFound(`leave rule ${leaveRuleId} not found`);
  const activeAgreement = install.tables.EmployeeAgreement.find(
    (agreement) => agreement.EmployeeId === employeeId && agreement.Active === true,
  );
  // Destructive by design: the new record is the balance, earlier amounts are not kept.
  install.tables.LeaveAccrual = install.tables.LeaveAccrual.filter(
    (accrual) => !(accrual.Employee === employeeId && accrual.LeaveRule === leaveRuleId),
  );
  const record = leaveAccrualRecord({
    Id: nextId(install, 'LeaveAccrual'),
    Employee: employeeId,
    EmployeeHistory: typeof activeAgreement?.HistoryId === 'number' ? activeAgreement.HistoryId : null,
    LeaveRule: leaveRuleId,
    TransactionDate: transactionDate,
    Hours: hours,
    Created: stamp(context, nowMs),
  });
  install.tables.LeaveAccrual.push(record);
  return json(200, structuredClone(record));
}

/** Paths below the install base URL `/installs/{hostname}`. */
export const installRoutes: ReadonlyArray<Route<InstallContext>> = [
  { method: 'POST', pattern: /^\/api\/v1\/resource\/LeaveAccrual$/, handle: overwriteLeaveBalance },
  { method: 'POST', pattern: /^\/api\/v1\/resource\/([^/]+)\/QUERY$/, handle: query },
  {
    method: 'POST',
    pattern: /^\/api\/v1\/resource\/Employee\/([^/]+)\/CustomFieldDataObject$/,
    handle: writeEmployeeCustomFields,
  },
  { method: 'POST', pattern: /^\/api\/management\/v2\/agreed_hour\/([^/]+)$/, handle: setAgreedHour },
  { method: 'GET', pattern: /^\/api\/management\/v2\/agreed_hour\/([^/]+)$/, handle: getAgreedHour },
  { method: 'POST', pattern: /^\/api\/v2\/metrics$/, handle: (context) => saveMetrics(context) },
  {
    method: 'POST',
    pattern: /^\/api\/v2\/metrics:bulk$/,
    // "Saved data may not be available for retrieval or display immediately."
    handle: (context) => saveMetrics(context, context.state.mode.bulkMetricsDelayMs()),
  },
  { method: 'PUT', pattern: /^\/api\/v1\/supervise\/company$/, handle: createLocation },
  { method: 'PUT', pattern: /^\/api\/v1\/supervise\/department$/, handle: createArea },
  { method: 'GET', pattern: /^\/api\/v1\/payroll\/listAwardsLibrary$/, handle: listAwards },
  { method: 'GET', pattern: /^\/api\/v1\/payroll\/listAwardsLibrary\/([^/]+)$/, handle: getAward },
  {
    method: 'POST',
    pattern: /^\/api\/v1\/supervise\/employee\/([^/]+)\/setAwardFromLibrary$/,
    handle: setAwardFromLibrary,
  },
];
