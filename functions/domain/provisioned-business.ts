import { type Edition, edition, type Region, region } from '#functions/contracts/fields.ts';
import { AwaitingBusinessError, PermanentError, RetryableError } from '#functions/domain/errors.ts';
import { getBusiness } from '#functions/store/business.ts';
import type { Store } from '#functions/store/store.ts';

export interface ProvisionedBusiness {
  accountId: string;
  hostname: string;
  edition: Edition;
  trialEndDate: string;
  region: Region;
}

/** Longest part of the failed AccountCreated's own message quoted in the waiting event's SyncFailed. */
const QUOTED_FAILURE_CHARS = 600;

/**
 * The account's business, for flows that act on an existing one. When it is not there, what the
 * account's AccountCreated became decides (store/business.ts, BusinessStatus):
 * - received and not finally failed (RECEIVED, PENDING: waiting for the token, retrying,
 *   throttled; UNCONFIRMED: awaiting `npm run resolve-signup`) → AwaitingBusinessError: the event
 *   waits on its queue uncounted, up to the queue's retention, and applies once the business is
 *   recorded;
 * - FAILED (the AccountCreated ended in a SyncFailed, or gave up) → PermanentError
 *   BUSINESS_NOT_PROVISIONED naming that AccountCreated's event id and code: the event ends at once;
 * - no record (no AccountCreated was ever received) → RetryableError BUSINESS_NOT_PROVISIONED:
 *   counted attempts, then SyncFailed RETRIES_EXHAUSTED and the DLQ, from where it can be redriven;
 * - GONE (the service deleted it) → PermanentError BUSINESS_GONE.
 */
export async function provisionedBusinessOf(store: Store, accountId: string): Promise<ProvisionedBusiness> {
  const business = await getBusiness(store, accountId);
  if (business === undefined) {
    throw new RetryableError(
      'BUSINESS_NOT_PROVISIONED',
      `account ${accountId} has no business: no AccountCreated received for it`,
    );
  }
  switch (business.status) {
    case 'GONE':
      // The drift watch found the hostname unlinked (BusinessGone): no call goes to a dead install.
      throw new PermanentError(
        'BUSINESS_GONE',
        `account ${accountId}'s business ${business.hostname ?? ''} is gone at the service (BusinessGone since ${business.goneAt ?? 'unknown'}); nothing is sent to it`,
      );
    case 'FAILED': {
      const failure = business.failure;
      const quoted =
        failure === undefined
          ? ''
          : `: ${failure.message.length > QUOTED_FAILURE_CHARS ? `${failure.message.slice(0, QUOTED_FAILURE_CHARS)}…` : failure.message}`;
      throw new PermanentError(
        'BUSINESS_NOT_PROVISIONED',
        `account ${accountId} has no business: its AccountCreated ${failure?.eventId ?? business.eventId} ended in SyncFailed ${failure?.code ?? 'unknown'}${quoted}. Publish this event again once a new AccountCreated for the account has provisioned it.`,
      );
    }
    case 'RECEIVED':
    case 'PENDING':
    case 'UNCONFIRMED':
      throw new AwaitingBusinessError(
        `account ${accountId}'s business is on its way (${business.status}, AccountCreated ${business.eventId}); the event waits for it`,
      );
    case 'ACTIVE':
      break;
  }
  if (business.hostname === undefined) {
    // recordProvisioned writes both at once: only a hand-edited record lacks it. Counted, as before.
    throw new RetryableError(
      'BUSINESS_NOT_PROVISIONED',
      `account ${accountId}'s business is ACTIVE without a hostname`,
    );
  }
  return {
    accountId,
    hostname: business.hostname,
    edition: edition.parse(business.edition),
    trialEndDate: business.trialEndDate ?? '',
    region: region.parse(business.region),
  };
}
