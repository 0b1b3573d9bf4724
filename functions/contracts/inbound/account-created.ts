import * as z from 'zod';
import { accountId, occurredAt, region, text } from '../fields.ts';
import { DEFAULT_INBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_INBOUND_SOURCE;
export const detailType = 'AccountCreated';
export const version = '1';
export const description =
  'A partner account was created: provision a business (signup) for it. UK and AU fail clearly while those regions are not running.';

/** Last writer wins per thing: what this contract sets, and what an older event does (events/README.md). */
export const ordering =
  'Sets nothing that changes later: the business is created once per accountId (a repeat finds it), so `occurredAt` is accepted and not used.';

export const schema = z.strictObject({
  accountId,
  occurredAt: occurredAt.optional(),
  businessName: text(200),
  owner: z.strictObject({
    firstName: text(100),
    lastName: text(100),
    email: z.email().max(254),
    // The service owns the exact mobile rule; this only keeps non-phone text away from it.
    mobileNumber: z
      .string()
      .regex(/^\+?[0-9][0-9 ()-]{5,30}$/, {
        message: 'expected a phone number (digits, optional +, spaces, dashes)',
      })
      .optional(),
  }),
  estimatedEmployeeCount: z.int().positive().optional(),
  region: region.default('US'),
});

export type AccountCreatedDetail = z.output<typeof schema>;
export type AccountCreatedDetailInput = z.input<typeof schema>;
