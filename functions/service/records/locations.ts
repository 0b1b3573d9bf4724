import * as z from 'zod';
import { dpMetaDataSchema, int, nullableText, text, timestamp } from './fields.ts';

/** Locations and areas: each as requested and as read back (record rules: fields.ts). */

const flag = z.literal([0, 1]);

export const locationRequestSchema = z
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
  });
export type LocationRequest = z.infer<typeof locationRequestSchema>;

/** The request spelling (`strOpunitName`, `intOpunitType`) is sent; the field table spells them with a capital U. */
export const areaRequestSchema = z.looseObject({
  intCompanyId: int,
  strOpunitName: text.min(1),
  strAddress: text.optional(),
  strExportName: text.optional(),
  intOpunitType: flag.optional(),
});
export type AreaRequest = z.infer<typeof areaRequestSchema>;

/** Integer ids that some answers may carry as numeric strings. */
const integerId = z.union([int, z.string().regex(/^\d+$/).transform(Number)]);

/**
 * A location as read back (the spec names reading locations but shows no record): only what a
 * lookup matches on is declared, every field optional but the id, anything else passes through.
 */
export const locationRecordSchema = z.looseObject({
  Id: integerId,
  CompanyName: nullableText.optional(),
  Code: nullableText.optional(),
  Created: timestamp.nullable().optional(),
  _DPMetaData: dpMetaDataSchema.optional(),
});
export type LocationRecord = z.infer<typeof locationRecordSchema>;

/** An area (operational unit) as read back; the fields of `OperationalUnitInfo` name it. */
export const areaRecordSchema = z.looseObject({
  Id: integerId,
  Company: integerId.nullable().optional(),
  OperationalUnitName: nullableText.optional(),
  Created: timestamp.nullable().optional(),
  _DPMetaData: dpMetaDataSchema.optional(),
});
export type AreaRecord = z.infer<typeof areaRecordSchema>;
