import * as z from 'zod';
import {
  InvalidRequestError,
  QueryLimitReachedError,
  ResponseShapeError,
  ServiceRejectedError,
} from '#functions/domain/errors.ts';
import type { Addresses } from './addresses.ts';
import { type AgreedHourForm, agreedHourForm, normalizeCycle } from './agreed-hour-form.ts';
import { type AssumedCallSettings, type AssumedCalls, assumedCalls } from './assumed-calls.ts';
import { defaultServiceAssumptions } from './assumptions.ts';
import type { HttpClient, RetrySafety, ServiceRequest } from './http.ts';
import { isRecord, readServiceError } from './http.ts';
import { contains, type QueryCondition, type QueryOptions, queryBody } from './install-query.ts';
import { arrayOf, firstId, parseResponse, validInput } from './parsing.ts';
import {
  createPayRateResolver,
  type PayRateResolutionOptions,
  type PayRateResolver,
  type PayRateResolverOptions,
} from './pay-rate-resolver.ts';
import { type AgreedHour, agreedHourSchema } from './records/agreed-hours.ts';
import {
  CUSTOM_FIELD_SLOTS,
  type CustomFieldData,
  customFieldDataSchema,
  slotField,
} from './records/custom-fields.ts';
import {
  type LeaveAccrual,
  type LeaveRuleRecord,
  leaveAccrualSchema,
  leaveRuleRecordSchema,
} from './records/leave.ts';
import {
  type AreaRequest,
  areaRequestSchema,
  type LocationRequest,
  locationRequestSchema,
} from './records/locations.ts';
import {
  type HourBudgetType,
  type MetricItem,
  type MetricRecord,
  metricItemSchema,
  metricRecordSchema,
} from './records/metrics.ts';
import {
  type AwardLibraryEntry,
  type AwardLibraryListEntry,
  awardLibraryEntrySchema,
  awardLibraryListEntrySchema,
  type EmployeeAgreement,
  employeeAgreementSchema,
} from './records/pay-conditions.ts';
import { type Country, countrySchema, type State, stateSchema } from './records/reference-data.ts';
import {
  type JoinedTimesheetPayReturn,
  payReturnLineSchema,
  timesheetObjectSchema,
} from './records/timesheet-pay-returns.ts';

/**
 * Cycle spelling sent in agreed hours. The spec lists `TWO_WEEK`/`FOUR_WEEK` in the full form and
 * `TWO_WEEKLY`/`FOUR_WEEKLY` in the simple form without saying which the service accepts where:
 * `per-form` sends each form's own spelling; `full-form` / `simple-form` send one spelling for both.
 */
export type CycleSpelling = 'per-form' | 'full-form' | 'simple-form';

export interface InstallClientOptions {
  /** Spelling sent for hour budgets (the spec's prose and sample differ). @default 'budget_StaffHour' */
  hourBudgetType?: HourBudgetType;
  /** Spelling sent for agreed-hour cycles. @default 'per-form' */
  cycleSpelling?: CycleSpelling;
  /** How install calls authenticate (the spec does not show it). @default 'bearer' */
  auth?: 'bearer' | 'none';
  /** QUERY resource of leave rules. @default 'LeaveRule' */
  leaveRuleResource?: string;
  /**
   * Most records one QUERY answers, when known: a read that must be complete and gets this many
   * throws QueryLimitReachedError. @default no limit assumed
   */
  queryMaxRecords?: number;
  /** Fields tried for the new agreement id of setAwardFromLibrary. @default ['AgreementId', 'agreementId', 'Id', 'id'] */
  agreementIdFields?: string[];
  /** Fields tried for the new location id. @default ['Id', 'id', 'CompanyId', 'companyId'] */
  locationIdFields?: string[];
  /** Fields tried for the new area id. @default ['Id', 'id', 'OperationalUnitId', 'DepartmentId'] */
  areaIdFields?: string[];
  payRate?: PayRateResolutionOptions;
  /** Paths and bodies of the calls the spec names without showing them. @default the service assumptions' defaults */
  assumedCalls?: Partial<AssumedCallSettings>;
}

