import {
  dpMetaData,
  findById,
  INSTALL_OWNER,
  type Install,
  type InstallRecord,
  nextId,
  personInfo,
} from './records.ts';

/**
 * What a record of each kind looks like, with the fields the sandbox fills itself: used by the seed
 * (sandbox/seed.ts, from the data in sandbox/seed/) and by the install API when it creates records.
 */

/**
 * When the seeded records were made: fixed (not the sandbox clock), so that every install starts
 * from the same records. Pay rules carry it until their creator puts its own time over it.
 */
export const SEEDED_AT = '2026-01-05T09:00:00+00:00';

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

export interface PayRuleInput {
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
    Creator: INSTALL_OWNER.id,
    Created: SEEDED_AT,
    Modified: SEEDED_AT,
    CtId: null,
    CrId: null,
    Config: payRuleConfig(input.Config),
    _DPMetaData: dpMetaData('PayRule'),
  };
}

export interface AgreementInput {
  Id: number;
  EmployeeId: number;
  Contract: number;
  BaseRate: number | null;
  CompanyName: string | null;
  StartDate: string;
  Created: string;
}

export function agreementRecord(input: AgreementInput): InstallRecord {
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

export interface LeaveAccrualInput {
  Id: number;
  Employee: number;
  EmployeeHistory: number | null;
  LeaveRule: number;
  TransactionDate: string;
  Hours: number;
  Created: string;
}

export function leaveAccrualRecord(input: LeaveAccrualInput): InstallRecord {
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

/** A location (QUERY's Company); its fields in this order are the record's. */
export interface LocationInput {
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
}

export function locationRecord(input: LocationInput): InstallRecord {
  const { Created, ...fields } = input;
  return {
    ...fields,
    Creator: INSTALL_OWNER.id,
    Created,
    Modified: Created,
    _DPMetaData: dpMetaData('Company'),
  };
}

/** An area (QUERY's OperationalUnit); its fields in this order are the record's. */
export interface AreaInput {
  Id: number;
  Company: number;
  /** The name of its location (Company). */
  CompanyName: string;
  OperationalUnitName: string;
  Address: string | null;
  ExportName: string | null;
  OperationalUnitType: 0 | 1;
  Created: string;
}

export function areaRecord(input: AreaInput): InstallRecord {
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

/** An approved timesheet of one shift with a meal break 4 hours in (times in UTC). */
export interface TimesheetInput {
  Id: number;
  Employee: number;
  employeeName: string;
  /** The area (OperationalUnit) and its location (Company), for the record and its _DPMetaData. */
  area: { Id: number; OperationalUnitName: string; Company: number; CompanyName: string };
  Date: string;
  Roster: number;
  startHour: number;
  endHour: number;
  mealMinutes: number;
  Cost: number;
  forecastCost: number;
  borrowedOrLent: Record<string, unknown> | null;
  CustomFieldData: number | null;
}

export function timesheetRecord(input: TimesheetInput): InstallRecord {
  const dayStart = Date.parse(`${input.Date}T00:00:00Z`) / 1000;
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
  const { area } = input;
  const processedAt = `${input.Date}T23:00:00+00:00`;
  return {
    Id: input.Id,
    Employee: input.Employee,
    EmployeeHistory: input.Employee,
    EmployeeAgreement: input.Employee,
    Date: input.Date,
    StartTime: start,
    EndTime: end,
    Mealbreak: `${input.Date} 00:${String(input.mealMinutes).padStart(2, '0')}:00`,
    MealbreakSlots: `${mealStart}-${mealEnd}`,
    Slots: [slot('SHIFT', start, mealStart), slot('BREAK', mealStart, mealEnd), slot('SHIFT', mealEnd, end)],
    TotalTime: totalHours,
    TotalTimeInv: totalHours,
    Cost: input.Cost,
    Roster: input.Roster,
    EmployeeComment: '',
    SupervisorComment: '',
    Supervisor: INSTALL_OWNER.id,
    Disputed: false,
    TimeApproved: true,
    TimeApprover: INSTALL_OWNER.id,
    Discarded: false,
    ValidationFlag: 0,
    OperationalUnit: area.Id,
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
    AccrualStateChangedAt: processedAt,
    AccrualAttempts: 1,
    File: null,
    CustomFieldData: input.CustomFieldData,
    RealTime: true,
    AutoProcessed: false,
    AutoRounded: false,
    AutoTimeApproved: false,
    AutoPayRuleApproved: false,
    Metadata: JSON.stringify({ borrowed_or_lent: input.borrowedOrLent, forecast_cost: input.forecastCost }),
    ParentId: null,
    Creator: INSTALL_OWNER.id,
    Created: processedAt,
    Modified: processedAt,
    StartTimeLocalized: new Date(start * 1000).toISOString().replace('.000Z', '+00:00'),
    EndTimeLocalized: new Date(end * 1000).toISOString().replace('.000Z', '+00:00'),
    OnCost: Math.round(input.Cost * 0.1 * 100) / 100,
    _DPMetaData: dpMetaData('Timesheet', {
      OperationalUnitInfo: {
        Id: area.Id,
        OperationalUnitName: area.OperationalUnitName,
        Company: area.Company,
        CompanyName: area.CompanyName,
        LabelWithCompany: `[${area.CompanyName}] ${area.OperationalUnitName}`,
      },
      EmployeeInfo: personInfo(input.Employee, input.employeeName),
    }),
  };
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

export interface AwardInput {
  AwardCode: string;
  CountryCode: string;
  Award: string;
  Name: string;
  HourlyRate: number;
  EmploymentBasis: string;
}

export function awardLibraryEntry(input: AwardInput): AwardLibraryEntry {
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

/**
 * A new active agreement for the employee (its contract, BaseRate and any extra field), its
 * earlier active ones ended: what setAwardFromLibrary and employees:bulk leave behind.
 */
export function replaceActiveAgreement(
  install: Install,
  employee: InstallRecord,
  timestamp: string,
  terms: { Contract: number; BaseRate: number | null; OverridePayRules?: unknown },
): InstallRecord {
  const employeeId = employee.Id as number;
  for (const agreement of install.tables.EmployeeAgreement) {
    if (agreement.EmployeeId === employeeId && agreement.Active === true) {
      agreement.Active = false;
      agreement.EndDate = timestamp;
      agreement.Modified = timestamp;
    }
  }
  const company = findById(install, 'Location', employee.Company);
  const agreement = agreementRecord({
    Id: nextId(install, 'EmployeeAgreement'),
    EmployeeId: employeeId,
    Contract: terms.Contract,
    BaseRate: terms.BaseRate,
    CompanyName: company ? String(company.CompanyName) : null,
    StartDate: timestamp.slice(0, 10),
    Created: timestamp,
  });
  if (terms.OverridePayRules !== undefined) agreement.OverridePayRules = terms.OverridePayRules;
  install.tables.EmployeeAgreement.push(agreement);
  return agreement;
}
