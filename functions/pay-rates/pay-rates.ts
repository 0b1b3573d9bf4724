import { randomUUID } from 'node:crypto';
import type { PayRatesRequestedDetail } from '#functions/contracts/inbound/pay-rates-requested.ts';
import type {
  PayRateEntry,
  PayRatesReportedDetail,
  UnresolvedReasonCode,
} from '#functions/contracts/outbound/pay-rates-reported.ts';
import { PermanentError, QueryLimitReachedError, ServiceRejectedError } from '#functions/domain/errors.ts';
import { provisionedBusinessOf } from '#functions/domain/provisioned-business.ts';
import { serviceRejection } from '#functions/domain/service-rejection.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import { detailRoomBytes, splitIntoParts } from '#functions/publisher/split-answer.ts';
import { mapWithConcurrency } from '#functions/runtime/concurrency.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import type { UseCaseInput } from '#functions/runtime/use-case.ts';
import type { InstallClient } from '#functions/service/install.ts';
import type { PayRateResolution, UnresolvedPayRateCode } from '#functions/service/pay-rate-resolver.ts';
import type { EmployeeAgreement } from '#functions/service/records/pay-conditions.ts';
import { recordSyncSuccess } from '#functions/store/business.ts';

/** Install reads in flight at once for one record (agreements per employee, contract and rule lookups). */
export const PAY_RATE_READ_CONCURRENCY = 4;

const DETAIL_TYPE = 'PayRatesReported';

/**
 * reportPayRates — PayRatesRequested → the install's employee agreements → each one's effective
 * hourly rate by the spec's pay-rate rule → PayRatesReported, in as many parts as EventBridge's
 * entry limit needs.
 *
 * Input: the PayRatesRequested detail (accountId, employeeIds 1–100 or none for every agreement).
 * Output: `PayRatesReported` {hostname, region, baseRateApplies, rates, employeesWithoutAgreements,
 * part, parts}: one entry per agreement {agreementId, employeeId, active, startDate, endDate,
 * origin, hourlyRate, ...}; an install without agreements gets one event with an empty list.
 *
 * Steps:
 * 1. Resolve the account's install from the table (never from the event); no ACTIVE business →
 *    waits, fails or counts as provisionedBusinessOf says (domain/provisioned-business.ts).
 * 2. Read the agreements: one QUERY EmployeeAgreement (EmployeeId eq id) per requested employee,
 *    up to PAY_RATE_READ_CONCURRENCY at once, kept in the order requested (and to that employee,
 *    should the service answer more); without employeeIds one QUERY of every agreement. A
 *    refusal → SyncFailed with the service's code: without the agreements there is nothing to say.
 * 3. Resolve every agreement with one resolver for the event, so each employment contract and
 *    each pay rule is read once however many agreements share it. On a US install a numeric
 *    BaseRate is the rate (origin BASE_RATE); elsewhere the rule does not apply and every rate
 *    goes Contract → employment contract → base pay rule → HourlyRate (origin CONTRACT).
 * 4. Where that data ends (no contract, a contract or rule not found, no base pay rule, no
 *    HourlyRate, a lookup the service refuses or answers unreadably) the agreement is reported
 *    UNRESOLVED with `hourlyRate: null` and the reason; the event itself still succeeds.
 *    Retryable failures (429, 5xx, timeouts) fail the event, to be retried whole.
 * 5. Split the rates over parts that each fit one EventBridge entry (splitIntoParts); every part
 *    repeats the region, baseRateApplies and employeesWithoutAgreements.
 */