export interface LeaveBalanceOverwrite {
  employeeId: number;
  leaveRuleId: number;
  hours: number;
  /** A timestamp, or 'now' for the service's current date and time. */
  transactionDate: string | 'now';
}

export interface AwardAssignment {
  countryCode: string;
  awardCode: string;
  overridePayRules: Array<{ Id: string; HourlyRate: number }>;
}

export interface InstallClient extends AssumedCalls {
  readonly hostname: string;
  query<T extends z.ZodType>(resource: string, options: QueryOptions, schema: T): Promise<Array<z.output<T>>>;
  /**
   * A QUERY whose answer must hold every matching record: throws QueryLimitReachedError when it
   * reaches `queryMaxRecords` (the answer may have been cut).
   */
  queryComplete<T extends z.ZodType>(
    resource: string,
    options: QueryOptions,
    schema: T,
  ): Promise<Array<z.output<T>>>;
  findCountries(filter?: { name?: string; code?: string }): Promise<Country[]>;
  findStates(filter?: { name?: string; code?: string; countryId?: number }): Promise<State[]>;
  listCustomFieldData(): Promise<CustomFieldData[]>;
  writeEmployeeCustomField(
    employeeId: number,
    slot: number,
    value: string | boolean,
  ): Promise<CustomFieldData>;
  setAgreedHours(employeeId: number, agreedHour: AgreedHour): Promise<void>;
  /** The profile as the service answers it (the GET's shape is not shown): read, never refused. */
  getAgreedHours(employeeId: number): Promise<Record<string, unknown> | null>;
  listEmployeeAgreements(employeeId?: number): Promise<EmployeeAgreement[]>;
  /** A resolver that reads each contract and pay rule once, for reporting many agreements. */
  payRateResolver(options?: PayRateResolverOptions): PayRateResolver;
  /** Every leave rule of the install (QUERY on the configured resource, default `LeaveRule`). */
  listLeaveRules(): Promise<LeaveRuleRecord[]>;
  listAwards(): Promise<AwardLibraryListEntry[]>;
  getAward(awardCode: string): Promise<AwardLibraryEntry>;
  setAwardFromLibrary(
    employeeId: number,
    assignment: AwardAssignment,
  ): Promise<{ agreementId: number | string }>;
  saveMetrics(items: MetricItem[]): Promise<MetricRecord[]>;
  saveMetricsBulk(items: MetricItem[]): Promise<MetricRecord[]>;
  createLocation(fields: LocationRequest): Promise<{ locationId: number; record: unknown }>;
  createArea(fields: AreaRequest): Promise<{ areaId: number; record: unknown }>;
  overwriteLeaveBalance(overwrite: LeaveBalanceOverwrite): Promise<LeaveAccrual>;
  getPayReturns(timesheetId: number): Promise<JoinedTimesheetPayReturn[]>;
}

/** An agreed-hours profile: its shape is not shown, so any object is kept as given. */
const anyObject = z.record(z.string(), z.unknown());

