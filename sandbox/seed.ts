import {
  type AgreementInput,
  type AreaInput,
  type AwardInput,
  type AwardLibraryEntry,
  agreementRecord,
  areaRecord,
  awardLibraryEntry,
  type LeaveAccrualInput,
  type LocationInput,
  leaveAccrualRecord,
  locationRecord,
  type PayRuleInput,
  payRuleRecord,
  SEEDED_AT,
  type TimesheetInput,
  timesheetRecord,
} from './record-shapes.ts';
import {
  dpMetaData,
  emptySlots,
  INSTALL_OWNER,
  INSTALL_RESOURCES,
  type Install,
  type InstallRecord,
  type InstallResource,
  type InstallTables,
  REGION_TIME_ZONES,
  type Region,
  SEED_READINGS,
  type SeedReading,
} from './records.ts';
import addressesFile from './seed/addresses.json' with { type: 'json' };
import areasFile from './seed/areas.json' with { type: 'json' };
import awardLibraryFile from './seed/award-library.json' with { type: 'json' };
import countriesFile from './seed/countries.json' with { type: 'json' };
import customFieldDataFile from './seed/custom-field-data.json' with { type: 'json' };
import employeeAgreementsFile from './seed/employee-agreements.json' with { type: 'json' };
import employeesFile from './seed/employees.json' with { type: 'json' };
import employmentContractsFile from './seed/employment-contracts.json' with { type: 'json' };
import leaveAccrualsFile from './seed/leave-accruals.json' with { type: 'json' };
import leaveRulesFile from './seed/leave-rules.json' with { type: 'json' };
import locationsFile from './seed/locations.json' with { type: 'json' };
import payRulesFile from './seed/pay-rules.json' with { type: 'json' };
import statesFile from './seed/states.json' with { type: 'json' };
import timesheetPayReturnsFile from './seed/timesheet-pay-returns.json' with { type: 'json' };
import timesheetsFile from './seed/timesheets.json' with { type: 'json' };
import { toIsoInZone } from './time.ts';

/**
 * Every install starts from the same records with the same ids, so connector tests can name seeded
 * ids directly. The records are data, in sandbox/seed/*.json (one file per table, README "Seeded
 * data"); this module turns them into an install's tables, adding the fields the sandbox writes on
 * every record (Creator, Created, Modified at SEEDED_AT, _DPMetaData) and applying the spec's seed.
 */

/**
 * A seed file: the records of the plain seed, and what the spec's seed changes. `strict.change`
 * names records by Id and gives the fields that replace theirs (fields some record of the file
 * has: the JSON is not checked for extra fields, so a misspelt one would otherwise slip in);
 * `strict.add` are records only the spec's seed has, after the others.
 */
export interface SeedFile<Row extends { Id: unknown }> {
  $comment?: string;
  records: Row[];
  strict?: { $comment?: string; change?: Array<Partial<Row> & Pick<Row, 'Id'>>; add?: Row[] };
}

type SeededId = number | string;

/** The fields written on every seeded record but the ones of record-shapes.ts. */
const audit = { Creator: INSTALL_OWNER.id, Created: SEEDED_AT, Modified: SEEDED_AT };

function seeded(row: Record<string, unknown>, system: string): InstallRecord {
  return { ...row, ...audit, _DPMetaData: dpMetaData(system) };
}

/**
 * The rows of one seed (copies: installs change their records). `anyField`: the file's records
 * hold only the fields with a value, of any name (custom field data), so a change may name a field
 * no record has.
 */
