import * as z from 'zod';
import { checkPartNumber, partFields } from '../answer-parts.ts';
import { outboundBase, positiveId, region } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'PayRatesReported';
export const version = '1';
export const description =
  'Answer to PayRatesRequested: per employee agreement, the effective hourly rate and its origin (BASE_RATE, CONTRACT with the contract and pay rule, or UNRESOLVED with the reason); split into parts when it would not fit one event.';

/** Pay rules are among the newer records whose ids may be strings. */
const payRuleId = z.union([z.int(), z.string().min(1)]);

/** The agreement as the install holds it; `null` where the service leaves a field out. */
const agreementFields = {
  agreementId: positiveId,
  employeeId: positiveId,
  active: z.boolean().nullable(),
  /** As the service gives them (`endDate` null while the agreement is open). */
  startDate: z.string().nullable(),
  endDate: z.string().nullable(),
};

/** Why no rate could be given, where the data the pay-rate rule walks through ends. */
export const unresolvedReasonCode = z.enum([
  /** No Contract on the agreement (and no BaseRate that applies). */
  'NO_CONTRACT',
  'CONTRACT_NOT_FOUND',
  /** The contract names no base pay rule in the fields the deployment looks at. */
  'NO_BASE_PAY_RULE',
  'PAY_RULE_NOT_FOUND',
  /** The base pay rule carries no numeric HourlyRate (a salaried or multiplier rule, say). */
  'NO_HOURLY_RATE',
  /** The service refused the contract or pay rule lookup (a 4xx, e.g. the resource is unknown there). */
  'LOOKUP_REFUSED',
  /** The service answered the lookup with something the connector cannot read. */
  'LOOKUP_UNREADABLE',
]);
export type UnresolvedReasonCode = z.infer<typeof unresolvedReasonCode>;

export const payRateEntry = z.discriminatedUnion('origin', [
  /** US installs: the agreement's own BaseRate, which overrides its contract. */
  z.object({ ...agreementFields, origin: z.literal('BASE_RATE'), hourlyRate: z.number() }),
  /** Contract → employment contract → its base pay rule → that rule's HourlyRate. */
  z.object({
    ...agreementFields,
    origin: z.literal('CONTRACT'),
    hourlyRate: z.number(),
    contractId: positiveId,
    payRuleId,
  }),
  /** The rule could not reach a rate; the ids it got to are given. */
  z.object({
    ...agreementFields,
    origin: z.literal('UNRESOLVED'),
    hourlyRate: z.null(),
    reasonCode: unresolvedReasonCode,
    reason: z.string().min(1).max(512),
    contractId: positiveId.optional(),
    payRuleId: payRuleId.optional(),
  }),
]);
export type PayRateEntry = z.output<typeof payRateEntry>;

export const schema = z
  .object({
    ...outboundBase,
    /** The install's region, from the business record. */
    region,
    /**
     * Whether an agreement's BaseRate was taken as its rate: the spec's rule applies to US installs
     * only, so elsewhere every rate comes through the contract, whatever BaseRate holds.
     */
    baseRateApplies: z.boolean(),
    /** In the order requested (by employee), each employee's agreements as the service lists them. */
    rates: z.array(payRateEntry),
    /** Requested employees of whom the install holds no agreement (empty when none were named). */
    employeesWithoutAgreements: z.array(positiveId),
    ...partFields,
  })
  .superRefine(checkPartNumber);

export type PayRatesReportedDetail = z.output<typeof schema>;