export function createInstallClient(
  hostname: string,
  dependencies: { http: HttpClient; addresses: Addresses; options?: InstallClientOptions },
): InstallClient {
  const { http, addresses } = dependencies;
  const options = dependencies.options ?? {};
  const hourBudgetType = options.hourBudgetType ?? 'budget_StaffHour';
  // What the options leave out, the deploy settings' defaults decide (one source: assumptions.ts).
  const defaults = defaultServiceAssumptions;
  const cycleSpelling = options.cycleSpelling ?? defaults.agreedHourCycleSpelling;
  const contractResource = options.payRate?.contractResource ?? defaults.contractResource;
  const payRuleResource = options.payRate?.payRuleResource ?? defaults.payRuleResource;
  const basePayRuleFields = options.payRate?.basePayRuleFields ?? defaults.basePayRuleFields;
  const leaveRuleResource = options.leaveRuleResource ?? defaults.leaveRuleResource;
  const queryMaxRecords = options.queryMaxRecords;
  // Validates the hostname now: a bad one never yields a client, let alone a request.
  addresses.installBaseUrl(hostname);

  async function call(
    method: ServiceRequest['method'],
    path: string,
    safety: RetrySafety,
    body?: unknown,
  ): Promise<unknown> {
    const request: ServiceRequest = {
      method,
      url: addresses.installUrl(hostname, path),
      safety,
      scope: { kind: 'install', hostname },
      ...(options.auth === 'none' ? { auth: 'none' as const } : {}),
    };
    if (body !== undefined) request.body = body;
    const response = await http.send(request);
    return unwrapOptionalEnvelope(response.body, `${method} ${path}`);
  }

  async function query<T extends z.ZodType>(
    resource: string,
    queryOptions: QueryOptions,
    schema: T,
  ): Promise<Array<z.output<T>>> {
    const body = queryBody(queryOptions);
    const path = `/api/v1/resource/${encodeURIComponent(resource)}/QUERY`;
    const payload = await call('POST', path, 'idempotent', body);
    return parseResponse(arrayOf(schema), payload, `QUERY ${resource}`);
  }

  /**
   * A QUERY whose answer must hold every matching record: with a known per-answer maximum, an
   * answer that reaches it may have been cut, and acting on it (a slot taken but not listed, an
   * agreement left out) would be wrong in silence.
   */
  async function queryComplete<T extends z.ZodType>(
    resource: string,
    queryOptions: QueryOptions,
    schema: T,
  ): Promise<Array<z.output<T>>> {
    const records = await query(resource, queryOptions, schema);
    if (queryMaxRecords !== undefined && records.length >= queryMaxRecords) {
      throw new QueryLimitReachedError(resource, records.length);
    }
    return records;
  }

  async function queryById<T extends z.ZodType>(resource: string, id: string | number, schema: T) {
    const records = await query(resource, { conditions: [{ field: 'Id', type: 'eq', data: id }] }, schema);
    // Only the record with that id: an answer broader than the condition is not trusted.
    return records.find((record) => isRecord(record) && String(record['Id']) === String(id));
  }

  async function saveMetricsTo(path: string, items: MetricItem[]): Promise<MetricRecord[]> {
    const data = items.map((item, index) => {
      const checked = validInput(metricItemSchema, item, `metric item [${index}]`);
      return checked.type === 'budget_wage' ? checked : { ...checked, type: hourBudgetType };
    });
    const payload = await call('POST', path, 'idempotent', { data });
    return parseResponse(arrayOf(metricRecordSchema), payload, `POST ${path}`);
  }

  return {
    hostname,
    query,
    queryComplete,
    ...assumedCalls(call, queryComplete, {
      timesheetFieldPath: defaults.timesheetFieldPath,
      timesheetFieldResource: defaults.timesheetFieldResource,
      timesheetFieldIdFields: defaults.timesheetFieldIdFields,
      employeesBulkPath: defaults.employeesBulkPath,
      employeesBulkBody: defaults.employeesBulkBody,
      ...options.assumedCalls,
    }),

    // How several conditions combine is "not shown", and `lk` may answer more than the name: the
    // answer is matched again here on every condition (`lk` as "contains", case-insensitive).
    async findCountries(filter = {}) {
      const conditions: QueryCondition[] = [];
      if (filter.name !== undefined) conditions.push({ field: 'Country', type: 'lk', data: filter.name });
      if (filter.code !== undefined) conditions.push({ field: 'Code', type: 'eq', data: filter.code });
      const countries = await queryComplete('Country', { conditions }, countrySchema);
      return countries.filter(
        (country) =>
          contains(country.Country, filter.name) &&
          (filter.code === undefined || country.Code === filter.code),
      );
    },

    async findStates(filter = {}) {
      const conditions: QueryCondition[] = [];
      if (filter.name !== undefined) conditions.push({ field: 'State', type: 'lk', data: filter.name });
      if (filter.code !== undefined) conditions.push({ field: 'Code', type: 'eq', data: filter.code });
      if (filter.countryId !== undefined)
        conditions.push({ field: 'Country', type: 'eq', data: filter.countryId });
      const states = await queryComplete('State', { conditions }, stateSchema);
      return states.filter(
        (state) =>
          contains(state.State, filter.name) &&
          (filter.code === undefined || state.Code === filter.code) &&
          (filter.countryId === undefined || state.Country === filter.countryId),
      );
    },

    listCustomFieldData() {
      return queryComplete('CustomFieldData', {}, customFieldDataSchema);
    },

    async writeEmployeeCustomField(employeeId, slot, value) {
      const id = validId(employeeId, 'employeeId');
      if (!Number.isInteger(slot) || slot < 1 || slot > CUSTOM_FIELD_SLOTS) {
        throw new InvalidRequestError(
          `custom field slot must be an integer from 1 to ${CUSTOM_FIELD_SLOTS}, got ${slot}`,
        );
      }
      const path = `/api/v1/resource/Employee/${id}/CustomFieldDataObject`;
      // The service does not validate slots and overwrites a slot in use: the caller owns allocation.
      const payload = await call('POST', path, 'idempotent', {
        System: 'Employee',
        [slotField(slot)]: value,
      });
      return parseResponse(customFieldDataSchema, payload, `POST ${path}`);
    },

    async setAgreedHours(employeeId, agreedHour) {
      const id = validId(employeeId, 'employeeId');
      const checked = validInput(agreedHourSchema, agreedHour, 'agreedHour');
      const spellingOf: AgreedHourForm =
        cycleSpelling === 'per-form'
          ? agreedHourForm(checked)
          : cycleSpelling === 'full-form'
            ? 'full'
            : 'simple';
      const outgoing = {
        ...checked,
        workPeriod: { ...checked.workPeriod, cycle: normalizeCycle(checked.workPeriod.cycle, spellingOf) },
      };
      // The answer is "not shown"; success is the 2xx (and no success:false envelope).
      await call('POST', `/api/management/v2/agreed_hour/${id}`, 'idempotent', { agreedHour: outgoing });
    },

    async getAgreedHours(employeeId) {
      const id = validId(employeeId, 'employeeId');
      const path = `/api/management/v2/agreed_hour/${id}`;
      const payload = await call('GET', path, 'idempotent');
      // Shape "not shown": accept {agreedHour}, {employeeId, agreedHour}, or the object itself.
      const candidate = isRecord(payload) && 'agreedHour' in payload ? payload.agreedHour : payload;
      if (candidate === null || candidate === undefined) return null;
      return parseResponse(anyObject, candidate, `GET ${path}`);
    },

    listEmployeeAgreements(employeeId) {
      const conditions: QueryCondition[] =
        employeeId === undefined
          ? []
          : [{ field: 'EmployeeId', type: 'eq', data: validId(employeeId, 'employeeId') }];
      return queryComplete('EmployeeAgreement', { conditions }, employeeAgreementSchema);
    },

    payRateResolver(resolverOptions = {}) {
      return createPayRateResolver((resource, id, schema) => queryById(resource, id, schema), {
        contractResource,
        payRuleResource,
        basePayRuleFields,
        baseRateApplies: resolverOptions.baseRateApplies ?? true,
      });
    },

    listLeaveRules() {
      return queryComplete(leaveRuleResource, {}, leaveRuleRecordSchema);
    },

    async listAwards() {
      const payload = await call('GET', '/api/v1/payroll/listAwardsLibrary', 'idempotent');
      return parseResponse(arrayOf(awardLibraryListEntrySchema), payload, 'listAwardsLibrary');
    },

    async getAward(awardCode) {
      if (awardCode.trim() === '') throw new InvalidRequestError('awardCode must not be empty');
      const path = `/api/v1/payroll/listAwardsLibrary/${encodeURIComponent(awardCode)}`;
      const payload = await call('GET', path, 'idempotent');
      return parseResponse(awardLibraryEntrySchema, payload, `GET ${path}`);
    },

    async setAwardFromLibrary(employeeId, assignment) {
      const id = validId(employeeId, 'employeeId');
      const path = `/api/v1/supervise/employee/${id}/setAwardFromLibrary`;
      const payload = await call('POST', path, 'create', {
        strCountryCode: assignment.countryCode.toLowerCase(),
        strAwardCode: assignment.awardCode,
        arrOverridePayRules: assignment.overridePayRules.map((rule) => ({
          Id: rule.Id,
          HourlyRate: rule.HourlyRate,
        })),
      });
      const fields = options.agreementIdFields ?? defaults.agreementIdFields;
      return { agreementId: requiredId(payload, fields, `POST ${path}`) };
    },

    saveMetrics: (items) => saveMetricsTo('/api/v2/metrics', items),
    saveMetricsBulk: (items) => saveMetricsTo('/api/v2/metrics:bulk', items),

    async createLocation(fields) {
      const checked = validInput(locationRequestSchema, fields, 'location');
      const payload = await call('PUT', '/api/v1/supervise/company', 'create', checked);
      const idFields = options.locationIdFields ?? defaults.locationIdFields;
      return {
        locationId: numericId(requiredId(payload, idFields, 'PUT supervise/company')),
        record: payload,
      };
    },

    async createArea(fields) {
      const checked = validInput(areaRequestSchema, fields, 'area');
      const payload = await call('PUT', '/api/v1/supervise/department', 'create', checked);
      const idFields = options.areaIdFields ?? defaults.areaIdFields;
      return {
        areaId: numericId(requiredId(payload, idFields, 'PUT supervise/department')),
        record: payload,
      };
    },

    async overwriteLeaveBalance(overwrite) {
      if (!Number.isFinite(overwrite.hours)) throw new InvalidRequestError('hours must be a finite number');
      if (overwrite.transactionDate !== 'now' && Number.isNaN(Date.parse(overwrite.transactionDate))) {
        throw new InvalidRequestError('transactionDate must be a timestamp or "now"');
      }
      const payload = await call('POST', '/api/v1/resource/LeaveAccrual', 'idempotent', {
        Employee: validId(overwrite.employeeId, 'employeeId'),
        LeaveRule: validId(overwrite.leaveRuleId, 'leaveRuleId'),
        TransactionDate: overwrite.transactionDate,
        Hours: overwrite.hours,
      });
      return parseResponse(leaveAccrualSchema, payload, 'POST LeaveAccrual');
    },

    async getPayReturns(timesheetId) {
      const lines = await query(
        'TimesheetPayReturn',
        {
          conditions: [{ field: 'Timesheet', type: 'eq', data: validId(timesheetId, 'timesheetId') }],
          join: ['TimesheetObject', 'PayRuleObject'],
        },
        payReturnLineSchema,
      );
      // Every line joins the timesheet asked for: its object is checked once and shared by the
      // lines that carry that same timesheet; a line joined to another one is checked on its own.
      const checked = new Map<number, JoinedTimesheetPayReturn['TimesheetObject']>();
      return lines.map((line, index) => {
        let timesheet = checked.get(line.TimesheetObject.Id);
        if (!timesheet) {
          timesheet = parseResponse(timesheetObjectSchema, line.TimesheetObject, 'QUERY TimesheetPayReturn', [
            index,
            'TimesheetObject',
          ]);
          checked.set(timesheet.Id, timesheet);
        }
        return { ...line, TimesheetObject: timesheet };
      });
    },
  };
}