export function rowsOf<Row extends { Id: SeededId }>(
  file: SeedFile<Row>,
  strict: boolean,
  name: string,
  { anyField = false }: { anyField?: boolean } = {},
): Row[] {
  const rows = structuredClone(file.records);
  if (!strict || !file.strict) return rows;
  const known = new Set([...file.records, ...(file.strict.add ?? [])].flatMap((row) => Object.keys(row)));
  const changes = structuredClone(file.strict.change ?? []);
  for (const change of changes) {
    const at = rows.findIndex((row) => row.Id === change.Id);
    const row = rows[at];
    if (!row) throw new Error(`${name}: strict.change names Id ${change.Id}, which is not seeded`);
    const unknown = anyField ? [] : Object.keys(change).filter((field) => !known.has(field));
    if (unknown.length > 0) {
      throw new Error(
        `${name}: strict.change of Id ${change.Id} names ${unknown.join(', ')}, a field no record of the file has`,
      );
    }
    // The change's fields in its order, then the fields it leaves as seeded.
    const kept = Object.entries(row).filter(([field]) => !Object.hasOwn(change, field));
    rows[at] = { ...change, ...Object.fromEntries(kept) } as Row;
  }
  for (const added of structuredClone(file.strict.add ?? [])) {
    if (rows.some((row) => row.Id === added.Id)) {
      throw new Error(`${name}: strict.add has Id ${added.Id}, which is already seeded`);
    }
    rows.push(added);
  }
  return rows;
}

function zeroOrOne(value: number, where: string): 0 | 1 {
  if (value !== 0 && value !== 1) throw new Error(`${where} must be 0 or 1, not ${value}`);
  return value;
}

interface CountryRow {
  Id: number;
  Code: string;
  CodeA3: string;
  Region: string;
  Active: boolean;
  SortOrder: number;
  Country: string;
  ZipValidatePreg: string;
  PhoneDisplayPreg: string | null;
}

interface StateRow {
  Id: number;
  Country: number;
  Code: string;
  Active: boolean;
  SortOrder: number;
  State: string;
}

interface EmployeeRow {
  Id: number;
  FirstName: string;
  LastName: string;
  DisplayName: string;
  Email: string;
  Mobile: string;
  Company: number;
  Active: boolean;
  StartDate: string;
  CustomFieldData: number | null;
}

/** Id, System and the fields holding a value (slots F01..F128 and named fields). */
interface CustomFieldDataRow {
  Id: number;
  System: string;
  [field: string]: unknown;
}

interface EmploymentContractRow {
  Id: number;
  Name: string;
  Description: string;
  BasePayRule: string;
  AwardCode: string | null;
  EmploymentBasis: string;
  PayPeriod: string;
}

/** CompanyName: the loader's, the name of the employee's location. */
type EmployeeAgreementRow = Omit<AgreementInput, 'CompanyName' | 'Created'>;

interface LeaveRuleRow {
  Id: number;
  Name: string;
  Description: string;
  Unit: string;
  PaidLeave: boolean;
  Active: boolean;
}

type LeaveAccrualRow = Omit<LeaveAccrualInput, 'Created'>;

interface AddressRow {
  Id: number;
  Address: string;
}

/** IsWorkplace, IsPayrollEntity: 0 or 1 (JSON gives numbers; the loader checks them). */
type LocationRow = Omit<LocationInput, 'IsWorkplace' | 'IsPayrollEntity' | 'Created'> & {
  IsWorkplace: number;
  IsPayrollEntity: number;
};

/** CompanyName: the loader's, its location's. OperationalUnitType: 0 or 1 (the loader checks it). */
type AreaRow = Omit<AreaInput, 'CompanyName' | 'OperationalUnitType' | 'Created'> & {
  OperationalUnitType: number;
};

/** OperationalUnit: an area Id; the loader finds the area, its location and the employee's name. */
type TimesheetRow = Omit<TimesheetInput, 'employeeName' | 'area'> & { OperationalUnit: number };

interface TimesheetPayReturnRow {
  Id: number;
  Timesheet: number;
  PayRule: string;
  Value: number;
  Cost: number;
  eventIds: string[] | null;
}

