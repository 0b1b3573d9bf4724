import { z } from 'zod';
import { edition, isoTimestamp, outboundBase } from '../fields.ts';

export const detailType = 'SubscriptionStatus';
export const version = '1';
export const description = 'Answer to SubscriptionStatusRequested, as the service reports the subscription.';

export const schema = z.object({
  ...outboundBase,
  edition,
  trialEndDate: isoTimestamp,
  /** Empty string until the business is converted, as the service reports it. */
  conversionDate: z.string(),
  status: z.string(),
});

export type SubscriptionStatusDetail = z.output<typeof schema>;
