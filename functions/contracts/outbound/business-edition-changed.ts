import * as z from 'zod';
import { edition, outboundBase } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'BusinessEditionChanged';
export const version = '1';
export const description =
  'drift watch: the edition moved at the service without a PlanChosen (the connector recorded previousEdition, the service reports edition); published once per change.';

export const schema = z.object({
  ...outboundBase,
  previousEdition: edition,
  edition,
});

export type BusinessEditionChangedDetail = z.output<typeof schema>;
