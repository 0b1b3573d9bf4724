import * as z from 'zod';
import { outboundBase, positiveId } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'BudgetSaved';
export const version = '1';
export const description = 'The budget days were saved as metrics: count records with their metric ids.';

export const schema = z.object({
  ...outboundBase,
  locationId: positiveId,
  areaId: positiveId.optional(),
  count: z.int().nonnegative(),
  /** Metric ids are strings in the service. */
  ids: z.array(z.string()),
});

export type BudgetSavedDetail = z.output<typeof schema>;
