import {
  dpMetaData,
  emptySlots,
  INSTALL_OWNER,
  INSTALL_RESOURCES,
  type Install,
  type InstallRecord,
  type InstallResource,
  type InstallTables,
  personInfo,
  REGION_TIME_ZONES,
  type Region,
} from './records.ts';
import { toIsoInZone } from './time.ts';

/**
 * Every install starts from the same records with the same ids, so connector tests can
 * name seeded ids directly. Timestamps are fixed (not the sandbox clock) for the same reason.
 */
const SEEDED_AT = '2026-01-05T09:00:00+00:00';

const audit = { Creator: INSTALL_OWNER.id, Created: SEEDED_AT, Modified: SEEDED_AT };

function countries(strict: boolean): InstallRecord[] {
  const rows: Array<[number, string, string, string, string, string, string | null]> = [
    [1, 'US', 'USA', 'North America', 'United States', '/^\\d{5}(-\\d{4})?$/', '(###) ###-####'],
    [2, 'AU', 'AUS', 'Oceania', 'Australia', '/^\\d{4}$/', '#### ### ###'],
    [3, 'GB', 'GBR', 'Europe', 'United Kingdom', '/^[A-Z]{1,2}\\d[A-Z\\d]? ?\\d[A-Z]{2}$/i', null],
    [4, 'NZ', 'NZL', 'Oceania', 'New Zealand', '/^\\d{4}$/', null],
    [5, 'CA', 'CAN', 'North America', 'Canada', '/^[A-Z]\\d[A-Z] ?\\d[A-Z]\\d$/i', '(###) ###-####'],
  ];
  // Strict: a full-name `lk` search for "United States" finds two countries.
  if (strict) rows.push([6, 'UM', 'UMI', 'Oceania', 'United States Minor Outlying Islands', '', null]);
  return rows.map(([Id, Code, CodeA3, Region, Country, ZipValidatePreg, PhoneDisplayPreg]) => ({
    Id,
    Code,
    CodeA3,
    Region,
    Active: true,
    SortOrder: Id,
    Country,
    ZipValidatePreg,
    PhoneDisplayPreg,
    ...audit,
    _DPMetaData: dpMetaData('Country'),
  }));
}

function states(strict: boolean): InstallRecord[] {
  const byCountry: Array<[number, Array<[string, string]>]> = [
    [
      1,
      [
        ['CA', 'California'],
        ['NY', 'New York'],
        ['NJ', 'New Jersey'],
        ['NM', 'New Mexico'],
        ['TX', 'Texas'],
        ['WA', 'Washington'],
        ['OR', 'Oregon'],
        ['IL', 'Illinois'],
      ],
    ],
    [
      2,
      [
        ['NSW', 'New South Wales'],
        ['VIC', 'Victoria'],
        ['QLD', 'Queensland'],
        ['TAS', 'Tasmania'],
        ['ACT', 'Australian Capital Territory'],
      ],
    ],
    [
      3,
      [
        ['ENG', 'England'],
        ['SCT', 'Scotland'],
        ['WLS', 'Wales'],
        ['NIR', 'Northern Ireland'],
      ],
    ],
    [
      4,
      [
        ['AUK', 'Auckland'],
        ['WGN', 'Wellington'],
      ],
    ],
  ];
  // Strict: the code WA also belongs to Washington (US); only Country tells them apart. Added
  // last so that every other state keeps its id.
  if (strict) byCountry.push([2, [['WA', 'Western Australia']]]);
  const records: InstallRecord[] = [];
  for (const [country, list] of byCountry) {
    list.forEach(([Code, State]) => {
      records.push({
        Id: records.length + 1,
        Country: country,
        Code,
        Active: true,
        SortOrder: records.filter((record) => record.Country === country).length + 1,
        State,
        ...audit,
        _DPMetaData: dpMetaData('State'),
      });
    });
  }
  return records;
}

const EMPLOYEES: Array<[number, string, string, number]> = [
  [1, 'Jordan', 'Lee', 1],
  [2, 'Sam', 'Patel', 1],
  [3, 'Riley', 'Chen', 2],
  [4, 'Morgan', 'Diaz', 2],
  [5, 'Casey', 'Nguyen', 1],
];

function displayNameOf(employeeId: number): string {
  const row = EMPLOYEES.find(([id]) => id === employeeId);
  return row ? `${row[1]} ${row[2]}` : `Employee ${employeeId}`;
}

