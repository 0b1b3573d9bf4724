import { z } from 'zod';
import { accountId } from '../fields.ts';

export const detailType = 'SubscriptionStatusRequested';
export const version = '1';
export const description =
  'The partner asks for the current subscription of its business; answered with SubscriptionStatus.';

export const schema = z.strictObject({ accountId });

export type SubscriptionStatusRequestedDetail = z.output<typeof schema>;
export type SubscriptionStatusRequestedDetailInput = z.input<typeof schema>;
