import * as z from 'zod';
import { outboundBase, positiveId, text } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'PayRatesAssigned';
export const version = '1';
export const description =
  'Answer to PayRateAssigned: the agreement the library assignment created, and per employee whether it now holds it (applied, with the agreement id the service gives that employee) or why not (failed, with a code and a reason). Employees a newer event had already set are in the SyncSkipped that goes with it.';

/** The service names neither the field nor its type; ids are integers unless a record says otherwise. */
const agreementId = z.union([positiveId, z.string().min(1).max(128)]);

export const schema = z.object({
  ...outboundBase,
  awardCode: text(64),
  /** The agreement setAwardFromLibrary created for the first employee assigned. */
  agreementId,
  employees: z.array(
    z.discriminatedUnion('status', [
      z.object({
        employeeId: positiveId,
        status: z.literal('applied'),
        /** `library`: setAwardFromLibrary; `bulk`: employees:bulk. */
        via: z.enum(['library', 'bulk']),
        agreementId,
      }),
      z.object({
        employeeId: positiveId,
        status: z.literal('failed'),
        code: text(128),
        reason: z.string().max(1024),
      }),
    ]),
  ),
  applied: z.int().nonnegative(),
  failed: z.int().nonnegative(),
});

export type PayRatesAssignedDetail = z.output<typeof schema>;
export type PayRateEmployeeOutcome = PayRatesAssignedDetail['employees'][number];
