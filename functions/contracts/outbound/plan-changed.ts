import * as z from 'zod';
import { edition, outboundBase } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'PlanChanged';
export const version = '1';
export const description =
  'The business is on the chosen plan: change-plan moved it from previousEdition to edition (after an upgrade during the trial, billingStartsOn says when billing starts), or, with alreadyOnPlan, subscription-status showed it already there.';

export const schema = z.object({
  ...outboundBase,
  edition,
  previousEdition: edition,
  /**
   * After an upgrade during the trial: the day billing starts, "the day after the trial end"
   * (the service's subscription rules), as YYYY-MM-DD in UTC.
   */
  billingStartsOn: z.iso.date().optional(),
  /**
   * true: the service already held the chosen edition (the connector's table said so, or was
   * stale and subscription-status showed it), so no change-plan call was made; previousEdition is
   * the edition the connector's table held. Absent: change-plan made the change.
   */
  alreadyOnPlan: z.literal(true).optional(),
});

export type PlanChangedDetail = z.output<typeof schema>;
