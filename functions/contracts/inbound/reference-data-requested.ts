import * as z from 'zod';
import { accountId, occurredAt, positiveId, refuseRepeats } from '../fields.ts';
import { DEFAULT_INBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_INBOUND_SOURCE;
export const detailType = 'ReferenceDataRequested';
export const version = '1';
export const description =
  "The partner asks for the install's reference data: countries, states (optionally of one country), leave rules, the award library, an employee's agreed hours; answered with ReferenceData.";

/** Last writer wins per thing: what this contract sets, and what an older event does (events/README.md). */
export const ordering = 'A request: sets nothing, always answered; `occurredAt` is accepted and not used.';

/** What can be asked for; each names one list (or the agreed-hours profile) of ReferenceData. */
export const referenceKinds = ['COUNTRIES', 'STATES', 'LEAVE_RULES', 'AWARDS', 'AGREED_HOURS'] as const;
export const referenceKind = z.enum(referenceKinds);
export type ReferenceKind = z.infer<typeof referenceKind>;

export const schema = z
  .strictObject({
    accountId,
    occurredAt: occurredAt.optional(),
    kinds: z.array(referenceKind).min(1).max(referenceKinds.length),
    /** ISO 3166-1 alpha-2 code (either case), as the install's country records carry it in `Code`. */
    countryCode: z
      .string()
      .regex(/^[A-Za-z]{2}$/, { error: 'expected a 2-letter country code such as "US"' })
      .optional(),
    /** The install employee whose agreed hours to read (AGREED_HOURS). */
    employeeId: positiveId.optional(),
  })
  .superRefine((detail, ctx) => {
    refuseRepeats(ctx, detail.kinds, (index) => ['kinds', index], 'kind listed more than once');
    if (detail.kinds.includes('AGREED_HOURS') && detail.employeeId === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['employeeId'],
        message: 'is required when kinds includes AGREED_HOURS (the employee whose agreed hours to read)',
      });
    }
    // A field that changes nothing would hide a misunderstanding (countryCode does not filter
    // awards, employeeId names no employee for other kinds): refused, with what it applies to.
    if (detail.countryCode !== undefined && !detail.kinds.includes('STATES')) {
      ctx.addIssue({
        code: 'custom',
        path: ['countryCode'],
        message: 'applies to STATES only: add STATES to kinds or leave countryCode out',
      });
    }
    if (detail.employeeId !== undefined && !detail.kinds.includes('AGREED_HOURS')) {
      ctx.addIssue({
        code: 'custom',
        path: ['employeeId'],
        message: 'applies to AGREED_HOURS only: add AGREED_HOURS to kinds or leave employeeId out',
      });
    }
  });

export type ReferenceDataRequestedDetail = z.output<typeof schema>;
export type ReferenceDataRequestedDetailInput = z.input<typeof schema>;
