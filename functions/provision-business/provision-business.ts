import type { AccountCreatedDetail } from '#functions/contracts/inbound/account-created.ts';
import type { InboundEvent } from '#functions/contracts/route-decoder.ts';
import {
  PermanentError,
  RegionNotAvailableError,
  ServiceRejectedError,
  SignupOutcomeLostError,
} from '#functions/domain/errors.ts';
import { serviceRejection } from '#functions/domain/service-rejection.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import type { FinalFailure } from '#functions/runtime/record-failures.ts';
import type { UseCaseInput } from '#functions/runtime/use-case.ts';
import type { BusinessRecord } from '#functions/store/business.ts';
import {
  claimSignup,
  markSignupUnconfirmed,
  noteAccountCreatedReceived,
  recordProvisioned,
  recordSignupFailed,
  releaseSignupClaim,
} from '#functions/store/signup.ts';

/**
 * provisionBusiness — AccountCreated → signup → BusinessProvisioned.
 *
 * Input: the AccountCreated detail (accountId, businessName, owner, estimatedEmployeeCount?,
 * region) and its EventBridge event id.
 * Output: one `BusinessProvisioned` {hostname, edition, trialEndDate, region}, or nothing at all
 * when a PermanentError is thrown (the runtime turns it into SyncFailed).
 *
 * Steps:
 * 1. Region check: a region without a provisioning root fails with REGION_NOT_AVAILABLE before
 *    anything is written, so the account can be provisioned once the region is configured.
 * 0. Before the use case runs (route-handler.ts onReceived, even while the token is missing): the
 *    account is noted RECEIVED, so its other events wait for the business uncounted.
 * 2. Claim the signup in the store (one PENDING marker per account, written before the call; an
 *    account RECEIVED, or FAILED by an earlier AccountCreated, is claimed like a new one):
 *    - ACTIVE business, same event → a redelivery after success: re-publish BusinessProvisioned,
 *      no call;
 *    - ACTIVE business, other event → ACCOUNT_ALREADY_PROVISIONED, no call;
 *    - UNCONFIRMED → SIGNUP_COMMITTED_UNCONFIRMED again, no call (an operator must reconcile);
 *    - PENDING (an earlier attempt crashed or timed out after the claim) → the signup may have
 *      committed, so exactly one follow-up signup is made and a duplicate rejection is read as
 *      "it did commit" (step 4).
 * 3. Signup (the client itself makes one non-blind follow-up after an ambiguous failure).
 * 4. Failures: a service rejection releases the claim (nothing was created, a corrected event may
 *    try again) and fails with the service's code; a lost answer (SignupOutcomeLostError, or a
 *    duplicate rejection of the follow-up in step 2) moves the claim to UNCONFIRMED and fails with
 *    SIGNUP_COMMITTED_UNCONFIRMED; anything retryable keeps the PENDING claim for the redelivery.
 * 5. recordProvisioned (business ACTIVE + hostname mapping + trial index), then publish.
 * 6. An event that ends in a SyncFailed (any permanent failure above, or RETRIES_EXHAUSTED) leaves
 *    the account FAILED naming it (route-handler.ts onFinalFailure), unless the account is ACTIVE,
 *    UNCONFIRMED or GONE: the account's waiting events end at once with BUSINESS_NOT_PROVISIONED.
 *    A FAILED account whose claim was taken remembers that its signup may have committed, so the
 *    next claim (a new AccountCreated, or a redrive) makes a non-blind follow-up signup.
 */
