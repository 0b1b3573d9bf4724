import { z } from 'zod';
import { outboundBase, text } from '../fields.ts';

export const detailType = 'SyncFailed';
export const version = '1';
export const description =
  'A record that will not succeed by retrying. message never carries the token or personal data beyond ids.';

export const schema = z.object({
  ...outboundBase,
  // Unknown when the event failed before its account was mapped to an install.
  hostname: outboundBase.hostname.optional(),
  sourceEventId: text(128),
  detailType: text(128),
  code: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/),
  message: z.string().max(2048),
});

export type SyncFailedDetail = z.output<typeof schema>;
