import type { PayRate } from '#functions/commons/contracts/inbound/employee-changed.ts';
import {
  OutcomeUnknownError,
  PermanentError,
  ResponseShapeError,
  ServiceRejectedError,
} from '#functions/commons/errors.ts';
import {
  type CreateOutcome,
  createdAtOrAfter,
  earliestCreation,
  outcomeOf,
} from '#functions/commons/outcome-reconciliation.ts';
import type { UseCaseEvent } from '#functions/commons/queue-handler.ts';
import type { InstallClient } from '#functions/commons/service/install.ts';
import {
  type AwardLibraryEntry,
  awardLibraryEntrySchema,
  type EmployeeAgreement,
} from '#functions/commons/service/schemas.ts';
import { getCachedAward, putCachedAward } from '#functions/commons/store/awards.ts';
import {
  claimPayRateApplication,
  type PayRateApplication,
  reclaimPayRateApplication,
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
 * code, which is then cached: a repeated code costs two calls, the employee's agreements (read
 * before the create, see below) and setAwardFromLibrary itself.
 *
 * setAwardFromLibrary creates an agreement on every call, so it is guarded per event: an intent
 * marker, then the employee's recent and active agreements recorded on it (the call is only ever
 * sent once they are), then the call, then the agreement id. A redelivery of the same event
 * reuses the recorded id without calling. A marker without an id (lost answer or crash) is
 * reconciled against the employee's agreements (EmployeeAgreement QUERY, which the spec shows):
 * exactly one agreement not known before the call and not older than the marker (less the clock
 * skew) → that is the one the call created, recorded and reported; none → the call created
 * nothing and is sent again; several, or the agreements cannot be read → PAY_RATE_OUTCOME_UNKNOWN
 * rather than a possible second agreement.
 */
export async function applyPayRate(
  context: PayRateContext,
  employeeId: number,
  payRate: PayRate,
): Promise<number | string> {
  const { store, install, event } = context;
  const { hostname } = install;
  const claimedAt = context.at();
  const claim = await claimPayRateApplication(store, hostname, {
    eventId: event.id,
    employeeId,
    awardCode: payRate.awardCode,
    at: claimedAt,
  });
  let held: Pick<PayRateApplication, 'eventId' | 'claimedAt' | 'knownAgreementIds'>;
  if (claim.claimed) {
    held = { eventId: event.id, claimedAt: claimedAt.toISOString() };
  } else {
    const { existing } = claim;
    if (existing.status === 'APPLIED' && existing.agreementId !== undefined) return existing.agreementId;
    held = existing;
  }

  let agreements: AgreementsRead;
  try {
    agreements = await employeeAgreements(install, employeeId);
  } catch (error) {
    // Nothing that creates an agreement was sent by this attempt; a fresh claim of ours is released.
    if (claim.claimed) await releasePayRateClaim(store, hostname, event.id);
    throw error;
  }
  // Absent: the call was never sent, since the agreements are recorded before it.
  if (held.knownAgreementIds !== undefined) {
    const outcome = earlierOutcome(held, agreements);
    if (outcome.kind === 'created') {
      await recordPayRateApplied(store, hostname, event.id, outcome.id);
      return outcome.id;
    }
    if (outcome.kind === 'unknown') {
      throw new PermanentError(
        'PAY_RATE_OUTCOME_UNKNOWN',
        `an earlier attempt of this event (${held.claimedAt}) may have created an agreement for employee ${employeeId} and it cannot be told which (${outcome.reason}); not repeated to avoid a second agreement`,
      );
    }
  }
  const at = context.at();
  const knownAgreementIds = agreements.readable ? knownAgreements(agreements.records, at) : null;
  if (!(await reclaimPayRateApplication(store, hostname, held, { at, knownAgreementIds }))) {
    throw new OutcomeUnknownError(
      `the pay rate marker of employee ${employeeId} changed while it was prepared; retried`,
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
    if (!(error instanceof OutcomeUnknownError)) {
      throw new PermanentError(
        'PAY_RATE_OUTCOME_UNKNOWN',
        `setAwardFromLibrary for employee ${employeeId} may have been applied but no agreement id came back (${(error as Error).message}); not repeated to avoid a second agreement`,
        { cause: error },
      );
    }
    // A new agreement found now is conclusive; finding none is not yet (a timed-out request may
    // still be applied), so that waits for the redelivery with the marker kept.
    const found = await agreementCreatedNow(install, employeeId, {
      claimedAt: at.toISOString(),
      knownAgreementIds,
    });
    if (found === undefined) throw error;
    agreementId = found;
  }
  await recordPayRateApplied(store, hostname, event.id, agreementId);
  return agreementId;
}

/** The agreement a call whose answer was just lost created, when exactly one new one shows already. */
async function agreementCreatedNow(
  install: InstallClient,
  employeeId: number,
  marker: Pick<PayRateApplication, 'claimedAt' | 'knownAgreementIds'>,
): Promise<number | string | undefined> {
  try {
    const outcome = earlierOutcome(marker, await employeeAgreements(install, employeeId));
    return outcome.kind === 'created' ? outcome.id : undefined;
  } catch {
    return undefined;
  }
}

type AgreementsRead =
  | { readable: true; records: EmployeeAgreement[] }
  | { readable: false; records: []; reason: string };

/**
 * The employee's agreements. A refusal (the query not allowed for this partner, say) does not
 * stop the pay rate from being set; it only leaves a lost answer without a way to reconcile it.
 */
async function employeeAgreements(install: InstallClient, employeeId: number): Promise<AgreementsRead> {
  try {
    return { readable: true, records: await install.listEmployeeAgreements(employeeId) };
  } catch (error) {
    if (error instanceof ServiceRejectedError || error instanceof ResponseShapeError) {
      return { readable: false, records: [], reason: `the agreements could not be read: ${error.message}` };
    }
    throw error;
  }
}

/** The agreements a new one must be told apart from: the active ones and any recent enough to pass as new. */
function knownAgreements(agreements: readonly EmployeeAgreement[], at: Date): Array<number | string> {
  const since = earliestCreation(at);
  return agreements
    .filter((agreement) => agreement.Active === true || createdAtOrAfter(agreement, since))
    .map((agreement) => agreement.Id);
}

function earlierOutcome(
  marker: Pick<PayRateApplication, 'claimedAt' | 'knownAgreementIds'>,
  agreements: AgreementsRead,
): CreateOutcome<number | string> {
  if (!agreements.readable) return { kind: 'unknown', reason: agreements.reason };
  if (marker.knownAgreementIds === null) {
    return { kind: 'unknown', reason: 'the agreements could not be read before the call' };
  }
  const known = new Set((marker.knownAgreementIds ?? []).map(String));
  const since = earliestCreation(marker.claimedAt);
  const candidates = agreements.records
    .filter((agreement) => !known.has(String(agreement.Id)) && createdAtOrAfter(agreement, since))
    .map((agreement) => agreement.Id);
  return outcomeOf(candidates, 'new agreements');
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
