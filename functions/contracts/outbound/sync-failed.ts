import * as z from 'zod';
import { outboundBase, text } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'SyncFailed';
export const version = '1';
export const description =
  'A record that will not succeed by retrying. message never carries the token or personal data beyond ids.';

export const schema = z.object({
  ...outboundBase,
  // Absent when the inbound event had no usable accountId (MISSING_ACCOUNT_ID, INVALID_ACCOUNT_ID):
  // the partner correlates by sourceEventId.
  accountId: outboundBase.accountId.optional(),
  // Unknown when the event failed before its account was mapped to an install.
  hostname: outboundBase.hostname.optional(),
  sourceEventId: text(128),
  detailType: text(128),
  code: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/),
  message: z.string().max(2048),
});

export type SyncFailedDetail = z.output<typeof schema>;