// The seed files, typed: `npm run typecheck` checks them against their rows.
const COUNTRIES: SeedFile<CountryRow> = countriesFile;
const STATES: SeedFile<StateRow> = statesFile;
const EMPLOYEES: SeedFile<EmployeeRow> = employeesFile;
const CUSTOM_FIELD_DATA: SeedFile<CustomFieldDataRow> = customFieldDataFile;
const EMPLOYMENT_CONTRACTS: SeedFile<EmploymentContractRow> = employmentContractsFile;
const PAY_RULES: SeedFile<PayRuleInput> = payRulesFile;
const EMPLOYEE_AGREEMENTS: SeedFile<EmployeeAgreementRow> = employeeAgreementsFile;
const LEAVE_RULES: SeedFile<LeaveRuleRow> = leaveRulesFile;
const LEAVE_ACCRUALS: SeedFile<LeaveAccrualRow> = leaveAccrualsFile;
const ADDRESSES: SeedFile<AddressRow> = addressesFile;
const LOCATIONS: SeedFile<LocationRow> = locationsFile;
const AREAS: SeedFile<AreaRow> = areasFile;
const TIMESHEETS: SeedFile<TimesheetRow> = timesheetsFile;
const TIMESHEET_PAY_RETURNS: SeedFile<TimesheetPayReturnRow> = timesheetPayReturnsFile;
const AWARD_LIBRARY: { records: AwardInput[] } = awardLibraryFile;

interface SeedOptions {
  /** Lenient readings of the seed (sandbox/mode.ts). @default none: the spec's seed */
  readings?: readonly SeedReading[];
  region?: Region;
}

function seedTables(options: SeedOptions = {}): InstallTables {
  const readings = options.readings ?? [];
  // The seed files' `strict` changes are the spec's seed; `plain-seed` leaves them out.
  const strict = !readings.includes('plain-seed');
  const region = options.region ?? 'us';
  const rows = <Row extends { Id: SeededId }>(file: SeedFile<Row>, name: string) =>
    rowsOf(file, strict, name);
  const employees = rows(EMPLOYEES, 'employees.json');
  const locations = rows(LOCATIONS, 'locations.json');
  const areas = rows(AREAS, 'areas.json');
  /** The name of a seeded location, which areas and agreements repeat. */
  const companyName = (locationId: number, where: string) => {
    const location = locations.find((candidate) => candidate.Id === locationId);
    if (!location) throw new Error(`${where} names location ${locationId}, which is not seeded`);
    return location.CompanyName;
  };
  // BaseRate exists on US installs only (the spec's pay-rate resolution rule);
  // `base-rate-everywhere` gives every install the US agreements.
  const withBaseRates = readings.includes('base-rate-everywhere') || region === 'us';
  const tables: InstallTables = {
    Country: rows(COUNTRIES, 'countries.json').map((row) => seeded({ ...row }, 'Country')),
    State: rows(STATES, 'states.json').map((row) => seeded({ ...row }, 'State')),
    Employee: employees.map((row) => seeded({ ...row }, 'Employee')),
    CustomFieldData: rowsOf(CUSTOM_FIELD_DATA, strict, 'custom-field-data.json', { anyField: true }).map(
      ({ Id, System, ...values }) => seeded({ Id, System, ...emptySlots(), ...values }, 'CustomFieldData'),
    ),
    EmploymentContract: rows(EMPLOYMENT_CONTRACTS, 'employment-contracts.json').map((row) =>
      seeded({ ...row }, 'EmploymentContract'),
    ),
    PayRule: rows(PAY_RULES, 'pay-rules.json').map((row) => payRuleRecord(row)),
    EmployeeAgreement: rows(EMPLOYEE_AGREEMENTS, 'employee-agreements.json').map((row) => {
      const employee = employees.find((candidate) => candidate.Id === row.EmployeeId);
      if (!employee) {
        throw new Error(
          `employee-agreements.json: agreement ${row.Id} names Employee ${row.EmployeeId}, which is not seeded`,
        );
      }
      return agreementRecord({
        ...row,
        CompanyName: companyName(employee.Company, `employees.json: employee ${employee.Id}`),
        BaseRate: withBaseRates ? row.BaseRate : null,
        Created: SEEDED_AT,
      });
    }),
    LeaveRule: rows(LEAVE_RULES, 'leave-rules.json').map((row) => seeded({ ...row }, 'LeaveRule')),
    LeaveAccrual: rows(LEAVE_ACCRUALS, 'leave-accruals.json').map((row) =>
      leaveAccrualRecord({ ...row, Created: SEEDED_AT }),
    ),
    Timesheet: rows(TIMESHEETS, 'timesheets.json').map(({ OperationalUnit, ...row }) => {
      const area = areas.find((candidate) => candidate.Id === OperationalUnit);
      const employee = employees.find((candidate) => candidate.Id === row.Employee);
      if (!area || !employee) {
        throw new Error(
          `timesheets.json: timesheet ${row.Id} names ${area ? `Employee ${row.Employee}` : `OperationalUnit ${OperationalUnit}`}, which is not seeded`,
        );
      }
      const location = locations.find((candidate) => candidate.Id === area.Company);
      return timesheetRecord({
        ...row,
        employeeName: employee.DisplayName,
        area: {
          Id: area.Id,
          OperationalUnitName: area.OperationalUnitName,
          Company: area.Company,
          CompanyName: location?.CompanyName ?? '',
        },
      });
    }),
    TimesheetPayReturn: rows(TIMESHEET_PAY_RETURNS, 'timesheet-pay-returns.json').map(
      ({ eventIds, ...row }) => ({
        Id: row.Id,
        Timesheet: row.Timesheet,
        PayRule: row.PayRule,
        Overridden: false,
        Value: row.Value,
        Cost: row.Cost,
        OverrideComment: '',
        ...audit,
        EventIds: eventIds ? JSON.stringify(eventIds) : null,
        _DPMetaData: dpMetaData('TimesheetPayReturn'),
      }),
    ),
    Location: locations.map((row) =>
      locationRecord({
        ...row,
        IsWorkplace: zeroOrOne(row.IsWorkplace, `Location ${row.Id} IsWorkplace`),
        IsPayrollEntity: zeroOrOne(row.IsPayrollEntity, `Location ${row.Id} IsPayrollEntity`),
        Created: SEEDED_AT,
      }),
    ),
    Area: areas.map(({ Id, Company, ...row }) =>
      areaRecord({
        // The record's field order: CompanyName after Company.
        Id,
        Company,
        CompanyName: companyName(Company, `areas.json: area ${Id}`),
        ...row,
        OperationalUnitType: zeroOrOne(row.OperationalUnitType, `Area ${Id} OperationalUnitType`),
        Created: SEEDED_AT,
      }),
    ),
    Address: rows(ADDRESSES, 'addresses.json').map((row) => seeded({ ...row }, 'Address')),
    Metric: [],
    AgreedHour: [],
    CustomField: [],
  };
  if (!readings.includes('utc-timestamps')) inLocalTime(tables, REGION_TIME_ZONES[region]);
  return tables;
}

