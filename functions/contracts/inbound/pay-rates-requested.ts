import * as z from 'zod';
import { accountId, occurredAt, positiveId, refuseRepeats } from '../fields.ts';
import { DEFAULT_INBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_INBOUND_SOURCE;
export const detailType = 'PayRatesRequested';
export const version = '1';
export const description =
  "The partner asks for the install's pay rates: per employee agreement, the effective hourly rate and where it comes from; answered with PayRatesReported. Without employeeIds, every agreement of the install.";

/** Last writer wins per thing: what this contract sets, and what an older event does (events/README.md). */
export const ordering = 'A request: sets nothing, always answered; `occurredAt` is accepted and not used.';

export const schema = z
  .strictObject({
    accountId,
    occurredAt: occurredAt.optional(),
    /**
     * Install employee ids whose agreements to report (each one QUERY of the install); left out,
     * every agreement of the install. Bounded like PayReturnsRequested's timesheets, so one
     * record cannot make an unbounded number of calls.
     */
    employeeIds: z.array(positiveId).min(1).max(100).optional(),
  })
  .superRefine((detail, ctx) => {
    refuseRepeats(
      ctx,
      detail.employeeIds ?? [],
      (index) => ['employeeIds', index],
      'employee id listed more than once',
    );
  });

export type PayRatesRequestedDetail = z.output<typeof schema>;
export type PayRatesRequestedDetailInput = z.input<typeof schema>;
