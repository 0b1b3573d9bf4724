import * as z from 'zod';
import { isoDateTime } from '#functions/contracts/date-time.ts';
import { describeIssues } from '#functions/contracts/issues.ts';
import { ResponseShapeError } from '#functions/domain/errors.ts';

/**
 * Records of the service spec ("Resources and their fields"), as zod schemas.
 *
 * Tolerance rules (see docs/client.md):
 * - every object is a z.looseObject: fields the spec does not list pass through untouched;
 * - every listed field is declared; it is REQUIRED when the spec guarantees it and the connector
 *   relies on it (ids, the values acted upon, `_DPMetaData` which the spec puts on every install
 *   record); the rest are optional and typed as the spec types them (`unknown` where it does not);
 * - where the spec shows two spellings, both parse.
 *
 * Record schemas are `z.lazy`: zod constructs a schema and every field schema in it when the
 * expression runs, and a function parses only a few of these records, so building all of them
 * at import was a large share of every cold start. A lazy schema is built on its first parse and
 * kept; it parses, refines and reports issues exactly as the schema it wraps.
 */

const int = z.number().int();
/** Newer records (pay rules, metrics, award codes) use string ids, older ones integers. */
const flexibleId = z.union([z.string(), int]);
const text = z.string();
const nullableText = z.string().nullable();
const timestamp = z.string();

// ---------------------------------------------------------------------------------------------
// Decoding helpers

/**
 * A field holding JSON text: decoded, then validated. null, absent or '' mean "no value" (null).
 * Bad JSON or a non-string is an issue on that very field, so the error names it.
 */
/**
 * A string holding a JSON object the connector only passes on (a pay rule's Config, a timesheet's
 * Metadata): decoded when it can be; otherwise kept as given under `unparsed`, never a reason to
 * fail the record.
 */
function lenientJsonObject<T extends z.ZodType<Record<string, unknown>>>(schema: T) {
  return z
    .unknown()
    .optional()
    .transform((value): z.output<T> | null => {
      if (value === undefined || value === null || value === '') return null;
      // Every key of these objects is optional, so `{unparsed}` is one of them (an unknown key).
      const unparsed = { unparsed: value } as unknown as z.output<T>;
      let decoded: unknown = value;
      if (typeof value === 'string') {
        try {
          decoded = JSON.parse(value);
        } catch {
          return unparsed;
        }
      }
      const parsed = schema.safeParse(decoded);
      return parsed.success ? parsed.data : unparsed;
    });
}

function optionalJsonText<T extends z.ZodType>(schema: T) {
  return z
    .preprocess((value, ctx) => {
      if (value === undefined || value === null || value === '') return null;
      if (typeof value !== 'string') {
        ctx.addIssue({ code: 'custom', message: 'must be a string holding JSON', input: value });
        return z.NEVER;
      }
      try {
        return JSON.parse(value) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'is not valid JSON', input: value });
        return z.NEVER;
      }
    }, schema.nullable())
    .optional()
    .transform((value): z.output<T> | null => value ?? null);
}

/**
 * A service answer, or a part of it, checked against `schema`; a mismatch is a ResponseShapeError
 * naming the field path(s). `at` is where a part checked on its own sits in the answer: the
 * message names the field by its path in the whole answer (`[0].TimesheetObject.Employee`).
 */
export function parseResponse<T extends z.ZodType>(
  schema: T,
  value: unknown,
  context: string,
  at: readonly PropertyKey[] = [],
): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => ({ ...issue, path: [...at, ...issue.path] }));
    throw new ResponseShapeError(
      `${context}: unexpected response: ${describeIssues(issues) || '(root): invalid'}`,
    );
  }
  return result.data;
}

const arrays = new WeakMap<z.ZodType, z.ZodArray<z.ZodType>>();

/**
 * `z.array(schema)`, built once per schema: building a zod schema costs far more than parsing a
 * small answer with it, and a query's answer is parsed with its array on every call.
 */
export function arrayOf<T extends z.ZodType>(schema: T): z.ZodArray<T> {
  let array = arrays.get(schema);
  if (!array) {
    array = z.array(schema);
    arrays.set(schema, array);
  }
  return array as z.ZodArray<T>;
}

