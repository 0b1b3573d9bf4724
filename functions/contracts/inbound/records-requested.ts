import * as z from 'zod';
import { accountId, occurredAt } from '../fields.ts';
import { decodeCursor } from '../records-cursor.ts';
import { DEFAULT_INBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_INBOUND_SOURCE;
export const detailType = 'RecordsRequested';
export const version = '1';
export const description =
  "The partner reads one page of an install's records (Timesheet, Employee, Company, OperationalUnit, EmployeeAgreement, PayRule by default), optionally only those matching `where`; answered with RecordsReported, whose nextCursor asks for the next page.";

/** Last writer wins per thing: what this contract sets, and what an older event does (events/README.md). */
export const ordering = 'A request: sets nothing, always answered; `occurredAt` is accepted and not used.';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;
export const MAX_CONDITIONS = 10;

/**
 * One condition, with the operators the service's QUERY has. `eq`: the field's value is exactly
 * `value` (a number and its decimal string are the same value). `lk`: the field's text is `value`,
 * case-insensitively, where a `%` at the start or end stands for any text (`%` elsewhere is not
 * allowed, as in the service's description): `Lee` matches "lee" only, `Le%` "Lee" and "Leonard",
 * `%ee` "Lee", `%e%` both.
 */
export const condition = z
  .strictObject({
    field: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, { error: 'expected a field name' }),
    op: z.enum(['eq', 'lk']),
    value: z.union([z.string().max(256), z.number(), z.boolean(), z.null()]),
  })
  .superRefine((item, ctx) => {
    if (item.op !== 'lk') return;
    if (typeof item.value !== 'string' || item.value.replace(/^%/, '').replace(/%$/, '') === '') {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'lk takes a non-empty text' });
    } else if (item.value.slice(1, -1).includes('%')) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: '% is allowed only at the start and end' });
    }
  });
export type RecordCondition = z.output<typeof condition>;

export const schema = z
  .strictObject({
    accountId,
    occurredAt: occurredAt.optional(),
    /** What to read: one of the deployment's record resources (unknown ones are refused naming them). */
    resource: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, { error: 'expected a resource name' }),
    /** Every condition must hold (AND). */
    where: z.array(condition).min(1).max(MAX_CONDITIONS).optional(),
    /** The nextCursor of the previous page, with the same resource and where; absent: the first page. */
    cursor: z.string().min(1).max(512).optional(),
    /** Records per page. */
    pageSize: z.int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  })
  .superRefine((detail, ctx) => {
    if (detail.cursor === undefined) return;
    const decoded = decodeCursor(detail.cursor, detail);
    if (!decoded.ok) ctx.addIssue({ code: 'custom', path: ['cursor'], message: decoded.reason });
  });

export type RecordsRequestedDetail = z.output<typeof schema>;
export type RecordsRequestedDetailInput = z.input<typeof schema>;
