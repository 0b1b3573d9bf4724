import * as z from 'zod';
import { installRecordFields, int, text } from './fields.ts';

/** Reference data of an install: countries and their states (record rules: fields.ts). */

export const countrySchema = z.looseObject({
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
});
export type Country = z.infer<typeof countrySchema>;

export const stateSchema = z.looseObject({
  Id: int,
  /** Id of the country; a state query can span several countries. */
  Country: int,
  Code: text,
  Active: z.boolean().optional(),
  SortOrder: int.nullable().optional(),
  State: text,
  ...installRecordFields,
});
export type State = z.infer<typeof stateSchema>;
