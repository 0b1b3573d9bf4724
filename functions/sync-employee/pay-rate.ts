import type { PayRate } from '#functions/commons/contracts/inbound/employee-changed.ts';
import { PermanentError } from '#functions/commons/errors.ts';
import type { UseCaseEvent } from '#functions/commons/queue-handler.ts';
import type { InstallClient } from '#functions/commons/service/install.ts';
import { type AwardLibraryEntry, awardLibraryEntrySchema } from '#functions/commons/service/schemas.ts';
import { getCachedAward, putCachedAward } from '#functions/commons/store/awards.ts';
import {
  claimPayRateApplication,
  recordPayRateApplied,
  releasePayRateClaim,
} from '#functions/commons/store/pay-rate-applications.ts';
import type { Store } from '#functions/commons/store/store.ts';
import { certainlyNotCreated } from '#functions/provision-location/create-outcome.ts';

export interface PayRateContext {
  store: Store;
  install: InstallClient;
  event: UseCaseEvent;
  at: () => Date;
}

/**
 * Sets the employee's pay rate from the award library and returns the new agreement id.
 *
 * The library entry (for its BasePayRule) comes from the per-install cache (store/awards.ts), or
 * from listAwardsLibrary (the code must be listed, else AWARD_NOT_FOUND) and then the entry by
 * code, which is then cached: a repeated code costs one call, setAwardFromLibrary itself.
 *
 * setAwardFromLibrary creates an agreement on every call, so it is guarded per event: an intent
 * marker before the call, the agreement id after it. A redelivery of the same event reuses the
 * recorded id; a marker without an id (crash or lost answer) → PAY_RATE_OUTCOME_UNKNOWN rather
 * than a possible second agreement.
 */
export async function applyPayRate(
  context: PayRateContext,
  employeeId: number,
  payRate: PayRate,
): Promise<number | string> {
  const { store, install, event } = context;
  const { hostname } = install;
  const claim = await claimPayRateApplication(store, hostname, {
    eventId: event.id,
    employeeId,
    awardCode: payRate.awardCode,
    at: context.at(),
  });
  if (!claim.claimed) {
    const { existing } = claim;
    if (existing.status === 'APPLIED' && existing.agreementId !== undefined) return existing.agreementId;
    throw new PermanentError(
      'PAY_RATE_OUTCOME_UNKNOWN',
      `an earlier attempt of this event (${existing.claimedAt}) may have created an agreement for employee ${employeeId} but its id was never recorded; not repeated to avoid a second agreement`,
    );
  }

  let entry: AwardLibraryEntry;
  const countryCode = payRate.countryCode.toLowerCase();
  try {
    entry = await libraryEntry(context, payRate.awardCode);
    if (entry.CountryCode !== undefined && entry.CountryCode.toLowerCase() !== countryCode) {
      throw new PermanentError(
        'AWARD_COUNTRY_MISMATCH',
        `award ${payRate.awardCode} belongs to country ${entry.CountryCode}, not ${countryCode}`,
      );
    }
  } catch (error) {
    // Nothing was sent that creates an agreement yet.
    await releasePayRateClaim(store, hostname, event.id);
    throw error;
  }

  let agreementId: number | string;
  try {
    ({ agreementId } = await install.setAwardFromLibrary(employeeId, {
      countryCode,
      awardCode: payRate.awardCode,
      overridePayRules: [{ Id: String(entry.BasePayRule), HourlyRate: payRate.hourlyRate }],
    }));
  } catch (error) {
    if (certainlyNotCreated(error)) {
      await releasePayRateClaim(store, hostname, event.id);
      throw error;
    }
    throw new PermanentError(
      'PAY_RATE_OUTCOME_UNKNOWN',
      `setAwardFromLibrary for employee ${employeeId} may have been applied but no agreement id came back (${(error as Error).message}); not repeated to avoid a second agreement`,
      { cause: error },
    );
  }
  await recordPayRateApplied(store, hostname, event.id, agreementId);
  return agreementId;
}

async function libraryEntry(context: PayRateContext, awardCode: string): Promise<AwardLibraryEntry> {
  const { store, install } = context;
  const cached = await getCachedAward(store, install.hostname, awardCode, context.at());
  if (cached !== undefined) {
    const parsed = awardLibraryEntrySchema.safeParse(cached);
    if (parsed.success) return parsed.data;
  }
  const listed = await install.listAwards();
  if (!listed.some((award) => award.AwardCode === awardCode)) {
    throw new PermanentError(
      'AWARD_NOT_FOUND',
      `award ${awardCode} is not in the install's pay rate library`,
    );
  }
  const entry = await install.getAward(awardCode);
  await putCachedAward(store, install.hostname, awardCode, entry, { now: context.at() });
  return entry;
}
