import type { PayRateAssignedDetail } from '#functions/contracts/inbound/pay-rate-assigned.ts';
import type {
  PayRateEmployeeOutcome,
  PayRatesAssignedDetail,
} from '#functions/contracts/outbound/pay-rates-assigned.ts';
import { certainlyNotCreated } from '#functions/domain/create-outcome.ts';
import { employeeThings } from '#functions/domain/employee-things.ts';
import { OutcomeUnknownError, PermanentError, ServiceRejectedError } from '#functions/domain/errors.ts';
import { EventOrder, type Thing } from '#functions/domain/event-order.ts';
import { provisionedBusinessOf } from '#functions/domain/provisioned-business.ts';
import { serviceRejection } from '#functions/domain/service-rejection.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import type { UseCaseInput } from '#functions/runtime/use-case.ts';
import type { InstallClient } from '#functions/service/install.ts';
import { recordSyncSuccess } from '#functions/store/business.ts';
import {
  type BulkOutcome,
  claimPayRateBulk,
  markPayRateBulkSending,
  type PayRateBulkMarker,
  recordPayRateBulkAssigned,
  releasePayRateBulk,
} from '#functions/store/pay-rate-bulk.ts';
import type { Store } from '#functions/store/store.ts';
import { applyPayRate, type LibraryPayRate } from '#functions/sync-employee/pay-rate.ts';
import { bulkOutcomesFromAgreements } from './bulk-reconciliation.ts';

/** The pay rate thing of one listed employee, named as the event lists it. */
const payRateOf = (employeeId: number): Thing =>
  employeeThings.payRate(employeeId, `employeeIds[id=${employeeId}]`);

/**
 * assignPayRate — PayRateAssigned → one library assignment + one employees:bulk → PayRatesAssigned.
 *
 * Input: the PayRateAssigned detail (accountId, employeeIds 1–200 distinct, awardCode, countryCode,
 * overrides [{payRuleId?, hourlyRate}], occurredAt?) and its event id.
 * Output: one `PayRatesAssigned` {hostname, awardCode, agreementId, employees [applied|failed],
 * applied, failed}; one `SyncSkipped` SUPERSEDED listing the employees whose pay rate a newer event
 * set first (nothing else when that is every employee).
 *
 * Steps:
 * 1. Resolve the account's install from the table; last writer wins per employee pay rate (the
 *    thing EmployeeChanged's payRate sets): employees a newer event set are left out.
 * 2. The first remaining employee gets the library assignment, exactly as EmployeeChanged's pay
 *    rate (applyPayRate: cached library entry → setAwardFromLibrary, guarded per event, a lost
 *    answer reconciled from the employee's agreements). Its failure fails the event (SyncFailed):
 *    there is no agreement to give the others.
 * 3. The others get that agreement in one employees:bulk call, guarded per event (store/pay-rate-bulk.ts):
 *    a marker before the call, every employee's outcome recorded after it, and a redelivery answers
 *    from the marker. A call that may have been sent without an answer (lost answer, crash) is
 *    reconciled from the install's agreements (one QUERY): an employee holding a new agreement at
 *    the rate is applied, one with none is sent again, anything else failed PAY_RATE_OUTCOME_UNKNOWN.
 *    A refusal of the whole call fails every employee of it with the service's code; an answer that
 *    cannot be read is reconciled at once the same way (the request is over), an employee with no
 *    new agreement failed with the reading's code.
 * 4. Each applied employee's position moves to this event; failed ones keep theirs.
 */
export async function assignPayRate(
  { event, detail }: UseCaseInput<PayRateAssignedDetail>,
  { store, service, clock, interruptions, lastWriterWins }: Dependencies,
): Promise<OutboundEvent[]> {
  const business = await provisionedBusinessOf(store, detail.accountId);
  const { hostname } = business;
  const order = await EventOrder.read(store, hostname, event, detail, detail.employeeIds.map(payRateOf), {
    lastWriterWins,
  });
  const skipped = order.syncSkipped();
  const employees = detail.employeeIds.filter((employeeId) => order.applies(payRateOf(employeeId)));
  const [first, ...others] = employees;
  if (first === undefined) return skipped;

  const install = service.install(hostname);
  const at = () => clock.now();
  const payRate: LibraryPayRate = {
    awardCode: detail.awardCode,
    countryCode: detail.countryCode,
    overrides: detail.overrides,
  };
  let agreementId: number | string;
  try {
    agreementId = await applyPayRate({ store, install, event, at }, first, payRate);
  } catch (error) {
    throw error instanceof ServiceRejectedError
      ? serviceRejection(`setAwardFromLibrary for employee ${first}`, error)
      : error;
  }
  await order.applied([payRateOf(first)], clock.now());
  interruptions?.at('assign-pay-rate.after-library');

  const bulk =
    others.length === 0
      ? []
      : await assignToOthers(
          { store, install, eventId: event.id, at, ...(interruptions ? { interruptions } : {}) },
          agreementId,
          others,
          payRate,
        );
  const applied = bulk.filter((outcome) => outcome.applied).map((outcome) => payRateOf(outcome.employeeId));
  if (applied.length > 0) await order.applied(applied, clock.now());

  const outcomes: PayRateEmployeeOutcome[] = [
    { employeeId: first, status: 'applied', via: 'library', agreementId },
    ...bulk.map(
      (outcome): PayRateEmployeeOutcome =>
        outcome.applied
          ? {
              employeeId: outcome.employeeId,
              status: 'applied',
              via: 'bulk',
              agreementId: outcome.agreementId ?? agreementId,
            }
          : {
              employeeId: outcome.employeeId,
              status: 'failed',
              code: outcome.code,
              reason: outcome.message.slice(0, 1024),
            },
    ),
  ];
  await recordSyncSuccess(store, detail.accountId, clock.now());
  const assigned: Omit<PayRatesAssignedDetail, 'accountId' | 'causationId'> = {
    hostname,
    awardCode: detail.awardCode,
    agreementId,
    employees: outcomes,
    applied: outcomes.filter((outcome) => outcome.status === 'applied').length,
    failed: outcomes.filter((outcome) => outcome.status === 'failed').length,
  };
  return [{ detailType: 'PayRatesAssigned', detail: assigned }, ...skipped];
}

