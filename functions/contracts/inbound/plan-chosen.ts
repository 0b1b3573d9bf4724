import * as z from 'zod';
import { accountId, occurredAt, text } from '../fields.ts';
import { DEFAULT_INBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_INBOUND_SOURCE;
export const detailType = 'PlanChosen';
export const version = '1';
export const description =
  'The partner account chose a plan: PREMIUM converts the business (US needs the billing address), FREE cancels it.';

/** Last writer wins per thing: what this contract sets, and what an older event does (events/README.md). */
export const ordering =
  "One thing, replaced whole: the business's plan. The newest PlanChosen is the desired plan; an older one arriving after it calls nothing and is answered with SyncSkipped (`plan`). A choice refused with SyncFailed applied nothing and moves nothing.";

export const schema = z.strictObject({
  accountId,
  occurredAt: occurredAt.optional(),
  plan: z.enum(['PREMIUM', 'FREE']),
  // Every address field is optional in the service's change-plan request, so they are here too.
  billingAddress: z
    .strictObject({
      address1: text(200).optional(),
      suburb: text(100).optional(),
      state: text(100).optional(),
      postcode: text(20).optional(),
      country: text(100).optional(),
    })
    .optional(),
});

export type PlanChosenDetail = z.output<typeof schema>;
export type PlanChosenDetailInput = z.input<typeof schema>;
