import * as z from 'zod';

/**
 * Records of the service spec ("Resources and their fields"), as zod schemas: one module per
 * family of records in this folder, and here the field schemas they share.
 *
 * Tolerance rules (see docs/client.md):
 * - every object is a z.looseObject: fields the spec does not list pass through untouched;
 * - every listed field is declared; it is REQUIRED when the spec guarantees it and the connector
 *   relies on it (ids, the values acted upon, `_DPMetaData` which the spec puts on every install
 *   record); the rest are optional and typed as the spec types them (`unknown` where it does not);
 * - where the spec shows two spellings, both parse.
 *
 * Every schema is a plain zod schema built when its module loads, after the schemas it uses.
 */

export const int = z.number().int();
/** Newer records (pay rules, metrics, award codes) use string ids, older ones integers. */
export const flexibleId = z.union([z.string(), int]);
export const text = z.string();
export const nullableText = z.string().nullable();
export const timestamp = z.string();

// ---------------------------------------------------------------------------------------------
// _DPMetaData

/**
 * Every install record's `_DPMetaData`. `CreatorInfo` (and a timesheet's `EmployeeInfo`) are kept
 * as given, unchecked: the connector reads neither, so neither may fail a record (a record is read
 * strictly only where the connector relies on a value).
 */
export const dpMetaDataSchema = z.looseObject({
  System: text,
});

/** Fields every install record carries besides its own. */
export const installRecordFields = {
  Creator: int.nullable().optional(),
  Created: timestamp.nullable().optional(),
  Modified: timestamp.nullable().optional(),
  _DPMetaData: dpMetaDataSchema,
};
