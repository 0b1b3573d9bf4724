import * as z from 'zod';
import { edition, isoTimestamp, outboundBase } from '../fields.ts';
import { DEFAULT_OUTBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_OUTBOUND_SOURCE;
export const detailType = 'BusinessGone';
export const version = '1';
export const description =
  'drift watch: the hostname is no longer linked to the partner (subscription-status refuses it: the service deleted the business, as it may for free ones). The connector stops calling it; later events of the account end in SyncFailed BUSINESS_GONE.';

export const schema = z.object({
  ...outboundBase,
  /** The edition the connector last recorded for the business. */
  lastKnownEdition: edition,
  /** When the drift watch found the hostname unlinked (the run's time). */
  detectedAt: isoTimestamp,
  /**
   * The service's refusal code (default HOSTNAME_NOT_LINKED; the deployment's
   * serviceAssumptions.hostnameNotLinkedCodes, or any code when its status or message named the
   * refusal), or `HTTP <status>` when the refusal carried no code.
   */
  reason: z.string().min(1).max(128),
});

export type BusinessGoneDetail = z.output<typeof schema>;