function employees(): InstallRecord[] {
  return EMPLOYEES.map(([Id, FirstName, LastName, Company]) => ({
    Id,
    FirstName,
    LastName,
    DisplayName: `${FirstName} ${LastName}`,
    Email: `${FirstName.toLowerCase()}.${LastName.toLowerCase()}@example.test`,
    Mobile: `+1555010000${Id}`,
    Company,
    Active: true,
    StartDate: '2026-01-05',
    // Employee 1 already owns slots F01/F02, so a connector has to look before it writes.
    CustomFieldData: Id === 1 ? 1 : null,
    ...audit,
    _DPMetaData: dpMetaData('Employee'),
  }));
}

function employeeOneCustomFieldData(): InstallRecord {
  return {
    Id: 1,
    System: 'Employee',
    ...emptySlots(),
    F01: 'BADGE-0001',
    F02: true,
    ...audit,
    _DPMetaData: dpMetaData('CustomFieldData'),
  };
}

/**
 * Strict: timesheet answers in every spelling the spec lists (with and without the comma before
 * "I don't consent", on fields whose list has the other one), values it does not list, booleans
 * where strings are expected and the reverse, empty strings, slot values of both types, and a
 * fair-work-week field the spec does not name.
 * Only F01/F02 hold values, as in the default seed, so the free employee slots are the same.
 */
function strictTimesheetCustomFieldData(): InstallRecord[] {
  return [
    {
      Id: 2,
      System: 'Timesheet',
      ...emptySlots(),
      F01: 'Yes, Manager Requested',
      F02: true,
      fwwleavinglate: 'Yes, Schedule Change Accepted',
      fwwcominginearly: "No I don't consent",
      fwwcominginlate: "No, I don't consent",
      fwwleavingearly: "No I don't consent",
      fwwunscheduledshiftconsent: "No, I don't consent",
      fwwunscheduledshifthours: '2.5',
      fwwagreedtoextendshift: 'true',
      fwwreceivedallmealbreaks: true,
      fwwreceivedallrestbreaks: '',
      leavinglate: 'Yes, Manager Requested',
      ...audit,
      _DPMetaData: dpMetaData('CustomFieldData'),
    },
    {
      Id: 3,
      System: 'Timesheet',
      ...emptySlots(),
      F01: '',
      F02: false,
      fwwleavinglate: "No I don't consent",
      fwwcominginearly: "No, I don't consent",
      fwwcominginlate: 'Yes, Personal Reasons',
      fwwleavingearly: "No, I don't consent",
      fwwunscheduledshiftconsent: 'Yes, I requested this',
      fwwunscheduledshifthours: true,
      fwwagreedtoextendshift: '',
      fwwreceivedallmealbreaks: false,
      fwwreceivedallrestbreaks: 'No',
      consent: true,
      consent2: 'Yes',
      // A fair-work-week element the spec does not list yet ("new data elements appear").
      fwwschedulechangenotice: 'Yes, Manager Requested',
      ...audit,
      _DPMetaData: dpMetaData('CustomFieldData'),
    },
  ];
}

function customFieldData(strict: boolean): InstallRecord[] {
  if (strict) return [employeeOneCustomFieldData(), ...strictTimesheetCustomFieldData()];
  return [
    employeeOneCustomFieldData(),
    {
      Id: 2,
      System: 'Timesheet',
      ...emptySlots(),
      F01: 'Yes, Manager Requested',
      F02: true,
      fwwleavinglate: 'Yes, Manager Requested',
      fwwreceivedallmealbreaks: true,
      ...audit,
      _DPMetaData: dpMetaData('CustomFieldData'),
    },
  ];
}