const LOCAL_TIME_FIELDS = ['Created', 'Modified', 'TransactionDate'];

/** The spec reading: the same instants, written with the install's local UTC offset. */
function inLocalTime(tables: InstallTables, timeZone: string): void {
  for (const records of Object.values(tables)) {
    for (const record of records) {
      for (const field of LOCAL_TIME_FIELDS) {
        const value = record[field];
        if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) {
          record[field] = toIsoInZone(Date.parse(value), timeZone);
        }
      }
    }
  }
}

/** A new install, seeded as the spec reads (or with the lenient seed readings given). */
export function createInstall(
  hostname: string,
  region: Region,
  options: { readings?: readonly SeedReading[] } = {},
): Install {
  const seedReadings = SEED_READINGS.filter((reading) => options.readings?.includes(reading));
  const tables = seedTables({ readings: seedReadings, region });
  const lastIds = {} as Record<InstallResource, number>;
  for (const resource of INSTALL_RESOURCES) {
    const numericIds = tables[resource].map((record) => record.Id).filter((id) => typeof id === 'number');
    lastIds[resource] = Math.max(0, ...numericIds);
  }
  return { hostname, region, seedReadings, tables, lastIds, pendingMetrics: [] };
}

/** The award library (listAwardsLibrary), the same on every install: new entries at each call. */
export function awardLibrary(): AwardLibraryEntry[] {
  return AWARD_LIBRARY.records.map((row) => awardLibraryEntry(row));
}
