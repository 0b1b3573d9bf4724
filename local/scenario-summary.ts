import type { OutboundEvent } from './runtime.ts';
import type { ScenarioReport } from './scenario.ts';

/**
 * The end of `npm start`'s demo run, per partner account: its business as the service holds it
 * now, and what the connector created for it, read from the connector's own result events.
 */

export interface BusinessView {
  readonly hostname: string;
  readonly externalId: string;
  readonly portfolioName: string;
  readonly edition: string;
  readonly trialEndDate: string;
}

/** One partner account at the end of the run: its business as the service holds it, and what the connector created. */
export interface AccountView {
  readonly accountId: string;
  /** From the connector's BusinessProvisioned. */
  readonly hostname?: string;
  /** The service's record (sandbox control API); absent once the service deleted the business. */
  readonly business?: BusinessView;
  /** The connector published BusinessGone for it. */
  readonly gone: boolean;
  /** The last edition the connector announced (BusinessProvisioned, PlanChanged, TrialEnded, BusinessEditionChanged). */
  readonly lastAnnouncedEdition?: string;
  /** What the connector created or read for this account, one line each. */
  readonly created: readonly string[];
}

/**
 * Per account, in the order the connector first answered it: its business as the service holds it
 * now, and the ids the connector learned, read from its own result events.
 */
export function accountViews(
  outbound: readonly OutboundEvent[],
  businesses: readonly BusinessView[],
): AccountView[] {
  const accounts = new Map<
    string,
    { hostname?: string; edition?: string; gone: boolean; created: string[] }
  >();
  for (const { 'detail-type': type, detail } of outbound) {
    const accountId = detail['accountId'];
    if (typeof accountId !== 'string') continue;
    const account = accounts.get(accountId) ?? { gone: false, created: [] };
    accounts.set(accountId, account);
    const line = createdLine(type, detail);
    if (line) account.created.push(line);
    if (type === 'BusinessProvisioned') account.hostname = String(detail['hostname']);
    if (type === 'BusinessGone') account.gone = true;
    if (typeof detail['edition'] === 'string' && type !== 'SubscriptionStatus')
      account.edition = detail['edition'];
  }
  return [...accounts].map(([accountId, account]) => {
    const business = businesses.find((candidate) => candidate.externalId === accountId);
    return {
      accountId,
      ...(account.hostname ? { hostname: account.hostname } : {}),
      ...(business ? { business } : {}),
      gone: account.gone,
      ...(account.edition ? { lastAnnouncedEdition: account.edition } : {}),
      created: account.created,
    };
  });
}

function createdLine(type: string, detail: Record<string, unknown>): string | undefined {
  switch (type) {
    case 'LocationProvisioned': {
      const areas = (detail['areas'] as Array<{ name: string; areaId: number }> | undefined) ?? [];
      return `location ${String(detail['locationRef'])} → id ${String(detail['locationId'])}; areas ${areas
        .map((area) => `${area.name} → ${area.areaId}`)
        .join(', ')}`;
    }
    case 'EmployeeSynced': {
      const slots = (detail['slots'] as Array<{ apiName: string; slot: number }> | undefined) ?? [];
      const agreement =
        detail['agreementId'] === undefined ? '' : `; pay-rate agreement ${String(detail['agreementId'])}`;
      return `employee ${String(detail['employeeId'])}: custom-field slots ${slots
        .map((slot) => `${slot.apiName} → F${String(slot.slot).padStart(2, '0')}`)
        .join(', ')}${agreement}`;
    }
    case 'BudgetSaved': {
      const ids = (detail['ids'] as string[] | undefined) ?? [];
      const shown = ids.length > 3 ? `${ids.slice(0, 2).join(', ')} … ${ids.at(-1)}` : ids.join(', ');
      return `${String(detail['count'])} budget metrics (${shown})`;
    }
    case 'PayReturnsReady': {
      const totals = detail['totals'] as { value?: number; cost?: number } | undefined;
      return `pay returns of timesheet ${String(detail['timesheetId'])}: value ${totals?.value ?? '?'}, cost ${totals?.cost ?? '?'}`;
    }
    default:
      return undefined;
  }
}

/** "SUBSCRIPTION_PRO_TRIAL until …" while on trial; the edition alone otherwise; what became of a deleted one. */
function editionOf(account: AccountView): string {
  const { business } = account;
  if (!business) {
    const after = account.lastAnnouncedEdition ? ` while ${account.lastAnnouncedEdition}` : '';
    return account.gone ? `deleted by the service${after} (BusinessGone published)` : 'not at the service';
  }
  return business.edition === 'SUBSCRIPTION_PRO_TRIAL' && business.trialEndDate
    ? `${business.edition} until ${business.trialEndDate}`
    : business.edition;
}

/** The readable end-of-run summary of `npm start`. */
export function formatSummary(report: ScenarioReport): string {
  const lines: string[] = [
    '',
    'Summary: per account, its business at the service and what the connector created',
  ];
  for (const account of report.accounts) {
    lines.push(`  ${account.accountId}  ${account.hostname ?? '(no business)'}  ${editionOf(account)}`);
    for (const line of account.created) lines.push(`    ${line}`);
  }
  if (report.accounts.length === 0) lines.push('  (no account answered)');
  const counts = (title: string, byType: Readonly<Record<string, number>>) => {
    const total = Object.values(byType).reduce((sum, count) => sum + count, 0);
    const parts = Object.entries(byType).map(([type, count]) => `${type} ${count}`);
    lines.push(`  ${title}: ${total}${parts.length > 0 ? `  (${parts.join(', ')})` : ''}`);
  };
  counts('Events published by the partner', report.inboundCounts);
  counts('Events published by the connector', report.outboundCounts);
  // Each distinct denied call once, with how often it was made (local/iam/).
  const denied = new Map<string, number>();
  for (const denial of report.denied) {
    const line = `${denial.principal}: ${denial.action} on ${denial.resource} ${denial.reason}`;
    denied.set(line, (denied.get(line) ?? 0) + 1);
  }
  lines.push(
    `  AWS calls denied by the template's IAM: ${report.denied.length === 0 ? 'none' : report.denied.length}`,
  );
  for (const [line, count] of denied) lines.push(`    ✗ ${line}${count > 1 ? ` (×${count})` : ''}`);
  lines.push(`  Failures: ${report.failures.length === 0 ? 'none' : report.failures.length}`);
  for (const failure of report.failures) lines.push(`    ✗ ${failure}`);
  return lines.join('\n');
}
