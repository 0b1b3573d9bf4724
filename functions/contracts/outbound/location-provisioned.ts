import * as z from 'zod';
import { outboundBase, positiveId, text } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
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
