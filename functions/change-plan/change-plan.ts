import type { PlanChosenDetail } from '#functions/contracts/inbound/plan-chosen.ts';
import { PermanentError, ServiceRejectedError } from '#functions/domain/errors.ts';
import { EventOrder, type Thing } from '#functions/domain/event-order.ts';
import { provisionedBusinessOf } from '#functions/domain/provisioned-business.ts';
import { serviceRejection } from '#functions/domain/service-rejection.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import type { UseCaseInput } from '#functions/runtime/use-case.ts';
import type { SubscriptionStatus } from '#functions/service/records/provisioning.ts';
import {
  notePlanChangeRequested,
  recordSyncSuccess,
  TRIAL_EDITION,
  updateEdition,
} from '#functions/store/business.ts';

const PREMIUM_EDITION = 'SUBSCRIPTION_PAID_PRO_PREMIUM';
const FREE_EDITION = 'SUBSCRIPTION_FREE';

const TARGET_EDITION = { PREMIUM: PREMIUM_EDITION, FREE: FREE_EDITION } as const;

/** The one thing a PlanChosen sets: the business's plan (the newest PlanChosen is the desired plan). */
export const PLAN: Thing = { key: 'plan', field: 'plan' };

/**
 * changePlan — PlanChosen → change-plan (upgrade or cancel) → PlanChanged.
 *
 * Input: the PlanChosen detail (accountId, plan PREMIUM|FREE, billingAddress?).
 * Output: one `PlanChanged` {hostname, edition, previousEdition, billingStartsOn?, alreadyOnPlan?};
 * one `SyncSkipped` SUPERSEDED (and no call) when a newer PlanChosen was applied first; a
 * `SyncFailed` with a precise code for a refusal.
 *
 * Steps:
 * 1. Find the account's business (domain/provisioned-business.ts): its AccountCreated on its way
 *    (RECEIVED, PENDING, UNCONFIRMED) → the event waits uncounted; that AccountCreated failed →
 *    SyncFailed BUSINESS_NOT_PROVISIONED at once; no AccountCreated ever received → counted attempts.
 * 2. Last writer wins (domain/event-order.ts): the plan is one thing, replaced whole. A PlanChosen
 *    older (by occurredAt, then event id) than the one applied last → SyncSkipped, no call.
 * 3. The table says there is nothing to do — already on the target edition, or FREE on a trial
 *    (the service cannot cancel one) — but it may be stale (the service changed the business and
 *    the drift watch has not looked yet). One subscription-status call confirms it (a refusal →
 *    SyncFailed with the service's code):
 *    - the service holds the target edition → no change-plan call; the table takes the service's
 *      edition, the plan's position moves to this event, PlanChanged {alreadyOnPlan: true,
 *      previousEdition: the table's edition}.
 *    - otherwise the change starts from the service's edition (e.g. PREMIUM chosen, the table
 *      says premium, the service says free → upgrade), as below.
 * 4. Rules checked before calling, so the service is not asked what it will refuse:
 *    FREE while on trial (the service's edition when step 3 asked it) → CANNOT_CANCEL_TRIAL (the
 *    trial ends on its own as SUBSCRIPTION_FREE); PREMIUM for a US business without a billing
 *    address (no filled field) → BILLING_ADDRESS_REQUIRED.
 * 5. upgrade or cancel. On a refusal, subscription-status decides: when the service already holds
 *    the target edition (an earlier attempt committed and its answer was lost, or the plan was
 *    changed at the service), the change counts as done; otherwise SyncFailed with the service's
 *    code.
 * 6. updateEdition (a converted business leaves the trial index), the plan's position, recordSyncSuccess,
 *    publish. A refused choice (SyncFailed) moves no position: only applied events do. An
 *    upgrade during the trial says when billing starts: "when converted before the trial end,
 *    billing starts the day after the trial end" (the service's subscription rules).
 */
