import * as z from 'zod';
import { accountId, occurredAt } from '../fields.ts';
import { DEFAULT_INBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_INBOUND_SOURCE;
export const detailType = 'SubscriptionStatusRequested';
export const version = '1';
export const description =
  'The partner asks for the current subscription of its business; answered with SubscriptionStatus.';

/** Last writer wins per thing: what this contract sets, and what an older event does (events/README.md). */
export const ordering = 'A request: sets nothing, always answered; `occurredAt` is accepted and not used.';

export const schema = z.strictObject({ accountId, occurredAt: occurredAt.optional() });

export type SubscriptionStatusRequestedDetail = z.output<typeof schema>;
export type SubscriptionStatusRequestedDetailInput = z.input<typeof schema>;