// ---------------------------------------------------------------------------------------------
// _DPMetaData

export const operationalUnitInfoSchema = z.lazy(() =>
  z.looseObject({
    Id: int,
    OperationalUnitName: text.optional(),
    Company: int.optional(),
    CompanyName: text.optional(),
    LabelWithCompany: text.optional(),
  }),
);

/**
 * Every install record's `_DPMetaData`. `CreatorInfo` (and a timesheet's `EmployeeInfo`) are kept
 * as given, unchecked: the connector reads neither, so neither may fail a record (a record is read
 * strictly only where the connector relies on a value).
 */
export const dpMetaDataSchema = z.looseObject({
  System: text,
});

/** A timesheet's, whose OperationalUnitInfo names the area of PayReturnsReady. */
export const timesheetDpMetaDataSchema = z.lazy(() =>
  dpMetaDataSchema.extend({
    OperationalUnitInfo: operationalUnitInfoSchema.nullable().optional(),
  }),
);

/** Fields every install record carries besides its own. */
const installRecordFields = {
  Creator: int.nullable().optional(),
  Created: timestamp.nullable().optional(),
  Modified: timestamp.nullable().optional(),
  _DPMetaData: dpMetaDataSchema,
};

// ---------------------------------------------------------------------------------------------
// Provisioning API

export const editions = [
  'SUBSCRIPTION_PRO_TRIAL',
  'SUBSCRIPTION_FREE',
  'SUBSCRIPTION_PAID_PRO_PREMIUM',
] as const;
export const editionSchema = z.enum(editions);
export type Edition = z.infer<typeof editionSchema>;

export const provisioningEnvelopeSchema = z.looseObject({
  success: z.boolean(),
  data: z.unknown().optional(),
  error: z.unknown().optional(),
});

export const provisionedBusinessSchema = z.lazy(() =>
  z.looseObject({
    hostname: text,
    portfolioName: text,
    status: text,
    edition: editionSchema,
    trialEndDate: timestamp,
    conversionDate: z.string().nullable(),
    externalId: text,
  }),
);
export type ProvisionedBusiness = z.infer<typeof provisionedBusinessSchema>;

export const subscriptionStatusSchema = z.lazy(() =>
  z.looseObject({
    status: text,
    hostname: text,
    portfolioName: text.optional(),
    edition: editionSchema,
    trialEndDate: timestamp.nullable(),
    conversionDate: z.string().nullable().optional(),
  }),
);
export type SubscriptionStatus = z.infer<typeof subscriptionStatusSchema>;

/** The spec shows the upgrade answer only; the cancel answer is "not shown", so all optional. */
export const changePlanResultSchema = z.lazy(() =>
  z.looseObject({
    hostname: text.optional(),
    trialEndDate: timestamp.nullable().optional(),
    edition: editionSchema.optional(),
  }),
);
export type ChangePlanResult = z.infer<typeof changePlanResultSchema>;

/**
 * Signup request objects with the spec's rules. The client itself sends what it is given (the
 * service is the authority on e-mail, mobile and count rules); use cases validate with these.
 */
export const userDataSchema = z.lazy(() =>
  z.looseObject({
    firstName: text.min(1),
    lastName: text.min(1),
    email: z.email(),
    mobileNumber: text.optional(),
  }),
);
export type UserData = z.input<typeof userDataSchema>;

export const businessDataSchema = z.lazy(() =>
  z.looseObject({
    externalId: text.min(1),
    /** Integer > 0; the sample sends it as a string, so both parse. */
    estimatedEmployeeCount: z
      .union([int.positive(), z.string().regex(/^[1-9]\d*$/, 'must be an integer > 0')])
      .optional(),
    portfolioName: text.min(1),
  }),
);
export type BusinessData = z.input<typeof businessDataSchema>;

export const signupRequestSchema = z.lazy(() =>
  z.looseObject({
    userData: userDataSchema,
    businessData: businessDataSchema,
  }),
);

