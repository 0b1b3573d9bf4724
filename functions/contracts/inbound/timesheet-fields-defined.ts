import * as z from 'zod';
import { accountId, customFieldApiName, occurredAt, positiveId, refuseRepeats, text } from '../fields.ts';
import { DEFAULT_INBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_INBOUND_SOURCE;
export const detailType = 'TimesheetFieldsDefined';
export const version = '1';
export const description =
  'The partner defines timesheet custom fields (questions shown at timesheet approval): the definitions the install does not have yet (by apiName) are created, the others are left as they are; answered with TimesheetFieldsSynced.';

/** Last writer wins per thing: what this contract sets, and what an older event does (events/README.md). */
export const ordering =
  'Creates only: a definition is created once per apiName and never changed or removed, so the order of two events does not matter (the first creates it, the second finds it). `occurredAt` is accepted and not used.';

/** The service's limit: up to 128 timesheet custom fields per install. */
export const TIMESHEET_FIELD_LIMIT = 128;

/**
 * The `Type` values the service lists (7 is not among them, so it is refused rather than guessed).
 * 5 and 6 are the list types: they take a `valuelist`.
 */
export const TIMESHEET_FIELD_TYPES = {
  1: 'Text',
  2: 'Number',
  3: 'Large text (paragraph)',
  4: 'Boolean / checkbox',
  5: 'List',
  6: 'Multi list',
  8: 'Boolean / checkbox with a comment field',
} as const;
export const LIST_FIELD_TYPES: readonly number[] = [5, 6];
const typeValues = Object.keys(TIMESHEET_FIELD_TYPES).map(Number);

/**
 * `Validation` tokens: the service shows `nempty` (must not be empty) and `unq` (its semantics are
 * not shown). Sent joined by a newline, as the service takes them.
 */
export const VALIDATION_TOKENS = ['nempty', 'unq'] as const;

const field = z
  .strictObject({
    apiName: customFieldApiName,
    /** The label shown at timesheet approval. */
    name: text(128),
    type: z.int().refine((value) => typeValues.includes(value), {
      message: `expected a type the service lists: ${Object.entries(TIMESHEET_FIELD_TYPES)
        .map(([value, meaning]) => `${value} (${meaning})`)
        .join(', ')}`,
    }),
    validation: z.array(z.enum(VALIDATION_TOKENS)).min(1).max(VALIDATION_TOKENS.length).optional(),
    /** The choices of a list type (5, 6); no other type takes one. */
    valuelist: z.array(text(256)).min(1).max(200).optional(),
    /** Area ids the field is shown for (`OperationUnit`); left out, the service's default. */
    areaIds: z.array(positiveId).min(1).max(500).optional(),
  })
  .superRefine((entry, ctx) => {
    const listType = LIST_FIELD_TYPES.includes(entry.type);
    if (listType && entry.valuelist === undefined) {
      ctx.addIssue({ code: 'custom', path: ['valuelist'], message: 'required for the list types 5 and 6' });
    }
    if (!listType && entry.valuelist !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['valuelist'],
        message: 'only the list types 5 and 6 take a valuelist',
      });
    }
    refuseRepeats(
      ctx,
      entry.validation ?? [],
      (index) => ['validation', index],
      'validation token listed more than once',
    );
    refuseRepeats(ctx, entry.valuelist ?? [], (index) => ['valuelist', index], 'value listed more than once');
    refuseRepeats(ctx, entry.areaIds ?? [], (index) => ['areaIds', index], 'area id listed more than once');
  });
export type TimesheetFieldInput = z.output<typeof field>;

export const schema = z
  .strictObject({
    accountId,
    occurredAt: occurredAt.optional(),
    fields: z.array(field).min(1).max(TIMESHEET_FIELD_LIMIT),
  })
  .superRefine((detail, ctx) => {
    refuseRepeats(
      ctx,
      detail.fields.map((entry) => entry.apiName),
      (index) => ['fields', index, 'apiName'],
      'apiName listed more than once',
    );
  });

export type TimesheetFieldsDefinedDetail = z.output<typeof schema>;
export type TimesheetFieldsDefinedDetailInput = z.input<typeof schema>;
