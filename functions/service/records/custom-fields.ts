import * as z from 'zod';
import { installRecordFields, int, text } from './fields.ts';

/**
 * Custom fields: the data record of an employee's (or a timesheet's) slots and answers, and the
 * definition of a timesheet custom field (record rules: fields.ts).
 */

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
export const customFieldDataSchema = z.looseObject({
  Id: int,
  /** `Employee` or `Timesheet` by the spec; another value is kept, not refused. */
  System: z.string(),
  ...installRecordFields,
});
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

export const timesheetCustomFieldDefinitionSchema = z.looseObject({
  System: z.literal('Timesheet'),
  Name: text.min(1),
  ApiName: text.min(1),
  Type: customFieldTypeSchema,
  Validation: validationTokensSchema.optional(),
  Valuelist: z.array(z.string()).optional(),
  OperationUnit: z.array(int).optional(),
});
export type TimesheetCustomFieldDefinition = z.infer<typeof timesheetCustomFieldDefinitionSchema>;
