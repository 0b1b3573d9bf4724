import {
  type EmployeeChangedDetail,
  type EmployeePart,
  employeeParts,
  overridesOf,
} from '#functions/contracts/inbound/employee-changed.ts';
import { employeeThings } from '#functions/domain/employee-things.ts';
import { PermanentError, ServiceRejectedError } from '#functions/domain/errors.ts';
import { EventOrder, type Thing } from '#functions/domain/event-order.ts';
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

type PartStatus = 'applied' | 'skipped' | 'superseded';

export { employeeThings };

/** Every thing the event carries, per part, in the order the part applies them. */
function thingsOf(detail: EmployeeChangedDetail): Record<EmployeePart, Thing[]> {
  const { employeeId } = detail;
  return {
    customFields: Object.keys(detail.customFields ?? {}).map((apiName) =>
      employeeThings.customField(employeeId, apiName),
    ),
    regularHours: detail.regularHours === undefined ? [] : [employeeThings.regularHours(employeeId)],
    payRate: detail.payRate === undefined ? [] : [employeeThings.payRate(employeeId)],
    leaveBalances: (detail.leaveBalances ?? []).map((balance) =>
      employeeThings.leaveBalance(employeeId, balance.leaveRuleId),
    ),
  };
}

/**
 * syncEmployee — EmployeeChanged → custom fields, regular hours, pay rate, leave balances →
 * EmployeeSynced.
 *
 * Input: the EmployeeChanged detail (accountId, employeeId, and any of customFields, regularHours,
 * payRate, leaveBalances, occurredAt?) and its event id.
 * Output: one `EmployeeSynced` {hostname, employeeId, parts [{part, status applied|skipped|superseded}],
 * slots [{apiName, slot}], agreementId?} when anything applied; one `SyncSkipped` SUPERSEDED listing
 * the things a newer event had already set; nothing when a PermanentError is thrown (SyncFailed).
 *
 * Steps:
 * 1. Resolve the account's install from the table (never from the event); no ACTIVE business →
 *    waits, fails or counts as provisionedBusinessOf says (domain/provisioned-business.ts).
 * 2. Refusals known without calling, before any part is applied: leaveBalances on a UK install →
 *    LEAVE_NOT_SUPPORTED_UK (the service does not apply leave overwrites to UK installs).
 * 3. Last writer wins per thing (employeeThings, domain/event-order.ts): the positions of the
 *    event's things are read once; a thing a newer event was applied to is left as it is.
 * 4. Parts, in PART_ORDER, each with the things that still apply; after each thing's service write
 *    its position moves to this event:
 *    - customFields: apiName → slot through the slot registry (EmployeeSlotRegistry), then one
 *      CustomFieldDataObject write per field; all 128 slots used → CUSTOM_FIELD_SLOTS_EXHAUSTED.
 *    - regularHours: the agreedHour object with its cycle spelled for its form, posted.
 *    - payRate: award library entry (cached) → setAwardFromLibrary, guarded per event
 *      (applyPayRate); unknown code → AWARD_NOT_FOUND.
 *    - leaveBalances: LeaveAccrual overwrite per rule, TransactionDate = asOf or 'now'. DESTRUCTIVE:
 *      the service replaces the balance and keeps no earlier amount.
 *    A part is `applied` when at least one of its things was, `superseded` when all were older.
 * 5. Failures: a retryable error in any part retries the whole event; earlier parts repeat
 *    harmlessly (same slot and value, same hours, same balances; the agreement is guarded; their
 *    positions already name this event, which is not "older"). A permanent error → SyncFailed
 *    naming the failed part and listing the parts already applied (their positions moved: a later
 *    older event does not undo them); EmployeeSynced is not published for a partly applied event.
 */
