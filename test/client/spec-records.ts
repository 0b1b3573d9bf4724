/**
 * One record per resource of the spec's "Resources and their fields", with every listed field
 * filled. Values follow the spec's types; where it gives none, a plausible value is used.
 */

const creatorInfo = {
  Id: 1,
  DisplayName: 'Jordan Lee',
  EmployeeProfile: 1,
  Employee: 1,
  Photo: '',
  Pronouns: 0,
  CustomPronouns: null,
};

export const dpMetaData = (system: string) => ({ System: system, CreatorInfo: creatorInfo });

const audit = { Creator: 1, Created: '2026-01-05T09:00:00+00:00', Modified: '2026-01-05T09:00:00+00:00' };

export const provisionedBusiness = {
  hostname: 'annasbakery-1.us.example.com',
  portfolioName: "Anna's Bakery",
  status: 'ACTIVE',
  edition: 'SUBSCRIPTION_PRO_TRIAL',
  trialEndDate: '2026-02-04T09:00:00+00:00',
  conversionDate: '',
  externalId: 'acct-42',
};

export const signupRequest = {
  userData: { firstName: 'Anna', lastName: 'Berg', email: 'anna@example.test', mobileNumber: '+15550100001' },
  businessData: { externalId: 'acct-42', estimatedEmployeeCount: '12', portfolioName: "Anna's Bakery" },
};

export const changePlanRequest = {
  data: {
    hostname: 'annasbakery-1.us.example.com',
    action: 'upgrade',
    address: { address1: '1 Main St', suburb: 'Springfield', state: 'IL', postcode: '62701', country: 'US' },
  },
};

export const country = {
  Id: 1,
  Code: 'US',
  CodeA3: 'USA',
  Region: 'North America',
  Active: true,
  SortOrder: 1,
  Country: 'United States',
  ZipValidatePreg: '/^\\d{5}$/',
  PhoneDisplayPreg: null,
  ...audit,
  _DPMetaData: dpMetaData('Country'),
};

export const state = {
  Id: 9,
  Country: 2,
  Code: 'NSW',
  Active: true,
  SortOrder: 1,
  State: 'New South Wales',
  ...audit,
  _DPMetaData: dpMetaData('State'),
};

export function customFieldData(): Record<string, unknown> {
  const slots: Record<string, unknown> = {};
  for (let slot = 1; slot <= 128; slot++)
    slots[`F${String(slot).padStart(2, '0')}`] = slot % 2 ? `v${slot}` : true;
  return {
    Id: 2,
    System: 'Timesheet',
    ...slots,
    leavingearly: '',
    leavinglate: 'Yes',
    cominginlate: '',
    agreedtostaylate: true,
    clopeningshift: false,
    consent: true,
    receivedallmealbreaks: true,
    receivedallrestbreaks: false,
    consent2: '',
    fwwagreedtoextendshift: '',
    fwwcominginearly: "No, I don't consent",
    fwwcominginlate: "No I don't consent",
    fwwleavingearly: 'Yes, Personal Reasons',
    fwwleavinglate: 'Yes, Manager Requested',
    fwwunscheduledshiftconsent: 'Yes, I requested this',
    fwwunscheduledshifthours: '2.5',
    fwwreceivedallmealbreaks: true,
    fwwreceivedallrestbreaks: false,
    ...audit,
    _DPMetaData: dpMetaData('CustomFieldData'),
  };
}

export const timesheetCustomFieldDefinition = {
  System: 'Timesheet',
  Name: 'Did you leave late?',
  ApiName: 'fwwleavinglate',
  Type: 5,
  Validation: 'nempty\nunq',
  Valuelist: ['Yes, Manager Requested', 'Yes, Personal Reasons', "No I don't consent"],
  OperationUnit: [1, 2],
};

export const fullAgreedHour = {
  threshold: 37.5,
  applyThreshold: true,
  workPeriod: {
    cycle: 'TWO_WEEK',
    dayOfWeek: 'MONDAY',
    startDate: '2026-01-05T00:00:00Z',
    startCycleDate: '2026-01-05T00:00:00Z',
    endCycleDate: '2026-01-18T23:59:59Z',
  },
  workingDaysPerCycle: 10,
  details: {
    weeks: [
      {
        week: 'ONE',
        days: [
          {
            day: 1,
            shifts: [
              {
                startTime: '09:00',
                endTime: '17:30',
                breaks: [
                  {
                    breakType: 'MEAL',
                    breakDuration: '00:30',
                    startBreakTime: '12:00',
                    endBreakTime: '12:30',
                  },
                  { breakType: 'REST', breakDuration: '00:10', startBreakTime: '', endBreakTime: '' },
                  { breakType: 'NO_BREAK', breakDuration: '', startBreakTime: '', endBreakTime: '' },
                ],
                location: 1,
                area: 2,
                totalHours: 37.5,
              },
            ],
          },
        ],
      },
    ],
  },
};