export const billingAddressSchema = z.lazy(() =>
  z.looseObject({
    address1: text.optional(),
    suburb: text.optional(),
    state: text.optional(),
    postcode: text.optional(),
    country: text.optional(),
  }),
);
export type BillingAddress = z.infer<typeof billingAddressSchema>;

export const changePlanDataSchema = z.lazy(() =>
  z.looseObject({
    hostname: text.min(1),
    action: z.enum(['upgrade', 'cancel']),
    address: billingAddressSchema.optional(),
  }),
);
export const changePlanRequestSchema = z.lazy(() => z.looseObject({ data: changePlanDataSchema }));

// ---------------------------------------------------------------------------------------------
// Reference data

export const countrySchema = z.lazy(() =>
  z.looseObject({
    Id: int,
    Code: text,
    CodeA3: text.optional(),
    Region: text.nullable().optional(),
    Active: z.boolean().optional(),
    SortOrder: int.nullable().optional(),
    Country: text,
    ZipValidatePreg: text.nullable().optional(),
    PhoneDisplayPreg: text.nullable().optional(),
    ...installRecordFields,
  }),
);
export type Country = z.infer<typeof countrySchema>;

export const stateSchema = z.lazy(() =>
  z.looseObject({
    Id: int,
    /** Id of the country; a state query can span several countries. */
    Country: int,
    Code: text,
    Active: z.boolean().optional(),
    SortOrder: int.nullable().optional(),
    State: text,
    ...installRecordFields,
  }),
);
export type State = z.infer<typeof stateSchema>;

// ---------------------------------------------------------------------------------------------
// Custom fields

export const CUSTOM_FIELD_SLOTS = 128;
export type SlotField = `F${string}`;

/** Slot 1 → 'F01', 128 → 'F128'. */
export function slotField(slot: number): SlotField {
  return `F${String(slot).padStart(2, '0')}`;
}

/**
 * Fair-work-week answers. The spec lists the values (including the missing comma in "No I don't
 * consent") but says these features are in ongoing development and new data elements appear, so
 * they are read leniently: any value is kept as given, and
 * `FAIR_WORK_WEEK_VALUES` says which values the spec lists (for docs and tests, never to refuse).
 */
export const FAIR_WORK_WEEK_VALUES = {
  fwwagreedtoextendshift: [true, false, ''],
  fwwcominginearly: ['Yes, Manager Requested', 'Yes, Personal Reasons', "No, I don't consent"],
  fwwcominginlate: ['Yes, Manager Requested', 'Yes, Personal Reasons', "No I don't consent"],
  fwwleavingearly: ['Yes, Manager Requested', 'Yes, Personal Reasons', "No I don't consent"],
  fwwleavinglate: ['Yes, Manager Requested', 'Yes, Personal Reasons', "No I don't consent"],
  fwwunscheduledshiftconsent: ['Yes, Manager Requested', 'Yes, I requested this', "No, I don't consent"],
  fwwunscheduledshifthours: [],
  fwwreceivedallmealbreaks: [true, false],
  fwwreceivedallrestbreaks: [true, false],
} as const satisfies Record<string, readonly (string | boolean)[]>;

export type FairWorkWeekField = keyof typeof FAIR_WORK_WEEK_VALUES;

export const scheduleChangeFieldNames = [
  'leavingearly',
  'leavinglate',
  'cominginlate',
  'agreedtostaylate',
  'clopeningshift',
  'consent',
  'receivedallmealbreaks',
  'receivedallrestbreaks',
  'consent2',
] as const;

/**
 * A custom field data record. Its slots `F01`..`F128` (strings or booleans by the spec), the named
 * fields that mirror them, the schedule-change answers and the fair-work-week answers are read
 * leniently: any value of any type is kept as given, unchecked (the connector only asks whether a
 * slot is taken, and passes answers on as given), never a reason to fail a flow; only the record's
 * own fields are checked. (Listing 146 fields of `z.unknown()` would check nothing and cost each
 * parse of every record.)
 */
