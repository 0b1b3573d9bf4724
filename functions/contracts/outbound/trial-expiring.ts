import * as z from 'zod';
import { isoTimestamp, outboundBase } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'TrialExpiring';
export const version = '1';
export const description =
  'trial-watch: the trial ends in daysLeft days; announced once per business and threshold.';

export const schema = z.object({
  ...outboundBase,
  daysLeft: z.int().nonnegative(),
  trialEndDate: isoTimestamp,
});

export type TrialExpiringDetail = z.output<typeof schema>;