/** Every key the spec lists for PayRuleObject.Config, with neutral values. */
function payRuleConfig(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    phEndTime: null,
    eventTypes: [],
    leavingLate: 'ANSWER_UNSPECIFIED',
    phStartTime: null,
    comingInLate: 'ANSWER_UNSPECIFIED',
    leavingEarly: 'ANSWER_UNSPECIFIED',
    comingInEarly: 'ANSWER_UNSPECIFIED',
    midnightSplit: false,
    usePredictPay: false,
    payPortionRule: null,
    returnTimeType: 'RETURN_TIME_TYPE_UNSPECIFIED',
    shiftQuestions: [],
    mealbreakWaiver: false,
    isLastShiftForDay: false,
    isShiftInOvertime: false,
    workPeriodEndTime: null,
    basePeriodStartDate: '2026-01-05',
    splitShiftTimestamp: null,
    workPeriodStartTime: null,
    ruleThresholdSeconds: 0,
    consecutiveDaysWorked: 0,
    receivedAllMealBreaks: 'ANSWER_UNSPECIFIED',
    receivedAllRestBreaks: 'ANSWER_UNSPECIFIED',
    useCombinedTimeChange: false,
    useProrataCalculation: false,
    dailyOvertimeThreshold: 28800,
    isShiftOnPublicHoliday: false,
    basePeriodFrequencyDays: 7,
    ignorePremiumInOvertime: false,
    periodOvertimeThreshold: 144000,
    unscheduledShiftConsent: 'ANSWER_UNSPECIFIED',
    basePeriodDayOfWeekStart: 'MONDAY',
    schedulePremiumReference: null,
    shiftLengthThresholdSeconds: 0,
    changePeriodThresholdSeconds: 0,
    dailyOrdinaryTimeTotalSeconds: 0,
    consecutiveDaysWorkedThreshold: 0,
    restBetweenShiftsThresholdSeconds: 0,
    timesheetPayReturnOrdinaryTimeTotal: 0,
    ...overrides,
  });
}

interface PayRuleInput {
  Id: string;
  PayTitle: string;
  HourlyRate: number;
  PayrollCategory: string;
  MultiplierValue?: number;
  Config?: Record<string, unknown>;
  Comment?: string;
}

export function payRuleRecord(input: PayRuleInput): InstallRecord {
  const isMultiplier = input.MultiplierValue !== undefined;
  return {
    Id: input.Id,
    PayTitle: input.PayTitle,
    RemunerationType: 'HOURLY',
    RemunerationBy: 'HOURS',
    AnnualSalary: null,
    HourlyRate: input.HourlyRate,
    IsMultiplier: isMultiplier,
    MultiplierValue: input.MultiplierValue ?? null,
    MultiplierBaseRate: isMultiplier ? 'BASE_RATE' : null,
    MinimumType: null,
    MaximumType: null,
    MinimumValue: null,
    MaximumValue: null,
    MinimumShiftLength: null,
    MaximumShiftLength: null,
    AdvancedCalculation: false,
    IsExported: true,
    UnitValue: 1,
    Schedule: null,
    RecommendWith: null,
    DexmlScript: null,
    DexmlScriptParam: null,
    PeriodType: 'WEEKLY',
    PayPortionRule: null,
    PayrollCategory: input.PayrollCategory,
    Comment: input.Comment ?? '',
    RateType: isMultiplier ? 'MULTIPLIER' : 'FLAT',
    RateTag: null,
    ...audit,
    CtId: null,
    CrId: null,
    Config: payRuleConfig(input.Config),
    _DPMetaData: dpMetaData('PayRule'),
  };
}

function payRules(): InstallRecord[] {
  return [
    payRuleRecord({
      Id: 'pr_us_retail_base',
      PayTitle: 'Retail Base Rate',
      HourlyRate: 18.5,
      PayrollCategory: 'REG',
    }),
    payRuleRecord({
      Id: 'pr_us_hosp_base',
      PayTitle: 'Hospitality Base Rate',
      HourlyRate: 17.25,
      PayrollCategory: 'REG-HOSP',
    }),
    payRuleRecord({
      Id: 'pr_us_overtime',
      PayTitle: 'Overtime 1.5x',
      HourlyRate: 0,
      MultiplierValue: 1.5,
      PayrollCategory: 'OT15',
      Config: { isShiftInOvertime: true },
    }),
    payRuleRecord({
      Id: 'pr_us_predict_added',
      PayTitle: 'Predictability Pay - Time Added',
      HourlyRate: 0,
      MultiplierValue: 1,
      PayrollCategory: 'PP-ADD',
      Comment: 'Schedule-change premium: one hour per change made inside the notice period',
      Config: {
        usePredictPay: true,
        eventTypes: ['TIME_ADDED', 'LOCATION_CHANGED'],
        returnTimeType: 'PER_OCCURRENCE',
        changePeriodThresholdSeconds: 1_209_600,
        schedulePremiumReference: 'FWW-NYC-ADD',
      },
    }),
    payRuleRecord({
      Id: 'pr_us_predict_changed',
      PayTitle: 'Predictability Pay - Time Changed',
      HourlyRate: 0,
      MultiplierValue: 1,
      PayrollCategory: 'PP-CHG',
      Comment: 'Schedule-change premium for moved or shortened shifts',
      Config: {
        usePredictPay: true,
        eventTypes: ['TIME_CHANGED_TOTAL_CHANGED', 'TIME_CHANGED_TOTAL_SAME'],
        returnTimeType: 'RETURN_TIME_TYPE_UNSPECIFIED',
        changePeriodThresholdSeconds: 1_209_600,
        shiftLengthThresholdSeconds: 14_400,
        useCombinedTimeChange: true,
        schedulePremiumReference: 'FWW-NYC-CHG',
      },
    }),
  ];
}

