import * as z from 'zod';
import { installRecordFields, int, timestamp } from './fields.ts';

/**
 * Leave: a leave rule, and an accrual, the record that overwrites an employee's leave balance
 * (record rules: fields.ts).
 */

/** A leave rule: the spec shows no fields, so only the id is relied on; the rest passes through. */
export const leaveRuleRecordSchema = z.looseObject({ Id: z.union([z.int(), z.string().min(1)]) });
export type LeaveRuleRecord = z.output<typeof leaveRuleRecordSchema>;

export const leaveAccrualSchema = z.looseObject({
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
});
export type LeaveAccrual = z.infer<typeof leaveAccrualSchema>;
