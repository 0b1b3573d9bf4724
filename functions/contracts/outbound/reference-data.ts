import * as z from 'zod';
import { checkPartNumber, partFields } from '../answer-parts.ts';
import { isoTimestamp, outboundBase, positiveId } from '../fields.ts';
import { referenceKind } from '../inbound/reference-data-requested.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'ReferenceData';
export const version = '1';
export const description =
  "Answer to ReferenceDataRequested: the install's countries, states, leave rules, award library (each award's library, NEW or OLD) and an employee's agreed hours, as asked; split into parts when it would not fit one event.";

/** A country of the install; its `id` is what install calls take for a country. */
export const countryEntry = z.object({
  id: z.int(),
  /** 2 letters, as the install holds it (e.g. `US`). */
  code: z.string(),
  codeA3: z.string().optional(),
  name: z.string(),
  region: z.string().optional(),
  active: z.boolean().optional(),
  sortOrder: z.int().optional(),
});
export type CountryEntry = z.output<typeof countryEntry>;

/** A state; `countryId` tells apart states of several countries that share a code. */
export const stateEntry = z.object({
  id: z.int(),
  countryId: z.int(),
  /** Its length differs by country (2 letters in the US, 3 in Australia). */
  code: z.string(),
  name: z.string(),
  active: z.boolean().optional(),
  sortOrder: z.int().optional(),
});
export type StateEntry = z.output<typeof stateEntry>;

/**
 * A leave rule. The service does not describe these records, so each is passed through: its id,
 * a `name` when one of its name-like fields holds one, and its other plain fields as given.
 */
export const leaveRuleEntry = z.object({
  id: z.union([z.int(), z.string().min(1)]),
  name: z.string().optional(),
  fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});
export type LeaveRuleEntry = z.output<typeof leaveRuleEntry>;

/** Which pay rate library an award belongs to, read from its code's format. */
export const awardLibrary = z.enum(['NEW', 'OLD']);

export const awardEntry = z.object({
  awardCode: z.string(),
  /** NEW: a mixed-case alphanumeric code; OLD: any other format. */
  library: awardLibrary,
  name: z.string().optional(),
  /** The award (pay rate set) the entry belongs to. */
  award: z.string().optional(),
  /** As the library gives it (lower case, e.g. `us`). */
  countryCode: z.string().optional(),
});
export type AwardEntry = z.output<typeof awardEntry>;

export const schema = z
  .object({
    ...outboundBase,
    /** What was asked for, in the order asked. */
    kinds: z.array(referenceKind).min(1),
    /** The country STATES was restricted to, as asked. */
    countryCode: z.string().optional(),
    /** Each present when its kind was asked for; split over parts when long (concatenate them). */
    countries: z.array(countryEntry).optional(),
    states: z.array(stateEntry).optional(),
    leaveRules: z.array(leaveRuleEntry).optional(),
    awards: z.array(awardEntry).optional(),
    /** AGREED_HOURS, in part 1: the profile as the service answers it, null when it has none. */
    agreedHours: z
      .object({ employeeId: positiveId, agreedHour: z.record(z.string(), z.unknown()).nullable() })
      .optional(),
    /**
     * When the service was read for the cached lists (countries, states): up to the deployment's
     * REFERENCE_CACHE_MAX_AGE_SECONDS ago.
     */
    asOf: z.object({ countries: isoTimestamp.optional(), states: isoTimestamp.optional() }).optional(),
    ...partFields,
  })
  .superRefine(checkPartNumber);

export type ReferenceDataDetail = z.output<typeof schema>;