/**
 * Install answers come bare or in a `{success, data}` envelope depending on the endpoint (the
 * spec shows few of them), so an envelope is optional; `success: false` is always a rejection.
 */
export function unwrapOptionalEnvelope(body: unknown, context: string): unknown {
  if (!isRecord(body) || typeof body.success !== 'boolean') return body;
  if (!body.success) {
    const { serviceCode, serviceMessage } = readServiceError(body);
    throw new ServiceRejectedError(serviceMessage ?? `${context} was refused by the service`, {
      serviceCode,
    });
  }
  return 'data' in body ? body.data : body;
}

/** Looks for the id under the configured names, in the payload and one level down. */
function requiredId(payload: unknown, fields: readonly string[], context: string): string | number {
  const id = firstId(payload, fields) ?? (isRecord(payload) ? firstId(payload.data, fields) : undefined);
  if (id === undefined) {
    throw new ResponseShapeError(`${context}: no id in the answer (looked for ${fields.join(', ')})`);
  }
  return id;
}

function numericId(id: string | number): number {
  const value = typeof id === 'number' ? id : Number(id);
  if (!Number.isInteger(value))
    throw new ResponseShapeError(`expected an integer id, got ${JSON.stringify(id)}`);
  return value;
}

function validId(id: number, name: string): number {
  if (!Number.isInteger(id) || id <= 0) throw new InvalidRequestError(`${name} must be a positive integer`);
  return id;
}
