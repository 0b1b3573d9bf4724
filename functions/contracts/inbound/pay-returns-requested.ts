import * as z from 'zod';
import { accountId, occurredAt, positiveId, refuseRepeats } from '../fields.ts';
import { DEFAULT_INBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_INBOUND_SOURCE;
export const detailType = 'PayReturnsRequested';
export const version = '1';
export const description =
  'The partner asks for the pay returns of timesheets; answered with one PayReturnsReady per timesheet.';

/** Last writer wins per thing: what this contract sets, and what an older event does (events/README.md). */
export const ordering = 'A request: sets nothing, always answered; `occurredAt` is accepted and not used.';

export const schema = z
  .strictObject({
    accountId,
    occurredAt: occurredAt.optional(),
    timesheetIds: z.array(positiveId).min(1).max(100),
  })
  .superRefine((detail, ctx) => {
    refuseRepeats(
      ctx,
      detail.timesheetIds,
      (index) => ['timesheetIds', index],
      'timesheet id listed more than once',
    );
  });

export type PayReturnsRequestedDetail = z.output<typeof schema>;
export type PayReturnsRequestedDetailInput = z.input<typeof schema>;
