import * as z from 'zod';
import { edition, isoTimestamp, outboundBase } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'TrialEnded';
export const version = '1';
export const description =
  'trial-watch: the trial end passed; edition as the service reports it (a free business may later be deleted by the service).';

export const schema = z.object({
  ...outboundBase,
  edition,
  trialEndDate: isoTimestamp,
});

export type TrialEndedDetail = z.output<typeof schema>;
