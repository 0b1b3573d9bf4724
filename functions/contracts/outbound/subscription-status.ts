import * as z from 'zod';
import { edition, isoTimestamp, outboundBase } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
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
