import type { PayRuleOverrides } from '#functions/contracts/pay-rate-fields.ts';
import {
  type CreateOutcome,
  certainlyNotCreated,
  createdAtOrAfter,
  earliestCreation,
  outcomeOf,
} from '#functions/domain/create-outcome.ts';
import {
  OutcomeUnknownError,
  PermanentError,
  ResponseShapeError,
  ServiceRejectedError,
} from '#functions/domain/errors.ts';
import type { UseCaseEvent } from '#functions/runtime/use-case.ts';
import type { InstallClient } from '#functions/service/install.ts';
import {
  type AwardLibraryEntry,
  awardLibraryEntrySchema,
  type EmployeeAgreement,
} from '#functions/service/records/pay-conditions.ts';
import { getCachedAward, putCachedAward } from '#functions/store/awards.ts';
import {
  claimPayRateApplication,
  type PayRateApplication,
  reclaimPayRateApplication,
  recordPayRateApplied,
  releasePayRateClaim,
} from '#functions/store/pay-rate-applications.ts';
import type { Store } from '#functions/store/store.ts';

/** A pay rate from the award library: the award, its country, and the pay rules' rates it overrides. */
export interface LibraryPayRate {
  awardCode: string;
  countryCode: string;
  /** Without `payRuleId`: the award's base pay rule. */
  overrides: PayRuleOverrides;
}

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
 * marker, marked "may be sent" before the call, then the call, then the agreement id. A
 * redelivery of the same event reuses the recorded id without calling. A marker whose call may
 * have been sent but has no id (lost answer or crash) is reconciled against the employee's
 * agreements (EmployeeAgreement QUERY, which the spec shows): no agreement newer than the marker
 * (less the clock skew) → the call created nothing and is sent again; exactly one, ACTIVE, whose
 * BaseRate is the requested rate → the one the call created: recorded and reported; anything
 * else (several, one at another rate, agreements that cannot be read or carry no BaseRate as on
 * non-US installs) → PAY_RATE_OUTCOME_UNKNOWN rather than a possible second agreement.
 * Reconciling costs a call only on that recovery path.
 */