export const customFieldDataSchema = z.lazy(() =>
  z.looseObject({
    Id: int,
    /** `Employee` or `Timesheet` by the spec; another value is kept, not refused. */
    System: z.string(),
    ...installRecordFields,
  }),
);
export type CustomFieldData = z.infer<typeof customFieldDataSchema> &
  Partial<Record<SlotField | FairWorkWeekField | (typeof scheduleChangeFieldNames)[number], unknown>>;

export const customFieldTypes = {
  text: 1,
  number: 2,
  largeText: 3,
  checkbox: 4,
  list: 5,
  multiList: 6,
  checkboxWithComment: 8,
} as const;
export const customFieldTypeSchema = z.literal([1, 2, 3, 4, 5, 6, 8]);

/** Newline-separated tokens; the spec shows `nempty` and `unq` only. */
export const validationTokensSchema = z
  .string()
  .refine(
    (value) => value === '' || value.split('\n').every((token) => token === 'nempty' || token === 'unq'),
    'must be newline-separated tokens among nempty, unq',
  );

export const timesheetCustomFieldDefinitionSchema = z.lazy(() =>
  z.looseObject({
    System: z.literal('Timesheet'),
    Name: text.min(1),
    ApiName: text.min(1),
    Type: customFieldTypeSchema,
    Validation: validationTokensSchema.optional(),
    Valuelist: z.array(z.string()).optional(),
    OperationUnit: z.array(int).optional(),
  }),
);
export type TimesheetCustomFieldDefinition = z.infer<typeof timesheetCustomFieldDefinitionSchema>;

// ---------------------------------------------------------------------------------------------
// Agreed hours (regular working hours)

const clockTime = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be a 24-hour HH:MM time');
const duration = z.string().regex(/^\d{2,}:[0-5]\d$/, 'must be an HH:MM duration');
const clockTimeOrEmpty = z.union([clockTime, z.literal('')]);

export const fullFormCycles = ['WEEKLY', 'TWO_WEEK', 'FOUR_WEEK'] as const;
export const simpleFormCycles = ['WEEKLY', 'TWO_WEEKLY', 'FOUR_WEEKLY'] as const;
export const cycleSchema = z.enum(['WEEKLY', 'TWO_WEEK', 'FOUR_WEEK', 'TWO_WEEKLY', 'FOUR_WEEKLY']);
export type Cycle = z.infer<typeof cycleSchema>;
export type AgreedHourForm = 'full' | 'simple';

/** The spec spells cycles differently in the two forms; send the spelling of the form being sent. */
export function normalizeCycle(cycle: Cycle, form: AgreedHourForm): Cycle {
  if (form === 'full') {
    if (cycle === 'TWO_WEEKLY') return 'TWO_WEEK';
    if (cycle === 'FOUR_WEEKLY') return 'FOUR_WEEK';
    return cycle;
  }
  if (cycle === 'TWO_WEEK') return 'TWO_WEEKLY';
  if (cycle === 'FOUR_WEEK') return 'FOUR_WEEKLY';
  return cycle;
}

export const breakSchema = z.lazy(() =>
  z.looseObject({
    breakType: z.enum(['MEAL', 'REST', 'NO_BREAK']),
    /** Empty string for NO_BREAK. */
    breakDuration: z.union([duration, z.literal('')]),
    startBreakTime: clockTimeOrEmpty.optional(),
    endBreakTime: clockTimeOrEmpty.optional(),
  }),
);

export const shiftSchema = z.lazy(() =>
  z.looseObject({
    startTime: clockTime,
    endTime: clockTime,
    breaks: z.array(breakSchema).optional(),
    location: int.optional(),
    area: int.optional(),
    totalHours: z.number().optional(),
  }),
);

export const agreedHourDaySchema = z.lazy(() =>
  z.looseObject({
    /** 0 Sunday ... 6 Saturday. */
    day: int.min(0).max(6),
    shifts: z.array(shiftSchema),
  }),
);

export const agreedHourWeekSchema = z.lazy(() =>
  z.looseObject({
    week: text,
    days: z.array(agreedHourDaySchema),
  }),
);

const utcTimestamp = isoDateTime({ error: 'must be a UTC ISO 8601 timestamp ending in Z' });