interface BulkContext {
  store: Store;
  install: InstallClient;
  eventId: string;
  at: () => Date;
  interruptions?: Dependencies['interruptions'];
}

/** The bulk assignment of `agreementId` to `employeeIds`, at most once per event (store/pay-rate-bulk.ts). */
async function assignToOthers(
  context: BulkContext,
  agreementId: number | string,
  employeeIds: readonly number[],
  payRate: LibraryPayRate,
): Promise<BulkOutcome[]> {
  const { store, install, eventId } = context;
  const { hostname } = install;
  const claimedAt = context.at();
  const claim = await claimPayRateBulk(store, hostname, { eventId, agreementId, employeeIds, at: claimedAt });
  let held: Pick<PayRateBulkMarker, 'eventId' | 'claimedAt' | 'callMayHaveBeenSent'>;
  let settled: BulkOutcome[] = [];
  let toSend = [...employeeIds];
  if (claim.claimed) {
    held = { eventId, claimedAt: claimedAt.toISOString(), callMayHaveBeenSent: false };
  } else {
    const { existing } = claim;
    if (existing.status === 'ASSIGNED' && existing.results !== undefined) return existing.results;
    held = existing;
    if (existing.callMayHaveBeenSent) {
      // An earlier attempt may have assigned some or all: what the install holds says which.
      const reconciled = bulkOutcomesFromAgreements(
        existing,
        await install.listEmployeeAgreements(),
        employeeIds,
        payRate,
      );
      settled = reconciled.settled;
      toSend = reconciled.notAssigned;
    }
  }
  if (toSend.length > 0) {
    const sendingAt = context.at();
    if (!(await markPayRateBulkSending(store, hostname, held, sendingAt))) {
      throw new OutcomeUnknownError(
        `the bulk assignment of event ${eventId} changed while it was prepared; retried`,
      );
    }
    settled = [
      ...settled,
      ...(await sendBulk(context, { agreementId, claimedAt: sendingAt.toISOString() }, toSend, payRate)),
    ];
    // The call is answered and its outcomes not recorded: a redelivery reconciles them.
    context.interruptions?.at('assign-pay-rate.after-bulk');
  }
  const outcomes = employeeIds.map(
    (employeeId) => settled.find((outcome) => outcome.employeeId === employeeId) as BulkOutcome,
  );
  await recordPayRateBulkAssigned(store, hostname, eventId, outcomes);
  return outcomes;
}

async function sendBulk(
  context: BulkContext,
  sent: Pick<PayRateBulkMarker, 'agreementId' | 'claimedAt'>,
  employeeIds: readonly number[],
  payRate: LibraryPayRate,
): Promise<BulkOutcome[]> {
  try {
    const results = await context.install.assignAgreement(sent.agreementId, employeeIds);
    return results.map((result) =>
      result.applied
        ? {
            employeeId: result.employeeId,
            applied: true as const,
            ...(result.agreementId === undefined ? {} : { agreementId: result.agreementId }),
          }
        : {
            employeeId: result.employeeId,
            applied: false as const,
            code: result.code,
            message: result.message,
          },
    );
  } catch (error) {
    if (error instanceof ServiceRejectedError) {
      const code = error.serviceCode ?? error.code;
      return employeeIds.map((employeeId) => ({
        employeeId,
        applied: false as const,
        code,
        message: `employees:bulk was refused: ${error.message}`,
      }));
    }
    if (certainlyNotCreated(error)) {
      await releasePayRateBulk(context.store, context.install.hostname, context.eventId);
      throw error;
    }
    // Retryable (a lost answer): the redelivery reconciles, with the marker kept.
    if (!(error instanceof PermanentError)) throw error;
    // Answered but unreadable: the request is over, so the install's agreements tell who has it.
    const reconciled = bulkOutcomesFromAgreements(
      sent,
      await context.install.listEmployeeAgreements(),
      employeeIds,
      payRate,
    );
    return [
      ...reconciled.settled,
      ...reconciled.notAssigned.map((employeeId) => ({
        employeeId,
        applied: false as const,
        code: error.code,
        message: `the answer of employees:bulk could not be read (${error.message}) and employee ${employeeId} holds no new agreement`,
      })),
    ];
  }
}
