import { type Edition, edition, type Region, region } from '#functions/contracts/fields.ts';
import { PermanentError, RetryableError } from '#functions/domain/errors.ts';
import { getBusiness } from '#functions/store/business.ts';
import type { Store } from '#functions/store/store.ts';

export interface ProvisionedBusiness {
  accountId: string;
  hostname: string;
  edition: Edition;
  trialEndDate: string;
  region: Region;
}

/**
 * The account's business, for flows that act on an existing one. Not there yet (no record, or a
 * signup still PENDING or UNCONFIRMED) is retryable: events of one account are published in
 * order but AccountCreated may still be retrying, so the event goes back to the queue and, if the
 * business never appears, to the DLQ after maxReceiveCount, from where it can be redriven. A GONE
 * business (the service deleted it) is permanent: SyncFailed BUSINESS_GONE.
 */
export async function provisionedBusinessOf(store: Store, accountId: string): Promise<ProvisionedBusiness> {
  const business = await getBusiness(store, accountId);
  if (business?.status === 'GONE') {
    // The drift watch found the hostname unlinked (BusinessGone): no call goes to a dead install.
    throw new PermanentError(
      'BUSINESS_GONE',
      `account ${accountId}'s business ${business.hostname ?? ''} is gone at the service (BusinessGone since ${business.goneAt ?? 'unknown'}); nothing is sent to it`,
    );
  }
  if (business?.status !== 'ACTIVE' || business.hostname === undefined) {
    throw new RetryableError(
      'BUSINESS_NOT_PROVISIONED',
      `account ${accountId} has no provisioned business yet (${business?.status ?? 'no record'})`,
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
