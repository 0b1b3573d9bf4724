import { z } from 'zod';
import { outboundBase, positiveId } from '../fields.ts';

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