function employmentContracts(): InstallRecord[] {
  return [
    {
      Id: 1,
      Name: 'US Retail Associate',
      Description: 'Hourly retail staff',
      BasePayRule: 'pr_us_retail_base',
      AwardCode: null,
      EmploymentBasis: 'HOURLY',
      PayPeriod: 'WEEKLY',
      ...audit,
      _DPMetaData: dpMetaData('EmploymentContract'),
    },
    {
      Id: 2,
      Name: 'US Hospitality Server',
      Description: 'Hourly hospitality staff',
      BasePayRule: 'pr_us_hosp_base',
      AwardCode: null,
      EmploymentBasis: 'HOURLY',
      PayPeriod: 'WEEKLY',
      ...audit,
      _DPMetaData: dpMetaData('EmploymentContract'),
    },
  ];
}

const LOCATION_NAMES: Record<number, string> = { 1: 'Main Street Store', 2: 'Harbour Warehouse' };

export function agreementRecord(input: {
  Id: number;
  EmployeeId: number;
  Contract: number;
  BaseRate: number | null;
  CompanyName: string | null;
  StartDate: string;
  Created: string;
}): InstallRecord {
  return {
    Id: input.Id,
    EmployeeId: input.EmployeeId,
    PayPoint: 1,
    EmpType: 1,
    CompanyName: input.CompanyName,
    Active: true,
    StartDate: input.StartDate,
    EndDate: null,
    Contract: input.Contract,
    SalaryPayRule: null,
    ContractFile: null,
    PayrollId: `P-${String(input.EmployeeId).padStart(4, '0')}`,
    PayPeriod: 'WEEKLY',
    HistoryId: input.Id,
    Creator: INSTALL_OWNER.id,
    Created: input.Created,
    Modified: input.Created,
    BaseRate: input.BaseRate,
    Config: JSON.stringify({ overtimeEligible: true }),
    _DPMetaData: dpMetaData('EmployeeAgreement'),
  };
}

function employeeAgreements(baseRates: boolean): InstallRecord[] {
  // Employees 2 and 4 have no BaseRate: their rate resolves through Contract → BasePayRule.
  // Without base rates (strict, non-US installs) none has one.
  const rows: Array<[number, number, number | null]> = [
    [1, 1, 22.5],
    [2, 1, null],
    [3, 2, 21],
    [4, 2, null],
    [5, 1, 19.75],
  ];
  return rows.map(([employee, contract, baseRate]) => {
    const company = EMPLOYEES.find(([id]) => id === employee)?.[3] ?? 1;
    return agreementRecord({
      Id: employee,
      EmployeeId: employee,
      Contract: contract,
      BaseRate: baseRates ? baseRate : null,
      CompanyName: LOCATION_NAMES[company] ?? null,
      StartDate: '2026-01-05',
      Created: SEEDED_AT,
    });
  });
}

function leaveRules(): InstallRecord[] {
  const rows: Array<[number, string, boolean]> = [
    [1, 'Annual Leave', true],
    [2, "Personal/Carer's Leave", true],
    [3, 'Paid Sick Leave', true],
    [4, 'Unpaid Leave', false],
  ];
  return rows.map(([Id, Name, PaidLeave]) => ({
    Id,
    Name,
    Description: Name,
    Unit: 'HOURS',
    PaidLeave,
    Active: true,
    ...audit,
    _DPMetaData: dpMetaData('LeaveRule'),
  }));
}

