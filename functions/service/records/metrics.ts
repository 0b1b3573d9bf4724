import * as z from 'zod';
import { int, text, timestamp } from './fields.ts';

/** Metrics, the records of budgets: one as sent and one as read back (record rules: fields.ts). */

export const metricTypeSchema = z.enum(['budget_wage', 'budget_hour', 'budget_StaffHour']);
export type HourBudgetType = 'budget_hour' | 'budget_StaffHour';

export const metricItemSchema = z.looseObject({
  /** Unix seconds; midnight of the day for daily budgets. */
  timestamp: int,
  area: int.optional(),
  type: metricTypeSchema,
  reference: text.optional(),
  value: z.number(),
  location: int.optional(),
});
export type MetricItem = z.infer<typeof metricItemSchema>;

export const metricRecordSchema = z.looseObject({
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
});
export type MetricRecord = z.infer<typeof metricRecordSchema>;