export const simpleAgreedHour = {
  threshold: 38,
  applyThreshold: false,
  workPeriod: {
    cycle: 'FOUR_WEEKLY',
    dayOfWeek: 'SUNDAY',
    startDate: '2026-01-04T00:00:00Z',
    startCycleDate: '2026-01-04T00:00:00Z',
    endCycleDate: '2026-01-31T23:59:59Z',
  },
  workingDaysPerCycle: 20,
  details: { weeks: [] },
};

export const employeeAgreement = {
  Id: 4,
  EmployeeId: 4,
  PayPoint: 1,
  EmpType: 1,
  CompanyName: 'Harbour Warehouse',
  Active: true,
  StartDate: '2026-01-05',
  EndDate: null,
  Contract: 2,
  SalaryPayRule: null,
  ContractFile: null,
  PayrollId: 'P-0004',
  PayPeriod: 'WEEKLY',
  HistoryId: 4,
  ...audit,
  BaseRate: null,
  Config: '{"overtimeEligible":true}',
  _DPMetaData: dpMetaData('EmployeeAgreement'),
};

export const metricItem = {
  timestamp: 1767571200,
  area: 2,
  type: 'budget_StaffHour',
  reference: 'week 2',
  value: 10000,
  location: 1,
};

export const metricRecord = {
  timestamp: '1767571200',
  employee: 0,
  area: 2,
  type: 'budget_staffhour',
  reference: 'week 2',
  value: 10000,
  state: 'ACTUAL',
  location: 1,
  id: 'mt_000001',
  created: '2026-01-05T09:00:00Z',
  modified: '',
  payload: '{"timestamp":1767571200}',
};

export const locationRequest = {
  Code: 'MAIN',
  Active: true,
  ParentCompany: 1,
  CompanyName: 'Main Street Store',
  TradingName: 'Main Street',
  IsWorkplace: 1,
  IsPayrollEntity: 0,
  PayrollExportCode: 'MAIN-PR',
  Address: '1 Main St, Springfield',
};

export const areaRequest = {
  intCompanyId: 1,
  strOpunitName: 'Bakery floor',
  strAddress: '1 Main St',
  strExportName: 'BAKE',
  intOpunitType: 0,
};

export const awardLibraryEntry = {
  AwardCode: 'RetailAssoc2024x',
  CountryCode: 'us',
  SvcEmploymentContract: { Name: 'Retail Associate', BasePayRule: 'lib_RetailAssoc2024x_base' },
  Award: 'Retail Associate 2024',
  AwardStartDate: '2024-04-01',
  BasePayRule: 'lib_RetailAssoc2024x_base',
  BasePayRuleObject: {
    Id: 'lib_RetailAssoc2024x_base',
    PayTitle: 'Retail Associate base',
    RemunerationType: 'HOURLY',
    RemunerationBy: 'TIME',
    HourlyRate: 18.5,
    PayrollCategory: 'LIB-RETAIL',
  },
  Code: 'RetailAssoc2024x',
  Description: 'Retail associates',
  EmploymentBasis: 'CASUAL',
  EmploymentCategory: 'RETAIL',
  EmploymentStatus: 'ACTIVE',
  EmploymentSubType: null,
  Id: null,
  Name: 'Retail Associate',
  PeriodType: 'WEEKLY',
};

export const leaveAccrual = {
  Id: 3,
  Employee: 2,
  EmployeeHistory: 2,
  TransactionDate: '2026-01-05T09:00:00+00:00',
  Type: 1,
  LeaveRule: 2,
  Hours: 16,
  Days: 2,
  Comment: null,
  FkId: null,
  BalanceCalculatedAt: null,
  ...audit,
  _DPMetaData: dpMetaData('LeaveAccrual'),
};

export const payRuleConfig = {
  phEndTime: null,
  eventTypes: ['TIME_ADDED', 'TIME_CHANGED_TOTAL_CHANGED', 'TIME_CHANGED_TOTAL_SAME', 'LOCATION_CHANGED'],
  leavingLate: 'ANSWER_UNSPECIFIED',
  phStartTime: null,
  comingInLate: 'ANSWER_UNSPECIFIED',
  leavingEarly: 'ANSWER_UNSPECIFIED',
  comingInEarly: 'ANSWER_UNSPECIFIED',
  midnightSplit: false,
  usePredictPay: true,
  payPortionRule: null,
  returnTimeType: 'PER_OCCURRENCE',
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
  basePeriodDayOfWeekStart: 1,
  schedulePremiumReference: 'predictability-pay',
  shiftLengthThresholdSeconds: 0,
  changePeriodThresholdSeconds: 1209600,
  dailyOrdinaryTimeTotalSeconds: 28800,
  consecutiveDaysWorkedThreshold: 6,
  restBetweenShiftsThresholdSeconds: 36000,
  timesheetPayReturnOrdinaryTimeTotal: 8,
  somethingNewFromTheService: 'kept',
};

