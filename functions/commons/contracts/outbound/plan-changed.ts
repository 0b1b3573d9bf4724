import { z } from 'zod';
import { edition, outboundBase } from '../fields.ts';

export const detailType = 'PlanChanged';
export const version = '1';
export const description = 'change-plan succeeded: the business moved from previousEdition to edition.';

export const schema = z.object({
  ...outboundBase,
  edition,
  previousEdition: edition,
});

export type PlanChangedDetail = z.output<typeof schema>;