export async function applyPayRate(
  context: PayRateContext,
  employeeId: number,
  payRate: LibraryPayRate,
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
  let held: Pick<PayRateApplication, 'eventId' | 'claimedAt' | 'callMayHaveBeenSent'>;
  if (claim.claimed) {
    held = { eventId: event.id, claimedAt: claimedAt.toISOString(), callMayHaveBeenSent: false };
  } else {
    const { existing } = claim;
    if (existing.status === 'APPLIED' && existing.agreementId !== undefined) return existing.agreementId;
    held = existing;
  }

  // The marker is marked before the call is sent, so an earlier attempt may have sent it.
  if (held.callMayHaveBeenSent) {
    const outcome = earlierOutcome(held, await employeeAgreements(install, employeeId), payRate);
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

  let overridePayRules: Array<{ Id: string; HourlyRate: number }>;
  const countryCode = payRate.countryCode.toLowerCase();
  try {
    const entry = await libraryEntry(context, payRate.awardCode);
    if (entry.CountryCode !== undefined && entry.CountryCode.toLowerCase() !== countryCode) {
      throw new PermanentError(
        'AWARD_COUNTRY_MISMATCH',
        `award ${payRate.awardCode} belongs to country ${entry.CountryCode}, not ${countryCode}`,
      );
    }
    overridePayRules = overridePayRulesOf(payRate, entry);
  } catch (error) {
    // Nothing was sent that creates an agreement yet.
    await releasePayRateClaim(store, hostname, event.id);
    throw error;
  }

  const at = context.at();
  if (!(await reclaimPayRateApplication(store, hostname, held, at))) {
    throw new OutcomeUnknownError(
      `the pay rate marker of employee ${employeeId} changed while it was prepared; retried`,
    );
  }

  let agreementId: number | string;
  try {
    ({ agreementId } = await install.setAwardFromLibrary(employeeId, {
      countryCode,
      awardCode: payRate.awardCode,
      overridePayRules,
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
    const found = await agreementCreatedNow(install, employeeId, { claimedAt: at.toISOString() }, payRate);
    if (found === undefined) throw error;
    agreementId = found;
  }
  await recordPayRateApplied(store, hostname, event.id, agreementId);
  return agreementId;
}

/**
 * The service's `arrOverridePayRules`: an override without a pay rule id is the award's base pay
 * rule (from its library entry). One pay rule named twice (the base both by id and without one)
 * would leave the rate to the service's reading of the order: refused before anything is sent.
 */
function overridePayRulesOf(
  payRate: LibraryPayRate,
  entry: AwardLibraryEntry,
): Array<{ Id: string; HourlyRate: number }> {
  const rules = payRate.overrides.map((override) => ({
    Id: override.payRuleId ?? String(entry.BasePayRule),
    HourlyRate: override.hourlyRate,
  }));
  const ids = rules.map((rule) => rule.Id);
  const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
  if (repeated !== undefined) {
    throw new PermanentError(
      'PAY_RULE_OVERRIDDEN_TWICE',
      `overrides: pay rule ${repeated} is overridden twice (an override without payRuleId is award ${payRate.awardCode}'s base pay rule ${entry.BasePayRule})`,
    );
  }
  return rules;
}

/**
 * The BaseRate an agreement made by this pay rate holds: the base pay rule's override, when the
 * event gives it without a pay rule id. Undefined when that is not known before the entry is read.
 */
export function expectedBaseRate(payRate: Pick<LibraryPayRate, 'overrides'>): number | undefined {
  return payRate.overrides.find((override) => override.payRuleId === undefined)?.hourlyRate;
}

/** The agreement a call whose answer was just lost created, when exactly one shows already. */
async function agreementCreatedNow(
  install: InstallClient,
  employeeId: number,
  marker: Pick<PayRateApplication, 'claimedAt'>,
  payRate: LibraryPayRate,
): Promise<number | string | undefined> {
  try {
    const outcome = earlierOutcome(marker, await employeeAgreements(install, employeeId), payRate);
    return outcome.kind === 'created' ? outcome.id : undefined;
  } catch {
    return undefined;
  }
}

export type AgreementsRead =
  | { readable: true; records: EmployeeAgreement[] }
  | { readable: false; records: []; reason: string };

/**
 * The employee's agreements. A refusal (the query not allowed for this partner, say) does not
 * stop the pay rate from being set; it only leaves a lost answer without a way to reconcile it.
 */
export async function employeeAgreements(
  install: InstallClient,
  employeeId: number,
): Promise<AgreementsRead> {
  try {
    return { readable: true, records: await install.listEmployeeAgreements(employeeId) };
  } catch (error) {
    if (error instanceof ServiceRejectedError || error instanceof ResponseShapeError) {
      return { readable: false, records: [], reason: `the agreements could not be read: ${error.message}` };
    }
    throw error;
  }
}

/**
 * What an earlier call did, read from the state it sets: the employee's active agreement at the
 * requested rate, created since the marker. Agreements without a BaseRate (non-US installs) say
 * nothing about the rate, so the outcome stays unknown there.
 */
export function earlierOutcome(
  marker: Pick<PayRateApplication, 'claimedAt'>,
  agreements: AgreementsRead,
  payRate: Pick<LibraryPayRate, 'overrides'>,
): CreateOutcome<number | string> {
  if (!agreements.readable) return { kind: 'unknown', reason: agreements.reason };
  const since = earliestCreation(marker.claimedAt);
  const recent = agreements.records.filter((agreement) => createdAtOrAfter(agreement, since));
  if (recent.some((agreement) => typeof agreement.BaseRate !== 'number')) {
    return { kind: 'unknown', reason: 'a recent agreement carries no BaseRate to compare the rate with' };
  }
  const [only] = recent;
  if (recent.length === 1 && only !== undefined) {
    // One new agreement, and it holds what the call sets: ours. One that does not (another rate,
    // already replaced) was made by someone else, and ours may still be in flight: not guessed.
    const rate = expectedBaseRate(payRate);
    if (rate === undefined) {
      return {
        kind: 'unknown',
        reason: `agreement ${only.Id} is new and no base pay rule rate was asked to compare it with`,
      };
    }
    return only.Active === true && only.BaseRate === rate
      ? { kind: 'created', id: only.Id }
      : { kind: 'unknown', reason: `agreement ${only.Id} is new but not active at the requested rate` };
  }
  return outcomeOf(
    recent.map((agreement) => agreement.Id),
    'new agreements',
  );
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