export const workPeriodSchema = z.lazy(() =>
  z.looseObject({
    cycle: cycleSchema,
    dayOfWeek: z.enum(['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY']),
    startDate: utcTimestamp.optional(),
    startCycleDate: utcTimestamp.optional(),
    endCycleDate: utcTimestamp.optional(),
  }),
);

export const agreedHourSchema = z.lazy(() =>
  z
    .looseObject({
      threshold: z.number().nonnegative(),
      applyThreshold: z.boolean(),
      workPeriod: workPeriodSchema,
      workingDaysPerCycle: int.nonnegative().optional(),
      details: z.looseObject({ weeks: z.array(agreedHourWeekSchema) }),
    })
    .superRefine((value, ctx) => {
      if (value.details.weeks.length === 0 && !Number.isInteger(value.threshold)) {
        ctx.addIssue({
          code: 'custom',
          path: ['threshold'],
          message: 'must be an integer in the simple form',
        });
      }
    }),
);
export type AgreedHour = z.infer<typeof agreedHourSchema>;

export function agreedHourForm(agreedHour: AgreedHour): AgreedHourForm {
  return agreedHour.details.weeks.length === 0 ? 'simple' : 'full';
}

// ---------------------------------------------------------------------------------------------
// Pay conditions

export const employeeAgreementSchema = z.lazy(() =>
  z.looseObject({
    Id: int,
    EmployeeId: int,
    CompanyName: nullableText.optional(),
    Active: z.boolean().optional(),
    StartDate: timestamp.nullable().optional(),
    EndDate: timestamp.nullable().optional(),
    /** Id of the employment contract; the route to the pay rate when BaseRate is null. */
    Contract: int.nullable(),
    PayrollId: nullableText.optional(),
    /** Present on US installs with the newer system only (April 2024), hence optional. */
    BaseRate: z.number().nullable().optional(),
    Config: nullableText.optional(),
    ...installRecordFields,
    // Kept as given, unchecked (the connector reads none of them): PayPoint, EmpType, SalaryPayRule,
    // ContractFile, PayPeriod, HistoryId.
  }),
);
export type EmployeeAgreement = z.infer<typeof employeeAgreementSchema>;

export const basePayRuleObjectSchema = z.lazy(() =>
  z.looseObject({
    Id: flexibleId,
    PayTitle: text.optional(),
    HourlyRate: z.number().nullable().optional(),
    // Kept as given, unchecked (the connector reads none of them): RemunerationType, RemunerationBy.
  }),
);

/** One entry of the library list: the spec promises the name and the AwardCode. */
export const awardLibraryListEntrySchema = z.lazy(() =>
  z.looseObject({
    AwardCode: text,
    Name: text.nullable().optional(),
    Award: text.nullable().optional(),
    CountryCode: text.optional(),
  }),
);
export type AwardLibraryListEntry = z.infer<typeof awardLibraryListEntrySchema>;

/**
 * Which pay rate library an award code belongs to: the spec says new-library codes are
 * mixed-case alphanumeric and other formats (such as `MA000004`) belong to the old library.
 */
export function awardLibraryOf(awardCode: string): 'NEW' | 'OLD' {
  return /^[A-Za-z0-9]+$/.test(awardCode) && /[a-z]/.test(awardCode) && /[A-Z]/.test(awardCode)
    ? 'NEW'
    : 'OLD';
}

export const awardLibraryEntrySchema = z.lazy(() =>
  z.looseObject({
    AwardCode: text,
    CountryCode: text.optional(),
    SvcEmploymentContract: z.looseObject({}).nullable().optional(),
    Award: text.nullable().optional(),
    AwardStartDate: text.nullable().optional(),
    /** The base pay rule id that setAwardFromLibrary needs. */
    BasePayRule: flexibleId,
    BasePayRuleObject: basePayRuleObjectSchema.nullable().optional(),
    Code: text.nullable().optional(),
    Description: text.nullable().optional(),
    /** null in the spec; kept loose in case the service fills it. */
    Id: z.union([z.null(), flexibleId]).optional(),
    Name: text.nullable().optional(),
    // Kept as given, unchecked (the connector reads none of them): EmploymentBasis, EmploymentCategory,
    // EmploymentStatus, EmploymentSubType, PeriodType.
  }),
);
export type AwardLibraryEntry = z.infer<typeof awardLibraryEntrySchema>;

