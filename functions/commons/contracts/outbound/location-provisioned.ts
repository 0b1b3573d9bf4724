import { z } from 'zod';
import { outboundBase, positiveId, text } from '../fields.ts';

export const detailType = 'LocationProvisioned';
export const version = '1';
export const description = 'The location and its areas exist in the install.';

export const schema = z.object({
  ...outboundBase,
  locationRef: text(128),
  locationId: positiveId,
  areas: z.array(z.object({ name: text(200), areaId: positiveId })),
});

export type LocationProvisionedDetail = z.output<typeof schema>;