export function leaveAccrualRecord(input: {
  Id: number;
  Employee: number;
  EmployeeHistory: number | null;
  LeaveRule: number;
  TransactionDate: string;
  Hours: number;
  Created: string;
}): InstallRecord {
  return {
    Id: input.Id,
    Employee: input.Employee,
    EmployeeHistory: input.EmployeeHistory,
    TransactionDate: input.TransactionDate,
    Type: 1,
    LeaveRule: input.LeaveRule,
    Hours: input.Hours,
    // The sandbox converts with an 8-hour day; the real conversion is not shown.
    Days: Math.round((input.Hours / 8) * 100) / 100,
    Comment: null,
    FkId: null,
    BalanceCalculatedAt: null,
    Creator: INSTALL_OWNER.id,
    Created: input.Created,
    Modified: input.Created,
    _DPMetaData: dpMetaData('LeaveAccrual'),
  };
}

function leaveAccruals(): InstallRecord[] {
  return [
    leaveAccrualRecord({
      Id: 1,
      Employee: 1,
      EmployeeHistory: 1,
      LeaveRule: 1,
      TransactionDate: SEEDED_AT,
      Hours: 40,
      Created: SEEDED_AT,
    }),
    leaveAccrualRecord({
      Id: 2,
      Employee: 1,
      EmployeeHistory: 1,
      LeaveRule: 1,
      TransactionDate: '2026-02-02T09:00:00+00:00',
      Hours: -8,
      Created: SEEDED_AT,
    }),
    leaveAccrualRecord({
      Id: 3,
      Employee: 2,
      EmployeeHistory: 2,
      LeaveRule: 2,
      TransactionDate: SEEDED_AT,
      Hours: 16,
      Created: SEEDED_AT,
    }),
  ];
}

function addresses(): InstallRecord[] {
  return [
    {
      Id: 1,
      Address: '100 Main Street, Springfield, IL 62701',
      ...audit,
      _DPMetaData: dpMetaData('Address'),
    },
    { Id: 2, Address: '5 Harbour Road, Portland, OR 97201', ...audit, _DPMetaData: dpMetaData('Address') },
  ];
}

export function locationRecord(input: {
  Id: number;
  CompanyName: string;
  Code: string | null;
  TradingName: string | null;
  Active: boolean;
  ParentCompany: number | null;
  IsWorkplace: 0 | 1;
  IsPayrollEntity: 0 | 1;
  PayrollExportCode: string | null;
  Address: number | null;
  Created: string;
}): InstallRecord {
  const { Created, ...fields } = input;
  return {
    ...fields,
    Creator: INSTALL_OWNER.id,
    Created,
    Modified: Created,
    _DPMetaData: dpMetaData('Company'),
  };
}

function locations(): InstallRecord[] {
  return [
    locationRecord({
      Id: 1,
      CompanyName: 'Main Street Store',
      Code: 'MAIN',
      TradingName: 'Main Street Store',
      Active: true,
      ParentCompany: null,
      IsWorkplace: 1,
      IsPayrollEntity: 1,
      PayrollExportCode: 'MAIN-PR',
      Address: 1,
      Created: SEEDED_AT,
    }),
    locationRecord({
      Id: 2,
      CompanyName: 'Harbour Warehouse',
      Code: 'HARB',
      TradingName: 'Harbour Logistics',
      Active: true,
      ParentCompany: null,
      IsWorkplace: 1,
      IsPayrollEntity: 0,
      PayrollExportCode: 'HARB-PR',
      Address: 2,
      Created: SEEDED_AT,
    }),
  ];
}

export function areaRecord(input: {
  Id: number;
  Company: number;
  CompanyName: string;
  OperationalUnitName: string;
  Address: string | null;
  ExportName: string | null;
  OperationalUnitType: 0 | 1;
  Created: string;
}): InstallRecord {
  const { Created, ...fields } = input;
  return {
    ...fields,
    Active: true,
    Creator: INSTALL_OWNER.id,
    Created,
    Modified: Created,
    _DPMetaData: dpMetaData('OperationalUnit'),
  };
}