// ---------------------------------------------------------------------------------------------
// Budgets

export const metricTypeSchema = z.enum(['budget_wage', 'budget_hour', 'budget_StaffHour']);
export type HourBudgetType = 'budget_hour' | 'budget_StaffHour';

export const metricItemSchema = z.lazy(() =>
  z.looseObject({
    /** Unix seconds; midnight of the day for daily budgets. */
    timestamp: int,
    area: int.optional(),
    type: metricTypeSchema,
    reference: text.optional(),
    value: z.number(),
    location: int.optional(),
  }),
);
export type MetricItem = z.infer<typeof metricItemSchema>;

export const metricRecordSchema = z.lazy(() =>
  z.looseObject({
    timestamp: z.union([z.string(), z.number()]),
    employee: int.nullable().optional(),
    area: int.nullable().optional(),
    /** May differ in letter case from the request. */
    type: text,
    reference: text.nullable().optional(),
    value: z.number(),
    state: text.optional(),
    location: int.nullable().optional(),
    id: z.union([z.string(), int]),
    created: timestamp.optional(),
    modified: z.string().nullable().optional(),
    payload: z.string().nullable().optional(),
  }),
);
export type MetricRecord = z.infer<typeof metricRecordSchema>;

// ---------------------------------------------------------------------------------------------
// Locations and areas

const flag = z.literal([0, 1]);

export const locationRequestSchema = z.lazy(() =>
  z
    .looseObject({
      Code: text.optional(),
      Active: z.boolean().optional(),
      /** Enterprise only. */
      ParentCompany: int.optional(),
      CompanyName: text.min(1),
      TradingName: text.optional(),
      IsWorkplace: flag.optional(),
      IsPayrollEntity: flag.optional(),
      PayrollExportCode: text.optional(),
      /** A string on input; the service turns it into an address record id. */
      Address: text.optional(),
    })
    .refine((value) => value.IsWorkplace === 1 || value.IsPayrollEntity === 1, {
      message: 'at least one of IsWorkplace and IsPayrollEntity must be 1',
      path: ['IsWorkplace'],
    }),
);
export type LocationRequest = z.infer<typeof locationRequestSchema>;

/** The request spelling (`strOpunitName`, `intOpunitType`) is sent; the field table spells them with a capital U. */
export const areaRequestSchema = z.lazy(() =>
  z.looseObject({
    intCompanyId: int,
    strOpunitName: text.min(1),
    strAddress: text.optional(),
    strExportName: text.optional(),
    intOpunitType: flag.optional(),
  }),
);
export type AreaRequest = z.infer<typeof areaRequestSchema>;

/** Integer ids that some answers may carry as numeric strings. */
const integerId = z.union([int, z.string().regex(/^\d+$/).transform(Number)]);

/**
 * A location as read back (the spec names reading locations but shows no record): only what a
 * lookup matches on is declared, every field optional but the id, anything else passes through.
 */
export const locationRecordSchema = z.lazy(() =>
  z.looseObject({
    Id: integerId,
    CompanyName: nullableText.optional(),
    Code: nullableText.optional(),
    Created: timestamp.nullable().optional(),
    _DPMetaData: dpMetaDataSchema.optional(),
  }),
);
export type LocationRecord = z.infer<typeof locationRecordSchema>;

/** An area (operational unit) as read back; the fields of `OperationalUnitInfo` name it. */
export const areaRecordSchema = z.lazy(() =>
  z.looseObject({
    Id: integerId,
    Company: integerId.nullable().optional(),
    OperationalUnitName: nullableText.optional(),
    Created: timestamp.nullable().optional(),
    _DPMetaData: dpMetaDataSchema.optional(),
  }),
);
export type AreaRecord = z.infer<typeof areaRecordSchema>;

// ---------------------------------------------------------------------------------------------
// Leave

