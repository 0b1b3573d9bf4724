import * as z from 'zod';
import { outboundBase, positiveId, text } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'LocationProvisioned';
export const version = '1';
export const description =
  'The location and the areas the event asked for exist in the install; `created` says which of them this event created and which already existed (created by an earlier event).';

export const schema = z.object({
  ...outboundBase,
  locationRef: text(128),
  locationId: positiveId,
  /** true: this event created the location; false: an earlier event had (only missing areas were added). */
  created: z.boolean(),
  /** The areas the event asked for, in its order (none for `areas: []`). */
  areas: z.array(
    z.object({
      name: text(200),
      areaId: positiveId,
      /** true: added by this event; false: it existed already (created by an earlier event). */
      created: z.boolean(),
    }),
  ),
});

export type LocationProvisionedDetail = z.output<typeof schema>;
