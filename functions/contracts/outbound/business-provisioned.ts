import * as z from 'zod';
import { edition, isoTimestamp, outboundBase, region } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'BusinessProvisioned';
export const version = '1';
export const description =
  'Signup succeeded: the business exists at hostname, on a trial that ends at trialEndDate.';

export const schema = z.object({
  ...outboundBase,
  edition,
  trialEndDate: isoTimestamp,
  region,
});

export type BusinessProvisionedDetail = z.output<typeof schema>;
