import * as z from 'zod';
import { int, text, timestamp } from './fields.ts';

/**
 * Records of the provisioning API: the business it provisions, its subscription status, a plan
 * change, and the signup and plan-change requests (record rules: fields.ts).
 */

export const editions = [
  'SUBSCRIPTION_PRO_TRIAL',
  'SUBSCRIPTION_FREE',
  'SUBSCRIPTION_PAID_PRO_PREMIUM',
] as const;
export const editionSchema = z.enum(editions);
export type Edition = z.infer<typeof editionSchema>;

export const provisioningEnvelopeSchema = z.looseObject({
  success: z.boolean(),
  data: z.unknown().optional(),
  error: z.unknown().optional(),
});

export const provisionedBusinessSchema = z.looseObject({
  hostname: text,
  portfolioName: text,
  status: text,
  edition: editionSchema,
  trialEndDate: timestamp,
  conversionDate: z.string().nullable(),
  externalId: text,
});
export type ProvisionedBusiness = z.infer<typeof provisionedBusinessSchema>;

export const subscriptionStatusSchema = z.looseObject({
  status: text,
  hostname: text,
  portfolioName: text.optional(),
  edition: editionSchema,
  trialEndDate: timestamp.nullable(),
  conversionDate: z.string().nullable().optional(),
});
export type SubscriptionStatus = z.infer<typeof subscriptionStatusSchema>;

/** The spec shows the upgrade answer only; the cancel answer is "not shown", so all optional. */
export const changePlanResultSchema = z.looseObject({
  hostname: text.optional(),
  trialEndDate: timestamp.nullable().optional(),
  edition: editionSchema.optional(),
});
export type ChangePlanResult = z.infer<typeof changePlanResultSchema>;

/**
 * Signup request objects with the spec's rules. The client itself sends what it is given (the
 * service is the authority on e-mail, mobile and count rules); use cases validate with these.
 */
export const userDataSchema = z.looseObject({
  firstName: text.min(1),
  lastName: text.min(1),
  email: z.email(),
  mobileNumber: text.optional(),
});
export type UserData = z.input<typeof userDataSchema>;

export const businessDataSchema = z.looseObject({
  externalId: text.min(1),
  /** Integer > 0; the sample sends it as a string, so both parse. */
  estimatedEmployeeCount: z
    .union([int.positive(), z.string().regex(/^[1-9]\d*$/, 'must be an integer > 0')])
    .optional(),
  portfolioName: text.min(1),
});
export type BusinessData = z.input<typeof businessDataSchema>;

export const signupRequestSchema = z.looseObject({
  userData: userDataSchema,
  businessData: businessDataSchema,
});

export const billingAddressSchema = z.looseObject({
  address1: text.optional(),
  suburb: text.optional(),
  state: text.optional(),
  postcode: text.optional(),
  country: text.optional(),
});
export type BillingAddress = z.infer<typeof billingAddressSchema>;

export const changePlanDataSchema = z.looseObject({
  hostname: text.min(1),
  action: z.enum(['upgrade', 'cancel']),
  address: billingAddressSchema.optional(),
});
export const changePlanRequestSchema = z.looseObject({ data: changePlanDataSchema });
