import * as z from 'zod';
import { checkPartNumber, partFields } from '../answer-parts.ts';
import { outboundBase, text } from '../fields.ts';
import { condition } from '../inbound/records-requested.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'RecordsReported';
export const version = '1';
export const description =
  'Answer to RecordsRequested: one page of the records matching its `where`, in id order, as the install holds them; nextCursor when more follow. Split into parts when a page would not fit one event.';

export const schema = z
  .object({
    ...outboundBase,
    /** As asked. */
    resource: text(64),
    where: z.array(condition).optional(),
    /** The cursor this page answers (absent for the first page). */
    cursor: z.string().optional(),
    /** The page's records, each as the service gives it (fields not shown by the service are kept). */
    records: z.array(z.record(z.string(), z.unknown())),
    /** Give it as `cursor` (same resource and where) for the next page; absent on the last page. */
    nextCursor: z.string().optional(),
    ...partFields,
  })
  .superRefine(checkPartNumber);

export type RecordsReportedDetail = z.output<typeof schema>;
