import { z } from 'zod';
import { edition, isoTimestamp, outboundBase } from '../fields.ts';

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
