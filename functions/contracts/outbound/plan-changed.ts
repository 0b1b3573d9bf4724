import * as z from 'zod';
import { edition, outboundBase } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'PlanChanged';
export const version = '1';
export const description =
  'change-plan succeeded: the business moved from previousEdition to edition; after an upgrade during the trial, billingStartsOn says when billing starts.';

export const schema = z.object({
  ...outboundBase,
  edition,
  previousEdition: edition,
  /**
   * After an upgrade during the trial: the day billing starts, "the day after the trial end"
   * (the service's subscription rules), as YYYY-MM-DD in UTC.
   */
  billingStartsOn: z.iso.date().optional(),
});

export type PlanChangedDetail = z.output<typeof schema>;