function areas(): InstallRecord[] {
  return [
    areaRecord({
      Id: 1,
      Company: 1,
      CompanyName: 'Main Street Store',
      OperationalUnitName: 'Sales Floor',
      Address: null,
      ExportName: 'SALES',
      OperationalUnitType: 0,
      Created: SEEDED_AT,
    }),
    areaRecord({
      Id: 2,
      Company: 2,
      CompanyName: 'Harbour Warehouse',
      OperationalUnitName: 'Dispatch',
      Address: null,
      ExportName: 'DISPATCH',
      OperationalUnitType: 0,
      Created: SEEDED_AT,
    }),
  ];
}

interface TimesheetInput {
  Id: number;
  Employee: number;
  area: 1 | 2;
  date: string;
  startHour: number;
  endHour: number;
  mealMinutes: number;
  cost: number;
  forecastCost: number;
  borrowedOrLent: Record<string, unknown> | null;
  customFieldData: number | null;
}

function timesheet(input: TimesheetInput): InstallRecord {
  const dayStart = Date.parse(`${input.date}T00:00:00Z`) / 1000;
  const start = dayStart + input.startHour * 3600;
  const end = dayStart + input.endHour * 3600;
  const mealStart = start + 4 * 3600;
  const mealEnd = mealStart + input.mealMinutes * 60;
  const totalHours = (end - start - input.mealMinutes * 60) / 3600;
  const minuteOfDay = (unix: number) => Math.round((unix - dayStart) / 60);
  const slot = (type: 'SHIFT' | 'BREAK', from: number, to: number) => ({
    blnEmptySlot: false,
    strType: type,
    intStart: minuteOfDay(from),
    intEnd: minuteOfDay(to),
    intUnixStart: from,
    intUnixEnd: to,
    mixedActivity: {
      intState: 1,
      blnCanStartEarly: true,
      blnCanEndEarly: true,
      blnIsMandatory: type === 'BREAK',
      strBreakType: type === 'BREAK' ? 'MEAL' : '',
    },
    strTypeName: type === 'BREAK' ? 'Meal Break' : 'Shift',
    strState: 'APPROVED',
  });
  const companyId = input.area;
  const companyName = LOCATION_NAMES[companyId] ?? '';
  const areaName = input.area === 1 ? 'Sales Floor' : 'Dispatch';
  const employeeName = displayNameOf(input.Employee);
  return {
    Id: input.Id,
    Employee: input.Employee,
    EmployeeHistory: input.Employee,
    EmployeeAgreement: input.Employee,
    Date: input.date,
    StartTime: start,
    EndTime: end,
    Mealbreak: `${input.date} 00:${String(input.mealMinutes).padStart(2, '0')}:00`,
    MealbreakSlots: `${mealStart}-${mealEnd}`,
    Slots: [slot('SHIFT', start, mealStart), slot('BREAK', mealStart, mealEnd), slot('SHIFT', mealEnd, end)],
    TotalTime: totalHours,
    TotalTimeInv: totalHours,
    Cost: input.cost,
    Roster: input.Id - 900,
    EmployeeComment: '',
    SupervisorComment: '',
    Supervisor: INSTALL_OWNER.id,
    Disputed: false,
    TimeApproved: true,
    TimeApprover: INSTALL_OWNER.id,
    Discarded: false,
    ValidationFlag: 0,
    OperationalUnit: input.area,
    IsInProgress: false,
    IsLeave: false,
    LeaveId: null,
    LeaveRule: null,
    Invoiced: false,
    InvoiceComment: '',
    PayRuleApproved: true,
    Exported: false,
    StagingId: null,
    PayStaged: false,
    PaycycleId: 1,
    MarkedPaidUnpaidAt: null,
    AccrualState: 'PROCESSED',
    AccrualStateChangedAt: `${input.date}T23:00:00+00:00`,
    AccrualAttempts: 1,
    File: null,
    CustomFieldData: input.customFieldData,
    RealTime: true,
    AutoProcessed: false,
    AutoRounded: false,
    AutoTimeApproved: false,
    AutoPayRuleApproved: false,
    Metadata: JSON.stringify({ borrowed_or_lent: input.borrowedOrLent, forecast_cost: input.forecastCost }),
    ParentId: null,
    Creator: INSTALL_OWNER.id,
    Created: `${input.date}T23:00:00+00:00`,
    Modified: `${input.date}T23:00:00+00:00`,
    StartTimeLocalized: new Date(start * 1000).toISOString().replace('.000Z', '+00:00'),
    EndTimeLocalized: new Date(end * 1000).toISOString().replace('.000Z', '+00:00'),
    OnCost: Math.round(input.cost * 0.1 * 100) / 100,
    _DPMetaData: dpMetaData('Timesheet', {
      OperationalUnitInfo: {
        Id: input.area,
        OperationalUnitName: areaName,
        Company: companyId,
        CompanyName: companyName,
        LabelWithCompany: `[${companyName}] ${areaName}`,
      },
      EmployeeInfo: personInfo(input.Employee, employeeName),
    }),
  };
}

