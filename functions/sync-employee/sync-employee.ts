import {
  type EmployeeChangedDetail,
  type EmployeePart,
  employeeParts,
} from '#functions/contracts/inbound/employee-changed.ts';
import { PermanentError, ServiceRejectedError } from '#functions/domain/errors.ts';
import { provisionedBusinessOf } from '#functions/domain/provisioned-business.ts';
import { serviceRejection } from '#functions/domain/service-rejection.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import type { UseCaseInput } from '#functions/runtime/use-case.ts';
import { agreedHourForm, normalizeCycle } from '#functions/service/agreed-hour-form.ts';
import type { InstallClient } from '#functions/service/install.ts';
import { recordSyncSuccess } from '#functions/store/business.ts';
import { EmployeeSlotRegistry } from './custom-field-slots.ts';
import { applyPayRate, type PayRateContext } from './pay-rate.ts';

/** Parts are always applied in this order, whatever order the event lists them in. */
export const PART_ORDER: readonly EmployeePart[] = employeeParts;

interface PartResults {
  slots: Array<{ apiName: string; slot: number }>;
  agreementId?: number | string;
}

/**
 * syncEmployee — EmployeeChanged → custom fields, regular hours, pay rate, leave balances →
 * EmployeeSynced.
 *
 * Input: the EmployeeChanged detail (accountId, employeeId, and any of customFields, regularHours,
 * payRate, leaveBalances) and its event id.
 * Output: one `EmployeeSynced` {hostname, employeeId, parts [{part, status applied|skipped}],
 * slots [{apiName, slot}], agreementId?}; nothing when a PermanentError is thrown (SyncFailed).
 *
 * Steps:
 * 1. Resolve the account's install from the table (never from the event); no ACTIVE business →
 *    RetryableError BUSINESS_NOT_PROVISIONED.
 * 2. Refusals known without calling, before any part is applied: leaveBalances on a UK install →
 *    LEAVE_NOT_SUPPORTED_UK (the service does not apply leave overwrites to UK installs).
 * 3. Parts, in PART_ORDER:
 *    - customFields: apiName → slot through the slot registry (EmployeeSlotRegistry), then one
 *      CustomFieldDataObject write per field; all 128 slots used → CUSTOM_FIELD_SLOTS_EXHAUSTED.
 *    - regularHours: the agreedHour object with its cycle spelled for its form, posted.
 *    - payRate: award library entry (cached) → setAwardFromLibrary, guarded per event
 *      (applyPayRate); unknown code → AWARD_NOT_FOUND.
 *    - leaveBalances: LeaveAccrual overwrite per rule, TransactionDate = asOf or 'now'. DESTRUCTIVE:
 *      the service replaces the balance and keeps no earlier amount.
 * 4. Failures: a retryable error in any part retries the whole event; earlier parts repeat
 *    harmlessly (same slot and value, same hours, same balances; the agreement is guarded). A
 *    permanent error → SyncFailed naming the failed part and listing the parts already applied;
 *    EmployeeSynced is not published for a partly applied event.
 */
export async function syncEmployee(
  { event, detail }: UseCaseInput<EmployeeChangedDetail>,
  { store, service, clock, interruptions }: Dependencies,
): Promise<OutboundEvent[]> {
  const business = await provisionedBusinessOf(store, detail.accountId);
  if (detail.leaveBalances !== undefined && business.region === 'UK') {
    throw new PermanentError(
      'LEAVE_NOT_SUPPORTED_UK',
      `leaveBalances: leave balance overwrites do not apply to UK installs (${business.hostname}); no part was applied`,
    );
  }
  const install = service.install(business.hostname);
  const at = () => clock.now();
  const results: PartResults = { slots: [] };
  const applied: EmployeePart[] = [];

  const apply: Record<EmployeePart, () => Promise<void>> = {
    customFields: async () => {
      const registry = new EmployeeSlotRegistry(store, install, at);
      for (const [apiName, value] of Object.entries(detail.customFields ?? {})) {
        const slot = await registry.slotFor(apiName);
        await install.writeEmployeeCustomField(detail.employeeId, slot, value);
        results.slots.push({ apiName, slot });
      }
    },
    regularHours: async () => {
      if (detail.regularHours === undefined) return;
      await install.setAgreedHours(detail.employeeId, agreedHourToSend(detail.regularHours));
    },
    payRate: async () => {
      if (detail.payRate === undefined) return;
      const context: PayRateContext = { store, install, event, at };
      results.agreementId = await applyPayRate(context, detail.employeeId, detail.payRate);
    },
    leaveBalances: () => overwriteLeaveBalances(install, detail),
  };

  for (const part of PART_ORDER) {
    if (detail[part] === undefined) continue;
    try {
      await apply[part]();
    } catch (error) {
      throw partFailure(part, applied, error);
    }
    applied.push(part);
    // A part is applied, the next is not: the redelivery repeats what was already done.
    interruptions?.at('sync-employee.between-parts');
  }

  await recordSyncSuccess(store, detail.accountId, clock.now());
  return [
    {
      detailType: 'EmployeeSynced',
      detail: {
        hostname: business.hostname,
        employeeId: detail.employeeId,
        parts: PART_ORDER.map((part) => ({ part, status: applied.includes(part) ? 'applied' : 'skipped' })),
        slots: results.slots,
        ...(results.agreementId === undefined ? {} : { agreementId: results.agreementId }),
      },
    },
  ];
}

type RegularHours = NonNullable<EmployeeChangedDetail['regularHours']>;

/** The spec spells cycles per form (TWO_WEEK in the full form, TWO_WEEKLY in the simple one). */
export function agreedHourToSend(hours: RegularHours): RegularHours {
  const cycle = normalizeCycle(hours.workPeriod.cycle, agreedHourForm(hours));
  return { ...hours, workPeriod: { ...hours.workPeriod, cycle } };
}

/**
 * Overwrites each listed leave balance. DESTRUCTIVE by the service's rule: the new amount
 * replaces the balance and earlier amounts are not kept, so only a partner that is the source of
 * truth for leave should send leaveBalances. Sent one rule at a time in the listed order.
 */
async function overwriteLeaveBalances(install: InstallClient, detail: EmployeeChangedDetail): Promise<void> {
  for (const balance of detail.leaveBalances ?? []) {
    await install.overwriteLeaveBalance({
      employeeId: detail.employeeId,
      leaveRuleId: balance.leaveRuleId,
      hours: balance.hours,
      transactionDate: balance.asOf ?? 'now',
    });
  }
}

/** Retryable errors pass through untouched; permanent ones name the part and what was applied. */
function partFailure(part: EmployeePart, applied: readonly EmployeePart[], error: unknown): unknown {
  if (!(error instanceof PermanentError)) return error;
  const cause = error instanceof ServiceRejectedError ? serviceRejection(part, error) : error;
  const done = applied.length === 0 ? 'no part was applied' : `parts already applied: ${applied.join(', ')}`;
  return new PermanentError(cause.code, `${part} failed (${done}): ${cause.message}`, {
    status: cause.status,
    serviceCode: cause.serviceCode,
    cause: error,
  });
}