export const leaveAccrualSchema = z.lazy(() =>
  z.looseObject({
    Id: int,
    /** Install employee id, not the payroll id. */
    Employee: int,
    TransactionDate: timestamp,
    Type: int.nullable().optional(),
    LeaveRule: int,
    Hours: z.number(),
    Days: z.number().nullable().optional(),
    Comment: z.string().nullable().optional(),
    ...installRecordFields,
    // Kept as given, unchecked (the connector reads none of them): EmployeeHistory, FkId,
    // BalanceCalculatedAt.
  }),
);
export type LeaveAccrual = z.infer<typeof leaveAccrualSchema>;

// ---------------------------------------------------------------------------------------------
// Timesheet pay returns

export const timesheetMetadataSchema = z.lazy(() =>
  z.looseObject({
    borrowed_or_lent: z.unknown().optional(),
    forecast_cost: z.unknown().optional(),
  }),
);

export const timesheetObjectSchema = z.lazy(() =>
  z.looseObject({
    Id: int,
    Employee: int,
    Date: z.string().optional(),
    /** Unix seconds. */
    StartTime: z.number().nullable().optional(),
    /** Unix seconds. */
    EndTime: z.number().nullable().optional(),
    TotalTime: z.number().nullable().optional(),
    Cost: z.number().nullable().optional(),
    OperationalUnit: int.nullable().optional(),
    /** Integer id, or the expanded record when the response expands it. */
    CustomFieldData: z.union([int, customFieldDataSchema]).nullable().optional(),
    /** A string holding JSON with borrowed_or_lent and forecast_cost; decoded here. */
    Metadata: lenientJsonObject(timesheetMetadataSchema),
    Creator: int.nullable().optional(),
    Created: timestamp.nullable().optional(),
    Modified: timestamp.nullable().optional(),
    _DPMetaData: timesheetDpMetaDataSchema,
    // Kept as given, unchecked (the connector reads none of them): Slots, EmployeeHistory,
    // EmployeeAgreement, Mealbreak, MealbreakSlots, TotalTimeInv, Roster, EmployeeComment, SupervisorComment, Supervisor,
    // Disputed, TimeApproved, TimeApprover, Discarded, ValidationFlag, IsInProgress, IsLeave, LeaveId,
    // LeaveRule, Invoiced, InvoiceComment, PayRuleApproved, Exported, StagingId, PayStaged, PaycycleId,
    // MarkedPaidUnpaidAt, AccrualState, AccrualStateChangedAt, AccrualAttempts, File, RealTime,
    // AutoProcessed, AutoRounded, AutoTimeApproved, AutoPayRuleApproved, ParentId, StartTimeLocalized,
    // EndTimeLocalized, OnCost.
  }),
);
export type TimesheetObject = z.infer<typeof timesheetObjectSchema>;

/**
 * Keys of PayRuleObject.Config the spec lists. It lists the keys and a few values, not their types:
 * the values are kept as given, unchecked, and so are keys it does not list. Only `eventTypes` is
 * read (the schedule-change premium lines of PayReturnsReady), so only it is checked.
 */
