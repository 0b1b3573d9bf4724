import { z } from 'zod';
import { isoTimestamp, outboundBase } from '../fields.ts';

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
