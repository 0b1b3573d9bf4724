import * as z from 'zod';
import { flexibleId, installRecordFields, int, nullableText, text, timestamp } from './fields.ts';

/**
 * Pay conditions: an employee's agreement and the award library's entries (record rules:
 * fields.ts).
 */

export const employeeAgreementSchema = z.looseObject({
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
});
export type EmployeeAgreement = z.infer<typeof employeeAgreementSchema>;

export const basePayRuleObjectSchema = z.looseObject({
  Id: flexibleId,
  PayTitle: text.optional(),
  HourlyRate: z.number().nullable().optional(),
  // Kept as given, unchecked (the connector reads none of them): RemunerationType, RemunerationBy.
});

/** One entry of the library list: the spec promises the name and the AwardCode. */
export const awardLibraryListEntrySchema = z.looseObject({
  AwardCode: text,
  Name: text.nullable().optional(),
  Award: text.nullable().optional(),
  CountryCode: text.optional(),
});
export type AwardLibraryListEntry = z.infer<typeof awardLibraryListEntrySchema>;

export const awardLibraryEntrySchema = z.looseObject({
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
});
export type AwardLibraryEntry = z.infer<typeof awardLibraryEntrySchema>;
