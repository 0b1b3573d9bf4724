import type { SubscriptionStatusRequestedDetail } from '#functions/contracts/inbound/subscription-status-requested.ts';
import { ServiceRejectedError } from '#functions/domain/errors.ts';
import { provisionedBusinessOf } from '#functions/domain/provisioned-business.ts';
import { serviceRejection } from '#functions/domain/service-rejection.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import type { UseCaseInput } from '#functions/runtime/use-case.ts';
import { recordSyncSuccess, updateEdition } from '#functions/store/business.ts';

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
 *    index) as observed when the call started, and the last sync time, then answer.
 */
export async function reportSubscriptionStatus(
  { detail }: UseCaseInput<SubscriptionStatusRequestedDetail>,
  { store, service, clock }: Dependencies,
): Promise<OutboundEvent[]> {
  const business = await provisionedBusinessOf(store, detail.accountId);
  // The answer describes the service as of some moment during the call: taking the time before
  // it, a plan change that finished while this call was under way (recorded with its own, later
  // time) is not overwritten by this possibly older answer (updateEdition only moves forward).
  const observedAt = clock.now();
  let status: Awaited<ReturnType<typeof service.provisioning.subscriptionStatus>>;
  try {
    status = await service.provisioning.subscriptionStatus(business.hostname, business.region);
  } catch (error) {
    if (error instanceof ServiceRejectedError) throw serviceRejection('subscription-status', error);
    throw error;
  }
  const trialEndDate = status.trialEndDate ?? business.trialEndDate;
  await updateEdition(store, detail.accountId, {
    edition: status.edition,
    trialEndDate,
    syncedAt: observedAt,
  });
  await recordSyncSuccess(store, detail.accountId, clock.now());
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
