import * as z from 'zod';
import { accountId } from '../fields.ts';
import { DEFAULT_INBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_INBOUND_SOURCE;
export const detailType = 'SubscriptionStatusRequested';
export const version = '1';
export const description =
  'The partner asks for the current subscription of its business; answered with SubscriptionStatus.';

export const schema = z.strictObject({ accountId });

export type SubscriptionStatusRequestedDetail = z.output<typeof schema>;
export type SubscriptionStatusRequestedDetailInput = z.input<typeof schema>;
