import * as z from 'zod';
import { customFieldApiName, outboundBase, positiveId } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'EmployeeSynced';
export const version = '1';
export const description =
  'The employee changes were applied: the status of each part (applied, skipped when the event did not carry it, superseded when a newer event had set all of it), the custom-field slots used, the new agreement id when a pay rate was set.';

export const schema = z.object({
  ...outboundBase,
  employeeId: positiveId,
  parts: z.array(
    z.object({
      part: z.enum(['customFields', 'regularHours', 'payRate', 'leaveBalances']),
      /**
       * applied: set (at least one of its things); skipped: the event did not carry it;
       * superseded: every thing of it was set by a newer event first (SyncSkipped lists them).
       */
      status: z.enum(['applied', 'skipped', 'superseded']),
    }),
  ),
  slots: z.array(z.object({ apiName: customFieldApiName, slot: z.int().min(1).max(128) })),
  /** The service names neither the field nor its type; ids are integers unless a record says otherwise. */
  agreementId: z.union([positiveId, z.string().min(1).max(128)]).optional(),
});

export type EmployeeSyncedDetail = z.output<typeof schema>;
