import type { SubscriptionStatusRequestedDetail } from '#functions/commons/contracts/inbound/subscription-status-requested.ts';
import type { Dependencies } from '#functions/commons/dependencies.ts';
import { ServiceRejectedError } from '#functions/commons/errors.ts';
import { provisionedBusinessOf } from '#functions/commons/provisioned-business.ts';
import type { OutboundEvent } from '#functions/commons/publisher.ts';
import type { UseCaseInput } from '#functions/commons/queue-handler.ts';
import { serviceRejection } from '#functions/commons/service-rejection.ts';
import { recordSyncSuccess, updateEdition } from '#functions/commons/store/business.ts';

/**
 * reportSubscriptionStatus — SubscriptionStatusRequested → subscription-status → SubscriptionStatus.
 *
 * Input: the SubscriptionStatusRequested detail (accountId).
 * Output: one `SubscriptionStatus` {hostname, edition, trialEndDate, conversionDate, status} as the
 * service reports it.
 *
 * Steps:
 * 1. Find the account's business; not provisioned yet → RetryableError (retry, then DLQ).
 * 2. Ask the service (a read: the client retries transient failures itself); a refusal such as
 *    HOSTNAME_NOT_LINKED becomes SyncFailed with the service's code.
 * 3. Refresh the mapping (edition, trial end; a business that left the trial leaves the trial
 *    index) and the last sync time, then answer.
 */
export async function reportSubscriptionStatus(
  { detail }: UseCaseInput<SubscriptionStatusRequestedDetail>,
  { store, service, clock }: Dependencies,
): Promise<OutboundEvent[]> {
  const business = await provisionedBusinessOf(store, detail.accountId);
  let status: Awaited<ReturnType<typeof service.provisioning.subscriptionStatus>>;
  try {
    status = await service.provisioning.subscriptionStatus(business.hostname, business.region);
  } catch (error) {
    if (error instanceof ServiceRejectedError) throw serviceRejection('subscription-status', error);
    throw error;
  }
  // Older answers cannot overwrite newer ones: updateEdition only moves forward in time.
  const syncedAt = clock.now();
  const trialEndDate = status.trialEndDate ?? business.trialEndDate;
  await updateEdition(store, detail.accountId, { edition: status.edition, trialEndDate, syncedAt });
  await recordSyncSuccess(store, detail.accountId, syncedAt);
  return [
    {
      detailType: 'SubscriptionStatus',
      detail: {
        hostname: business.hostname,
        edition: status.edition,
        trialEndDate,
        conversionDate: status.conversionDate ?? '',
        status: status.status,
      },
    },
  ];
}