export async function reportPayRates(
  { event, detail }: UseCaseInput<PayRatesRequestedDetail>,
  { store, service, clock, config }: Dependencies,
): Promise<OutboundEvent[]> {
  const business = await provisionedBusinessOf(store, detail.accountId);
  const install = service.install(business.hostname);
  const baseRateApplies = business.region === 'US';

  const { agreements, employeesWithoutAgreements } = await agreementsOf(install, detail.employeeIds);
  const resolver = install.payRateResolver({ baseRateApplies });
  const rates = await mapWithConcurrency(agreements, PAY_RATE_READ_CONCURRENCY, async (agreement) =>
    entryOf(agreement, await resolver.resolve(agreement)),
  );

  const base: Omit<PayRatesReportedDetail, 'rates' | 'part' | 'parts'> = {
    accountId: detail.accountId,
    // Set here (not by the runtime) so that the split measures it.
    causationId: event.id,
    answerId: randomUUID(),
    hostname: business.hostname,
    region: business.region,
    baseRateApplies,
    employeesWithoutAgreements,
  };
  const parts = splitIntoParts(base, { rates }, detailRoomBytes(config.outboundSource, DETAIL_TYPE));
  await recordSyncSuccess(store, detail.accountId, clock.now());
  return parts.map((part) => ({ detailType: DETAIL_TYPE, detail: part satisfies PayRatesReportedDetail }));
}

async function agreementsOf(
  install: InstallClient,
  employeeIds: readonly number[] | undefined,
): Promise<{ agreements: EmployeeAgreement[]; employeesWithoutAgreements: number[] }> {
  try {
    if (employeeIds === undefined) {
      return { agreements: await install.listEmployeeAgreements(), employeesWithoutAgreements: [] };
    }
    const perEmployee = await mapWithConcurrency(employeeIds, PAY_RATE_READ_CONCURRENCY, async (id) =>
      // `eq` answers direct matches only; anything else is not this employee's and is left out.
      (await install.listEmployeeAgreements(id)).filter((agreement) => agreement.EmployeeId === id),
    );
    return {
      agreements: perEmployee.flat(),
      employeesWithoutAgreements: employeeIds.filter((_, index) => perEmployee[index]?.length === 0),
    };
  } catch (error) {
    if (error instanceof ServiceRejectedError) throw serviceRejection('reading employee agreements', error);
    if (error instanceof QueryLimitReachedError && employeeIds === undefined) {
      throw new PermanentError(
        error.code,
        `${error.message}; ask for the install's employees in groups with employeeIds (up to 100 per event)`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** The contract's reason codes are the resolver's, one for one. */
const REASON_CODES = {
  NO_CONTRACT: 'NO_CONTRACT',
  CONTRACT_NOT_FOUND: 'CONTRACT_NOT_FOUND',
  NO_BASE_PAY_RULE: 'NO_BASE_PAY_RULE',
  PAY_RULE_NOT_FOUND: 'PAY_RULE_NOT_FOUND',
  NO_HOURLY_RATE: 'NO_HOURLY_RATE',
  LOOKUP_REFUSED: 'LOOKUP_REFUSED',
  LOOKUP_UNREADABLE: 'LOOKUP_UNREADABLE',
} as const satisfies Record<UnresolvedPayRateCode, UnresolvedReasonCode>;

/** Reasons are built from ids by the resolver; the contract caps them. */
const MAX_REASON_LENGTH = 512;

export function entryOf(agreement: EmployeeAgreement, resolution: PayRateResolution): PayRateEntry {
  const known = {
    agreementId: agreement.Id,
    employeeId: agreement.EmployeeId,
    active: agreement.Active ?? null,
    startDate: agreement.StartDate ?? null,
    endDate: agreement.EndDate ?? null,
  };
  if (!resolution.resolved) {
    return {
      ...known,
      origin: 'UNRESOLVED',
      hourlyRate: null,
      reasonCode: REASON_CODES[resolution.code],
      reason: resolution.reason.slice(0, MAX_REASON_LENGTH),
      ...(resolution.contractId === undefined ? {} : { contractId: resolution.contractId }),
      ...(resolution.payRuleId === undefined ? {} : { payRuleId: resolution.payRuleId }),
    };
  }
  const { rate } = resolution;
  return rate.source === 'BaseRate'
    ? { ...known, origin: 'BASE_RATE', hourlyRate: rate.hourlyRate }
    : {
        ...known,
        origin: 'CONTRACT',
        hourlyRate: rate.hourlyRate,
        contractId: rate.contractId,
        payRuleId: rate.payRuleId,
      };
}
