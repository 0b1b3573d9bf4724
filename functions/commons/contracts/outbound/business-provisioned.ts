import { z } from 'zod';
import { edition, isoTimestamp, outboundBase, region } from '../fields.ts';

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