export const timesheetObject = {
  Id: 1003,
  Employee: 3,
  EmployeeHistory: 3,
  EmployeeAgreement: 3,
  Date: '2026-01-13',
  StartTime: 1768298400,
  EndTime: 1768329000,
  Mealbreak: '2026-01-13T00:30:00+00:00',
  MealbreakSlots: {},
  Slots: [
    {
      blnEmptySlot: false,
      strType: 'B',
      intStart: 36000,
      intEnd: 66600,
      intUnixStart: 1768298400,
      intUnixEnd: 1768329000,
      mixedActivity: {
        intState: 1,
        blnCanStartEarly: true,
        blnCanEndEarly: true,
        blnIsMandatory: true,
        strBreakType: 'M',
      },
      strTypeName: 'Timesheet',
      strState: 'APPROVED',
    },
  ],
  TotalTime: 8,
  TotalTimeInv: 0,
  Cost: 231,
  Roster: 88,
  EmployeeComment: null,
  SupervisorComment: null,
  Supervisor: 1,
  Disputed: false,
  TimeApproved: true,
  TimeApprover: 1,
  Discarded: false,
  ValidationFlag: 0,
  OperationalUnit: 2,
  IsInProgress: false,
  IsLeave: false,
  LeaveId: null,
  LeaveRule: null,
  Invoiced: false,
  InvoiceComment: null,
  PayRuleApproved: true,
  Exported: null,
  StagingId: null,
  PayStaged: false,
  PaycycleId: 1,
  MarkedPaidUnpaidAt: null,
  AccrualState: 'PROCESSED',
  AccrualStateChangedAt: null,
  AccrualAttempts: 0,
  File: null,
  CustomFieldData: 2,
  RealTime: false,
  AutoProcessed: false,
  AutoRounded: false,
  AutoTimeApproved: false,
  AutoPayRuleApproved: false,
  Metadata: JSON.stringify({ borrowed_or_lent: { type: 'borrowed', fromArea: 1 }, forecast_cost: 168 }),
  ParentId: null,
  ...audit,
  StartTimeLocalized: '2026-01-13T10:00:00-08:00',
  EndTimeLocalized: '2026-01-13T18:30:00-08:00',
  OnCost: 0,
  _DPMetaData: {
    ...dpMetaData('Timesheet'),
    OperationalUnitInfo: {
      Id: 2,
      OperationalUnitName: 'Dock',
      Company: 2,
      CompanyName: 'Harbour Warehouse',
      LabelWithCompany: '[HARB] Dock',
    },
    EmployeeInfo: { ...creatorInfo, Id: 3, DisplayName: 'Riley Chen', Employee: 3, EmployeeProfile: 3 },
  },
};

export const payRuleObject = {
  Id: 'pr_us_predict_changed',
  PayTitle: 'Predictability pay - schedule change',
  RemunerationType: 'HOURLY',
  RemunerationBy: 'TIME',
  AnnualSalary: null,
  HourlyRate: 21,
  IsMultiplier: false,
  MultiplierValue: null,
  MultiplierBaseRate: null,
  MinimumType: null,
  MaximumType: null,
  MinimumValue: null,
  MaximumValue: null,
  MinimumShiftLength: null,
  MaximumShiftLength: null,
  AdvancedCalculation: false,
  IsExported: true,
  UnitValue: null,
  Schedule: null,
  RecommendWith: null,
  DexmlScript: null,
  DexmlScriptParam: null,
  PeriodType: 'DAILY',
  PayPortionRule: null,
  PayrollCategory: 'PREDICT-CHG',
  Comment: null,
  RateType: 'STANDARD',
  RateTag: null,
  ...audit,
  CtId: null,
  CrId: null,
  Config: JSON.stringify(payRuleConfig),
  _DPMetaData: dpMetaData('PayRule'),
};

export const joinedPayReturn = {
  Id: 6,
  Timesheet: 1003,
  PayRule: 'pr_us_predict_changed',
  Overridden: false,
  Value: 2,
  Cost: 42,
  OverrideComment: '',
  ...audit,
  EventIds: JSON.stringify(['evt-1003-moved-1', 'evt-1003-shortened-2']),
  _DPMetaData: dpMetaData('TimesheetPayReturn'),
  TimesheetObject: timesheetObject,
  PayRuleObject: payRuleObject,
};