function timesheets(strict: boolean): InstallRecord[] {
  return [
    timesheet({
      Id: 1001,
      Employee: 1,
      area: 1,
      date: '2026-01-12',
      startHour: 9,
      endHour: 17.5,
      mealMinutes: 30,
      cost: 202.5,
      forecastCost: 180,
      borrowedOrLent: null,
      customFieldData: 2,
    }),
    timesheet({
      Id: 1002,
      Employee: 2,
      area: 1,
      date: '2026-01-12',
      startHour: 8,
      endHour: 17,
      mealMinutes: 30,
      cost: 166.5,
      forecastCost: 148,
      borrowedOrLent: null,
      customFieldData: null,
    }),
    timesheet({
      Id: 1003,
      Employee: 3,
      area: 2,
      date: '2026-01-13',
      startHour: 10,
      endHour: 18.5,
      mealMinutes: 30,
      cost: 231,
      forecastCost: 168,
      borrowedOrLent: { type: 'borrowed', fromCompany: 1, fromArea: 1 },
      customFieldData: strict ? 3 : null,
    }),
    timesheet({
      Id: 1004,
      Employee: 4,
      area: 2,
      date: '2026-01-14',
      startHour: 7,
      endHour: 15.5,
      mealMinutes: 30,
      cost: 138,
      forecastCost: 138,
      borrowedOrLent: null,
      customFieldData: null,
    }),
  ];
}

function timesheetPayReturns(): InstallRecord[] {
  // [timesheet, pay rule, hours, cost, schedule-change event ids]
  const lines: Array<[number, string, number, number, string[] | null]> = [
    [1001, 'pr_us_retail_base', 8, 180, null],
    [1001, 'pr_us_predict_added', 1, 22.5, ['evt-1001-added-1']],
    [1002, 'pr_us_retail_base', 8, 148, null],
    [1002, 'pr_us_overtime', 0.5, 13.88, null],
    [1003, 'pr_us_hosp_base', 8, 168, null],
    [1003, 'pr_us_predict_changed', 2, 42, ['evt-1003-moved-1', 'evt-1003-shortened-2']],
    [1003, 'pr_us_predict_added', 1, 21, ['evt-1003-location-3']],
    [1004, 'pr_us_hosp_base', 8, 138, null],
  ];
  return lines.map(([Timesheet, PayRule, Value, Cost, events], index) => ({
    Id: index + 1,
    Timesheet,
    PayRule,
    Overridden: false,
    Value,
    Cost,
    OverrideComment: '',
    Creator: INSTALL_OWNER.id,
    Created: SEEDED_AT,
    Modified: SEEDED_AT,
    EventIds: events ? JSON.stringify(events) : null,
    _DPMetaData: dpMetaData('TimesheetPayReturn'),
  }));
}

export interface SeedOptions {
  /** The strict seed (README "Strict mode"). @default false */
  strict?: boolean;
  region?: Region;
}

export function seedTables(options: SeedOptions = {}): InstallTables {
  const strict = options.strict ?? false;
  const region = options.region ?? 'us';
  const tables: InstallTables = {
    Country: countries(strict),
    State: states(strict),
    Employee: employees(),
    CustomFieldData: customFieldData(strict),
    EmploymentContract: employmentContracts(),
    PayRule: payRules(),
    // BaseRate exists on US installs only (the spec's pay-rate resolution rule).
    EmployeeAgreement: employeeAgreements(!strict || region === 'us'),
    LeaveRule: leaveRules(),
    LeaveAccrual: leaveAccruals(),
    Timesheet: timesheets(strict),
    TimesheetPayReturn: timesheetPayReturns(),
    Location: locations(),
    Area: areas(),
    Address: addresses(),
    Metric: [],
    AgreedHour: [],
  };
  if (strict) inLocalTime(tables, REGION_TIME_ZONES[region]);
  return tables;
}