export async function syncEmployee(
  { event, detail }: UseCaseInput<EmployeeChangedDetail>,
  { store, service, clock, interruptions, lastWriterWins }: Dependencies,
): Promise<OutboundEvent[]> {
  const business = await provisionedBusinessOf(store, detail.accountId);
  if (detail.leaveBalances !== undefined && business.region === 'UK') {
    throw new PermanentError(
      'LEAVE_NOT_SUPPORTED_UK',
      `leaveBalances: leave balance overwrites do not apply to UK installs (${business.hostname}); no part was applied`,
    );
  }
  const things = thingsOf(detail);
  const order = await EventOrder.read(
    store,
    business.hostname,
    event,
    detail,
    PART_ORDER.flatMap((part) => things[part]),
    { lastWriterWins },
  );
  const install = service.install(business.hostname);
  const at = () => clock.now();
  const results: PartResults = { slots: [] };
  const applied: EmployeePart[] = [];
  const superseded: EmployeePart[] = [];
  const { employeeId } = detail;
  /** Records this event's position on `thing` once its service write is done. */
  const done = (thing: Thing) => order.applied([thing], clock.now());

  const apply: Record<EmployeePart, () => Promise<void>> = {
    customFields: async () => {
      const registry = new EmployeeSlotRegistry(store, install, at);
      for (const [apiName, value] of Object.entries(detail.customFields ?? {})) {
        const thing = employeeThings.customField(employeeId, apiName);
        if (!order.applies(thing)) continue;
        const slot = await registry.slotFor(apiName);
        await install.writeEmployeeCustomField(employeeId, slot, value);
        await done(thing);
        results.slots.push({ apiName, slot });
      }
    },
    regularHours: async () => {
      if (detail.regularHours === undefined) return;
      await install.setAgreedHours(employeeId, agreedHourToSend(detail.regularHours));
      await done(employeeThings.regularHours(employeeId));
    },
    payRate: async () => {
      if (detail.payRate === undefined) return;
      const context: PayRateContext = { store, install, event, at };
      const { awardCode, countryCode } = detail.payRate;
      results.agreementId = await applyPayRate(context, employeeId, {
        awardCode,
        countryCode,
        overrides: overridesOf(detail.payRate),
      });
      await done(employeeThings.payRate(employeeId));
    },
    leaveBalances: async () => {
      const balances = (detail.leaveBalances ?? []).filter((balance) =>
        order.applies(employeeThings.leaveBalance(employeeId, balance.leaveRuleId)),
      );
      await overwriteLeaveBalances(install, employeeId, balances, (balance) =>
        done(employeeThings.leaveBalance(employeeId, balance.leaveRuleId)),
      );
    },
  };

  for (const part of PART_ORDER) {
    if (detail[part] === undefined) continue;
    if (order.supersededWhole(things[part])) {
      superseded.push(part);
      continue;
    }
    try {
      await apply[part]();
    } catch (error) {
      throw partFailure(part, applied, superseded, error);
    }
    applied.push(part);
    // A part is applied, the next is not: the redelivery repeats what was already done.
    interruptions?.at('sync-employee.between-parts');
  }

  const skipped = order.syncSkipped();
  if (applied.length === 0) return skipped;
  await recordSyncSuccess(store, detail.accountId, clock.now());
  const statusOf = (part: EmployeePart): PartStatus =>
    applied.includes(part) ? 'applied' : superseded.includes(part) ? 'superseded' : 'skipped';
  return [
    {
      detailType: 'EmployeeSynced',
      detail: {
        hostname: business.hostname,
        employeeId,
        parts: PART_ORDER.map((part) => ({ part, status: statusOf(part) })),
        slots: results.slots,
        ...(results.agreementId === undefined ? {} : { agreementId: results.agreementId }),
      },
    },
    ...skipped,
  ];
}

type RegularHours = NonNullable<EmployeeChangedDetail['regularHours']>;

/** The spec spells cycles per form (TWO_WEEK in the full form, TWO_WEEKLY in the simple one). */
export function agreedHourToSend(hours: RegularHours): RegularHours {
  const cycle = normalizeCycle(hours.workPeriod.cycle, agreedHourForm(hours));
  return { ...hours, workPeriod: { ...hours.workPeriod, cycle } };
}

/**
 * Overwrites each given leave balance. DESTRUCTIVE by the service's rule: the new amount
 * replaces the balance and earlier amounts are not kept, so only a partner that is the source of
 * truth for leave should send leaveBalances. Sent one rule at a time in the listed order; `done`
 * runs after each.
 */
async function overwriteLeaveBalances(
  install: InstallClient,
  employeeId: number,
  balances: NonNullable<EmployeeChangedDetail['leaveBalances']>,
  done: (balance: NonNullable<EmployeeChangedDetail['leaveBalances']>[number]) => Promise<void>,
): Promise<void> {
  for (const balance of balances) {
    await install.overwriteLeaveBalance({
      employeeId,
      leaveRuleId: balance.leaveRuleId,
      hours: balance.hours,
      transactionDate: balance.asOf ?? 'now',
    });
    await done(balance);
  }
}

/**
 * Retryable errors pass through untouched; permanent ones name the part, what was applied, and
 * which parts a newer event had already set (the SyncFailed then speaks for the whole event).
 */
function partFailure(
  part: EmployeePart,
  applied: readonly EmployeePart[],
  superseded: readonly EmployeePart[],
  error: unknown,
): unknown {
  if (!(error instanceof PermanentError)) return error;
  const cause = error instanceof ServiceRejectedError ? serviceRejection(part, error) : error;
  const done = applied.length === 0 ? 'no part was applied' : `parts already applied: ${applied.join(', ')}`;
  const older = superseded.length === 0 ? '' : `; superseded by newer events: ${superseded.join(', ')}`;
  return new PermanentError(cause.code, `${part} failed (${done}${older}): ${cause.message}`, {
    status: cause.status,
    serviceCode: cause.serviceCode,
    cause: error,
  });
}