export async function changePlan(
  { event, detail }: UseCaseInput<PlanChosenDetail>,
  { store, service, clock, lastWriterWins }: Dependencies,
): Promise<OutboundEvent[]> {
  const business = await provisionedBusinessOf(store, detail.accountId);
  const order = await EventOrder.read(store, business.hostname, event, detail, [PLAN], { lastWriterWins });
  if (!order.applies(PLAN)) return order.syncSkipped();
  const target = TARGET_EDITION[detail.plan];

  // What the change starts from: the table's edition, or the service's when the table says there
  // is nothing to do (it may be stale: an outside change the drift watch has not seen yet).
  let current = business.edition;
  let confirmed = false;
  if (tableSaysNothingToDo(detail.plan, business.edition)) {
    const status = await confirmedStatus(service, business);
    if (status.edition === target) {
      return alreadyOnPlan({ detail, business, status, order }, { store, clock });
    }
    current = status.edition;
    confirmed = true;
  }

  if (detail.plan === 'FREE' && current === TRIAL_EDITION) {
    throw new PermanentError(
      'CANNOT_CANCEL_TRIAL',
      `business ${business.hostname} is on trial${confirmed ? ' (confirmed with subscription-status)' : ''}; the service cannot cancel a trial, it becomes ${FREE_EDITION} when the trial ends`,
    );
  }
  if (detail.plan === 'PREMIUM' && business.region === 'US' && !hasFilledField(detail.billingAddress)) {
    throw new PermanentError(
      'BILLING_ADDRESS_REQUIRED',
      `billingAddress is required to convert US business ${business.hostname} (a compliance rule of the service)`,
    );
  }

  // Before the call: the drift watch must not take the change this call makes for its own.
  await notePlanChangeRequested(store, detail.accountId, clock.now());
  let result: Awaited<ReturnType<typeof service.provisioning.upgrade>>;
  try {
    result =
      detail.plan === 'PREMIUM'
        ? await service.provisioning.upgrade(business.hostname, detail.billingAddress, business.region)
        : await service.provisioning.cancel(business.hostname, business.region);
  } catch (error) {
    if (!(error instanceof ServiceRejectedError)) throw error;
    // A refusal may only mean the change is already done: an earlier attempt committed but its
    // answer was lost (the retry then gets "already premium" / "cannot cancel"), or the plan was
    // changed at the service directly. The service's state decides, not the refusal's code
    // (error codes are not shown in the spec).
    const refusal = serviceRejection(
      `change-plan ${detail.plan === 'PREMIUM' ? 'upgrade' : 'cancel'}`,
      error,
    );
    const status = await service.provisioning
      .subscriptionStatus(business.hostname, business.region)
      .catch((statusError: unknown) => {
        throw statusError instanceof ServiceRejectedError ? refusal : statusError;
      });
    if (status.edition !== target) throw refusal;
    result = status;
  }

  // The cancel answer is not shown in the spec: the chosen edition is what the call achieved.
  const edition = result.edition ?? target;
  const syncedAt = clock.now();
  await updateEdition(store, detail.accountId, {
    edition,
    ...(result.trialEndDate ? { trialEndDate: result.trialEndDate } : {}),
    syncedAt,
    settlesPlanChange: true,
  });
  await order.applied([PLAN], syncedAt);
  await recordSyncSuccess(store, detail.accountId, syncedAt);
  const billingStartsOn =
    current === TRIAL_EDITION && edition === PREMIUM_EDITION
      ? dayAfterTrialEnd(result.trialEndDate ?? business.trialEndDate, conversionTimeOf(result) ?? syncedAt)
      : undefined;
  return [
    {
      detailType: 'PlanChanged',
      detail: {
        hostname: business.hostname,
        edition,
        previousEdition: current,
        ...(billingStartsOn ? { billingStartsOn } : {}),
      },
    },
  ];
}

type Business = Awaited<ReturnType<typeof provisionedBusinessOf>>;

/**
 * The table's edition says the choice needs no call: already on it, or FREE on a trial (the
 * service cannot cancel a trial, which becomes free on its own when it ends).
 */
function tableSaysNothingToDo(plan: PlanChosenDetail['plan'], edition: string): boolean {
  return edition === TARGET_EDITION[plan] || (plan === 'FREE' && edition === TRIAL_EDITION);
}

/** subscription-status, its refusal a SyncFailed with the service's code (e.g. HOSTNAME_NOT_LINKED). */
async function confirmedStatus(
  service: Dependencies['service'],
  business: Business,
): Promise<SubscriptionStatus> {
  try {
    return await service.provisioning.subscriptionStatus(business.hostname, business.region);
  } catch (error) {
    if (error instanceof ServiceRejectedError) {
      throw serviceRejection('subscription-status (confirming the stored edition)', error);
    }
    throw error;
  }
}

/**
 * The service already holds the chosen edition: no change-plan call. The table takes the
 * service's edition and trial end (it may have been stale), the plan's position moves to this
 * event (an older choice arriving later changes nothing), and PlanChanged says so with
 * `alreadyOnPlan` and the edition the table held as `previousEdition`.
 */
async function alreadyOnPlan(
  {
    detail,
    business,
    status,
    order,
  }: {
    detail: PlanChosenDetail;
    business: Business;
    status: SubscriptionStatus;
    order: EventOrder;
  },
  { store, clock }: Pick<Dependencies, 'store' | 'clock'>,
): Promise<OutboundEvent[]> {
  const syncedAt = clock.now();
  await updateEdition(store, detail.accountId, {
    edition: status.edition,
    ...(status.trialEndDate ? { trialEndDate: status.trialEndDate } : {}),
    syncedAt,
  });
  await order.applied([PLAN], syncedAt);
  await recordSyncSuccess(store, detail.accountId, syncedAt);
  return [
    {
      detailType: 'PlanChanged',
      detail: {
        hostname: business.hostname,
        edition: status.edition,
        previousEdition: business.edition,
        alreadyOnPlan: true,
      },
    },
  ];
}

function hasFilledField(address: PlanChosenDetail['billingAddress']): boolean {
  return address !== undefined && Object.values(address).some((value) => value !== undefined && value !== '');
}

/**
 * When the service says the business converted (`conversionDate`, e.g. in the subscription-status
 * answer that confirms an earlier attempt whose answer was lost); undefined when it does not say.
 */
function conversionTimeOf(result: object): Date | undefined {
  const value = 'conversionDate' in result ? result.conversionDate : undefined;
  const time = typeof value === 'string' && value !== '' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(time) ? new Date(time) : undefined;
}

/** The UTC day after the trial end, when the upgrade came before it; undefined otherwise. */
export function dayAfterTrialEnd(trialEndDate: string | undefined, convertedAt: Date): string | undefined {
  const end = trialEndDate ? Date.parse(trialEndDate) : Number.NaN;
  if (!Number.isFinite(end) || convertedAt.getTime() >= end) return undefined;
  const next = new Date(end);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}