const LOCAL_TIME_FIELDS = ['Created', 'Modified', 'TransactionDate'];

/** Strict: the same instants, written with the install's local UTC offset. */
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

export function createInstall(hostname: string, region: Region, options: { strict?: boolean } = {}): Install {
  const strictSeed = options.strict ?? false;
  const tables = seedTables({ strict: strictSeed, region });
  const lastIds = {} as Record<InstallResource, number>;
  for (const resource of INSTALL_RESOURCES) {
    const numericIds = tables[resource].map((record) => record.Id).filter((id) => typeof id === 'number');
    lastIds[resource] = Math.max(0, ...numericIds);
  }
  return { hostname, region, strictSeed, tables, lastIds, pendingMetrics: [] };
}

export interface AwardLibraryEntry {
  AwardCode: string;
  CountryCode: string;
  SvcEmploymentContract: Record<string, unknown>;
  Award: string;
  AwardStartDate: string;
  BasePayRule: string;
  BasePayRuleObject: InstallRecord;
  Code: string;
  Description: string;
  EmploymentBasis: string;
  EmploymentCategory: string;
  EmploymentStatus: string;
  EmploymentSubType: string;
  Id: null;
  Name: string;
  PeriodType: string;
}

function awardEntry(input: {
  AwardCode: string;
  CountryCode: 'us' | 'au';
  Award: string;
  Name: string;
  HourlyRate: number;
  EmploymentBasis: string;
}): AwardLibraryEntry {
  const basePayRule = `lib_${input.AwardCode}_base`;
  const { _DPMetaData: _unused, ...payRule } = payRuleRecord({
    Id: basePayRule,
    PayTitle: `${input.Name} Base Rate`,
    HourlyRate: input.HourlyRate,
    PayrollCategory: `LIB-${input.AwardCode.toUpperCase()}`,
  });
  return {
    AwardCode: input.AwardCode,
    CountryCode: input.CountryCode,
    SvcEmploymentContract: {
      Name: input.Name,
      Description: `${input.Award} - ${input.Name}`,
      BasePayRule: basePayRule,
      PayPeriod: 'WEEKLY',
      EmploymentBasis: input.EmploymentBasis,
    },
    Award: input.Award,
    AwardStartDate: '2024-07-01',
    BasePayRule: basePayRule,
    BasePayRuleObject: payRule,
    Code: input.AwardCode,
    Description: `${input.Award} - ${input.Name}`,
    EmploymentBasis: input.EmploymentBasis,
    EmploymentCategory: 'ORDINARY',
    EmploymentStatus: 'ACTIVE',
    EmploymentSubType: 'STANDARD',
    Id: null,
    Name: input.Name,
    PeriodType: 'WEEKLY',
  };
}

/** Old library codes look like 'MA000004'; new-library codes are mixed-case alphanumeric. */
export function awardLibrary(): AwardLibraryEntry[] {
  return [
    awardEntry({
      AwardCode: 'MA000004',
      CountryCode: 'au',
      Award: 'General Retail Industry Award 2020',
      Name: 'Retail Employee Level 1',
      HourlyRate: 26.55,
      EmploymentBasis: 'CASUAL',
    }),
    awardEntry({
      AwardCode: 'MA000009',
      CountryCode: 'au',
      Award: 'Hospitality Industry (General) Award 2020',
      Name: 'Food and Beverage Attendant Grade 2',
      HourlyRate: 25.85,
      EmploymentBasis: 'CASUAL',
    }),
    awardEntry({
      AwardCode: 'RetailAssoc2024x',
      CountryCode: 'us',
      Award: 'US Retail Pay Rates 2024',
      Name: 'Retail Associate',
      HourlyRate: 17,
      EmploymentBasis: 'HOURLY',
    }),
    awardEntry({
      AwardCode: 'HospServer2024b',
      CountryCode: 'us',
      Award: 'US Hospitality Pay Rates 2024',
      Name: 'Server',
      HourlyRate: 16.5,
      EmploymentBasis: 'HOURLY',
    }),
    awardEntry({
      AwardCode: 'WhseOps2024Q3',
      CountryCode: 'us',
      Award: 'US Warehouse Pay Rates 2024',
      Name: 'Warehouse Operative',
      HourlyRate: 19.75,
      EmploymentBasis: 'HOURLY',
    }),
  ];
}
