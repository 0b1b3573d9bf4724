import type { EmployeeAgreement } from '#functions/service/records/pay-conditions.ts';
import type { BulkOutcome, PayRateBulkMarker } from '#functions/store/pay-rate-bulk.ts';
import { earlierOutcome, type LibraryPayRate } from '#functions/sync-employee/pay-rate.ts';

/**
 * What an earlier bulk call whose answer was lost did, employee by employee, from the agreements
 * the install holds now: an employee holding the assigned agreement itself, or exactly one new
 * active agreement at the requested base rate, was assigned; one with no new agreement was not
 * (sent again); anything else cannot be told and is failed PAY_RATE_OUTCOME_UNKNOWN rather than
 * possibly assigned twice.
 */
export function bulkOutcomesFromAgreements(
  marker: Pick<PayRateBulkMarker, 'claimedAt' | 'agreementId'>,
  agreements: readonly EmployeeAgreement[],
  employeeIds: readonly number[],
  payRate: Pick<LibraryPayRate, 'overrides'>,
): { settled: BulkOutcome[]; notAssigned: number[] } {
  const settled: BulkOutcome[] = [];
  const notAssigned: number[] = [];
  for (const employeeId of employeeIds) {
    const own = agreements.filter((agreement) => agreement.EmployeeId === employeeId);
    if (
      own.some(
        (agreement) => String(agreement.Id) === String(marker.agreementId) && agreement.Active !== false,
      )
    ) {
      settled.push({ employeeId, applied: true, agreementId: marker.agreementId });
      continue;
    }
    const outcome = earlierOutcome(marker, { readable: true, records: own }, payRate);
    if (outcome.kind === 'created') settled.push({ employeeId, applied: true, agreementId: outcome.id });
    else if (outcome.kind === 'not-created') notAssigned.push(employeeId);
    else {
      settled.push({
        employeeId,
        applied: false,
        code: 'PAY_RATE_OUTCOME_UNKNOWN',
        message: `an earlier bulk assignment of this event may have assigned employee ${employeeId} and it cannot be told (${outcome.reason}); not repeated to avoid a second assignment`,
      });
    }
  }
  return { settled, notAssigned };
}