export const PAY_RULE_CONFIG_KEYS = [
  'phEndTime',
  'eventTypes',
  'leavingLate',
  'phStartTime',
  'comingInLate',
  'leavingEarly',
  'comingInEarly',
  'midnightSplit',
  'usePredictPay',
  'payPortionRule',
  'returnTimeType',
  'shiftQuestions',
  'mealbreakWaiver',
  'isLastShiftForDay',
  'isShiftInOvertime',
  'workPeriodEndTime',
  'basePeriodStartDate',
  'splitShiftTimestamp',
  'workPeriodStartTime',
  'ruleThresholdSeconds',
  'consecutiveDaysWorked',
  'receivedAllMealBreaks',
  'receivedAllRestBreaks',
  'useCombinedTimeChange',
  'useProrataCalculation',
  'dailyOvertimeThreshold',
  'isShiftOnPublicHoliday',
  'basePeriodFrequencyDays',
  'ignorePremiumInOvertime',
  'periodOvertimeThreshold',
  'unscheduledShiftConsent',
  'basePeriodDayOfWeekStart',
  'schedulePremiumReference',
  'shiftLengthThresholdSeconds',
  'changePeriodThresholdSeconds',
  'dailyOrdinaryTimeTotalSeconds',
  'consecutiveDaysWorkedThreshold',
  'restBetweenShiftsThresholdSeconds',
  'timesheetPayReturnOrdinaryTimeTotal',
] as const;
export const scheduleChangeEventTypes = [
  'TIME_ADDED',
  'TIME_CHANGED_TOTAL_CHANGED',
  'TIME_CHANGED_TOTAL_SAME',
  'LOCATION_CHANGED',
] as const;
const payRuleConfigSchema = z.looseObject({
  /** Values seen: TIME_ADDED, TIME_CHANGED_TOTAL_CHANGED, TIME_CHANGED_TOTAL_SAME, LOCATION_CHANGED. */
  eventTypes: z.array(z.unknown()).nullable().optional(),
});
export type PayRuleConfig = z.infer<typeof payRuleConfigSchema>;

export const payRuleObjectSchema = z.lazy(() =>
  z.looseObject({
    Id: flexibleId,
    PayTitle: text.nullable().optional(),
    AnnualSalary: z.number().nullable().optional(),
    HourlyRate: z.number().nullable().optional(),
    /** The export code: maps pay lines to payroll items. */
    PayrollCategory: z.string().nullable().optional(),
    Creator: int.nullable().optional(),
    Created: timestamp.nullable().optional(),
    Modified: timestamp.nullable().optional(),
    /** A string holding JSON; decoded here. */
    Config: lenientJsonObject(payRuleConfigSchema),
    _DPMetaData: dpMetaDataSchema,
    // Kept as given, unchecked (the connector reads none of them): RemunerationType, RemunerationBy,
    // IsMultiplier, MultiplierValue, MultiplierBaseRate, MinimumType, MaximumType, MinimumValue,
    // MaximumValue, MinimumShiftLength, MaximumShiftLength, AdvancedCalculation, IsExported, UnitValue,
    // Schedule, RecommendWith, DexmlScript, DexmlScriptParam, PeriodType, PayPortionRule, Comment, RateType,
    // RateTag, CtId, CrId.
  }),
);
export type PayRuleObject = z.infer<typeof payRuleObjectSchema>;

function timesheetPayReturnObject() {
  return z.looseObject({
    Id: int,
    Timesheet: int,
    PayRule: flexibleId,
    Overridden: z.boolean().optional(),
    Value: z.number(),
    Cost: z.number(),
    OverrideComment: z.string().nullable().optional(),
    /** null, or a string holding a JSON array of event ids (schedule-change premium lines); decoded. */
    EventIds: optionalJsonText(z.array(z.string())),
    TimesheetObject: timesheetObjectSchema.optional(),
    PayRuleObject: payRuleObjectSchema.optional(),
    ...installRecordFields,
  });
}
export const timesheetPayReturnSchema = z.lazy(timesheetPayReturnObject);
export type TimesheetPayReturn = z.infer<typeof timesheetPayReturnSchema>;

/**
 * What getPayReturns returns: both joins present. It checks an answer in two steps
 * (payReturnLineSchema, then each distinct TimesheetObject with timesheetObjectSchema).
 */
export const joinedTimesheetPayReturnSchema = z.lazy(() =>
  timesheetPayReturnObject().extend({
    TimesheetObject: timesheetObjectSchema,
    PayRuleObject: payRuleObjectSchema,
  }),
);
export type JoinedTimesheetPayReturn = z.infer<typeof joinedTimesheetPayReturnSchema>;

/**
 * A pay line as getPayReturns first reads it: the joined TimesheetObject is the same timesheet on
 * every line of the answer, so it is checked once per answer (install.ts), not once per line.
 */
export const payReturnLineSchema = z.lazy(() =>
  timesheetPayReturnObject().extend({
    TimesheetObject: z.looseObject({ Id: int }),
    PayRuleObject: payRuleObjectSchema,
  }),
);
