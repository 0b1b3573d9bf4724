import * as z from 'zod';
import { lenientJsonObject, optionalJsonText } from '../parsing.ts';
import { customFieldDataSchema } from './custom-fields.ts';
import { dpMetaDataSchema, flexibleId, installRecordFields, int, text, timestamp } from './fields.ts';

/**
 * Timesheet pay returns: the pay lines of a timesheet and the two records they join, the timesheet
 * and the pay rule (record rules: fields.ts).
 */

export const operationalUnitInfoSchema = z.looseObject({
  Id: int,
  OperationalUnitName: text.optional(),
  Company: int.optional(),
  CompanyName: text.optional(),
  LabelWithCompany: text.optional(),
});

/** A timesheet's `_DPMetaData`, whose OperationalUnitInfo names the area of PayReturnsReady. */
export const timesheetDpMetaDataSchema = dpMetaDataSchema.extend({
  OperationalUnitInfo: operationalUnitInfoSchema.nullable().optional(),
});

export const timesheetMetadataSchema = z.looseObject({
  borrowed_or_lent: z.unknown().optional(),
  forecast_cost: z.unknown().optional(),
});

export const timesheetObjectSchema = z.looseObject({
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
});
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

export const payRuleObjectSchema = z.looseObject({
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
});
export type PayRuleObject = z.infer<typeof payRuleObjectSchema>;

export const timesheetPayReturnSchema = z.looseObject({
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
export type TimesheetPayReturn = z.infer<typeof timesheetPayReturnSchema>;

/**
 * What getPayReturns returns: both joins present. It checks an answer in two steps
 * (payReturnLineSchema, then each distinct TimesheetObject with timesheetObjectSchema).
 */
export const joinedTimesheetPayReturnSchema = timesheetPayReturnSchema.extend({
  TimesheetObject: timesheetObjectSchema,
  PayRuleObject: payRuleObjectSchema,
});
export type JoinedTimesheetPayReturn = z.infer<typeof joinedTimesheetPayReturnSchema>;

/**
 * A pay line as getPayReturns first reads it: the joined TimesheetObject is the same timesheet on
 * every line of the answer, so it is checked once per answer (install.ts), not once per line.
 */
export const payReturnLineSchema = timesheetPayReturnSchema.extend({
  TimesheetObject: z.looseObject({ Id: int }),
  PayRuleObject: payRuleObjectSchema,
});