export async function provisionBusiness(
  { event, detail }: UseCaseInput<AccountCreatedDetail>,
  { config, store, service, clock, logger, interruptions }: Dependencies,
): Promise<OutboundEvent[]> {
  const { accountId, region } = detail;
  if (config.provisioningUrls[region] === undefined) throw new RegionNotAvailableError(region);

  const claim = await claimSignup(store, { accountId, eventId: event.id, region, at: clock.now() });
  // A claim over a FAILED account whose earlier claim may have reached the service: follow-up.
  let resumingEarlierAttempt = claim.claimed && claim.resumesFailedSignup === true;
  if (resumingEarlierAttempt) {
    logger.warn('signing up an account whose failed earlier signup may have committed', { accountId });
  }
  if (!claim.claimed) {
    const { existing } = claim;
    if (existing.status === 'ACTIVE') return [alreadyActive(existing, event.id)];
    if (existing.status === 'GONE') {
      throw new PermanentError(
        'BUSINESS_GONE',
        `account ${accountId}'s business ${existing.hostname ?? ''} was deleted by the service; an operator removes the record before a new signup (docs/deploy.md, runbook BusinessGone)`,
      );
    }
    if (existing.status === 'UNCONFIRMED') {
      throw new PermanentError(
        'SIGNUP_COMMITTED_UNCONFIRMED',
        `account ${accountId} has a signup whose outcome is unconfirmed; it needs reconciliation before a new signup`,
      );
    }
    resumingEarlierAttempt = true;
    logger.warn('resuming a signup whose earlier attempt may have committed', {
      claimedBy: existing.eventId,
      attempts: existing.attempts,
    });
  }
  // A PENDING claim of another event (crashed before it could be released) is taken over: FIFO
  // per account means that event is not running now, and the follow-up below is non-blind.
  const claimEventId = claim.claimed ? event.id : claim.existing.eventId;

  const userData = {
    firstName: detail.owner.firstName,
    lastName: detail.owner.lastName,
    email: detail.owner.email,
    ...(detail.owner.mobileNumber === undefined ? {} : { mobileNumber: detail.owner.mobileNumber }),
  };
  const businessData = {
    externalId: accountId,
    portfolioName: detail.businessName,
    ...(detail.estimatedEmployeeCount === undefined
      ? {}
      : // The spec's sample sends the count as a string.
        { estimatedEmployeeCount: String(detail.estimatedEmployeeCount) }),
  };

  let business: Awaited<ReturnType<typeof service.provisioning.signup>>;
  try {
    // Resuming: the client reads a duplicate refusal (the deployment's serviceAssumptions) as
    // "the earlier attempt committed", as it does for its own follow-up.
    business = await service.provisioning.signup({
      userData,
      businessData,
      region,
      earlierAttemptMayHaveCommitted: resumingEarlierAttempt,
    });
  } catch (error) {
    if (error instanceof SignupOutcomeLostError) {
      await markSignupUnconfirmed(store, accountId, {
        eventId: claimEventId,
        message: error.message,
        at: clock.now(),
      });
      throw error;
    }
    if (error instanceof ServiceRejectedError) {
      await releaseSignupClaim(store, accountId, claimEventId);
      throw serviceRejection('signup', error);
    }
    throw error;
  }

  // The business exists at the service but not yet in the table: the worst moment to die.
  interruptions?.at('provision-business.after-signup');
  const recording = await recordProvisioned(store, {
    accountId,
    hostname: business.hostname,
    edition: business.edition,
    trialEndDate: business.trialEndDate,
    region,
    eventId: claimEventId,
    at: clock.now(),
    driftEveryHours: config.driftCheckEveryHours,
  });
  if (!recording.recorded) {
    // Both cases mean the service handed out a business the table cannot take; say so loudly
    // rather than overwrite another account's mapping.
    throw new PermanentError(
      recording.reason === 'HOSTNAME_TAKEN' ? 'HOSTNAME_CONFLICT' : 'ACCOUNT_ALREADY_PROVISIONED',
      `signup returned ${business.hostname} for account ${accountId} but it could not be recorded (${recording.reason})`,
    );
  }
  return [
    {
      detailType: 'BusinessProvisioned',
      detail: {
        hostname: business.hostname,
        edition: business.edition,
        trialEndDate: business.trialEndDate,
        region,
      },
    },
  ];
}

function alreadyActive(existing: BusinessRecord, eventId: string): OutboundEvent {
  if (existing.eventId !== eventId || existing.hostname === undefined) {
    throw new PermanentError(
      'ACCOUNT_ALREADY_PROVISIONED',
      `account ${existing.accountId} already has business ${existing.hostname ?? '(unknown)'}; no second signup is made`,
    );
  }
  // Same event again (its first run recorded the business but the answer was not kept, e.g. the
  // idempotency record expired): the partner gets the same result event again, no call.
  return {
    detailType: 'BusinessProvisioned',
    detail: {
      hostname: existing.hostname,
      edition: existing.edition,
      trialEndDate: existing.trialEndDate,
      region: existing.region,
    },
  };
}

/** route-handler.ts onReceived: the account's AccountCreated reached its function. */
export async function noteAccountCreatedReceivedFor(
  { store, clock }: Dependencies,
  event: InboundEvent,
): Promise<void> {
  const detail = event.detail as AccountCreatedDetail;
  await noteAccountCreatedReceived(store, {
    accountId: detail.accountId,
    eventId: event.id,
    region: detail.region,
    at: clock.now(),
  });
}

/** route-handler.ts onFinalFailure: the AccountCreated ended in a SyncFailed; the account says so. */
export async function recordAccountCreatedFailure(
  { store, clock, logger }: Dependencies,
  event: InboundEvent,
  failure: FinalFailure,
): Promise<void> {
  const detail = event.detail as AccountCreatedDetail;
  const recorded = await recordSignupFailed(store, {
    accountId: detail.accountId,
    eventId: event.id,
    region: detail.region,
    code: failure.code,
    message: failure.message,
    at: clock.now(),
  });
  if (!recorded) {
    logger.info("the account's business is not on its way (ACTIVE, UNCONFIRMED or GONE); its status stays", {
      code: failure.code,
    });
  }
}
