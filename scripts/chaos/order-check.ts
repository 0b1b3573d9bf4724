import type { ChaosEvent, Workload } from './workload.ts';

/**
 * The chaos run's order check: for every thing the workload's events set, the final state in the
 * service and in the table must be what the newest event on that thing asks for (last writer wins
 * per thing: docs/reliability.md, "Order per thing"), whatever order the events arrived in.
 * Written from the event contract, the service spec and docs/state.md, never from the connector's
 * code, and pure, so it is tested on hand-made observations (test/reliability/verdict.test.ts).
 *
 * The things, and where the verdict reads them:
 *
 * | thing (table position `POSITION#<key>`) | event | service (install dump / business list) | table |
 * |---|---|---|---|
 * | `plan` | PlanChosen | the business's edition | the business record's edition, the position |
 * | `employee#<id>#customField#<apiName>` | EmployeeChanged `customFields` | the slot of the employee's CustomFieldData holding `<apiName>\|…` | the position |
 * | `employee#<id>#regularHours` | `regularHours` | AgreedHour of the employee (threshold, applyThreshold, work period) | the position |
 * | `employee#<id>#payRate` | `payRate` | the employee's active EmployeeAgreement: its contract's AwardCode, its BaseRate | the position |
 * | `employee#<id>#leaveBalance#<rule>` | `leaveBalances` | LeaveAccrual of the employee and leave rule: Hours | the position |
 * | `budget#<location>#<area or ->#<kind>#<date>` | BudgetSet, per day | the Metric of location, area (0: none), type and the day's local midnight in the event's time zone: value and reference | the position |
 * | `location#<locationRef>` | LocationCreated | a Location named as the event says, with every area it lists | the position |
 *
 * The newest event on a thing is the one with the latest `occurredAt`, then the greater event id,
 * among the events that applied or were superseded on it (a result event, a SyncSkipped, or a
 * PlanChosen acknowledged as a no-op): a refused event (SyncFailed) or one that never got its turn
 * asks for nothing. The state may also hold the value of an event newer than that one that
 * ended in a SyncFailed or a dead letter after it may have written (a part applied before a later
 * part failed, a write whose answer was lost: RETRIES_EXHAUSTED, *_OUTCOME_UNKNOWN), but never an
 * older event's. A thing counts once however many places disagree.
 *
 * Budget cells: the service keeps a metric per timestamp, the connector a cell per date, so two
 * BudgetSet of one day in two time zones leave two metrics; the check reads the metric at the
 * newest event's midnight, which must hold its value.
 */

export type InstallTables = Record<string, Array<Record<string, unknown>>>;

/** The event id's outcome, as the verdict classified it. */
export type OrderOutcome =
  | { readonly kind: 'applied' | 'superseded' | 'no-op' | 'dead-lettered' | 'lost' }
  | { readonly kind: 'failed'; readonly code: string };

export interface TablePosition {
  /** The event's occurredAt as the table keeps it (a fixed-width UTC key). */
  readonly occurredAt: string;
  readonly eventId: string;
}

export interface OrderObservations {
  readonly workload: Workload;
  readonly sent: ReadonlyMap<string, ChaosEvent>;
  readonly outcomes: ReadonlyMap<string, OrderOutcome>;
  readonly businesses: ReadonlyArray<{
    readonly hostname: string;
    readonly externalId: string;
    readonly edition?: string;
  }>;
  readonly installs: ReadonlyMap<string, InstallTables>;
  readonly tableBusinesses: ReadonlyMap<string, { readonly edition?: string | undefined } | undefined>;
  /** hostname → thing key → the position the table holds. */
  readonly tablePositions: ReadonlyMap<string, ReadonlyMap<string, TablePosition>>;
}

/** A thing whose final state is not what its newest event asks for. */
export interface OrderViolation {
  readonly account: string;
  readonly thing: string;
  /** The newest event on the thing (send order) and what it asks for. */
  readonly newest: { readonly order: number; readonly eventId: string; readonly value: string };
  /** Where the state differs, and what it holds there. */
  readonly found: readonly string[];
}

/** PlanChosen refusals the connector gives before any call: they never change the plan. */
const WROTE_NOTHING_CODES = new Set([
  'CANNOT_CANCEL_TRIAL',
  'BILLING_ADDRESS_REQUIRED',
  'INVALID_DETAIL',
  'LEAVE_NOT_SUPPORTED_UK',
  'BUSINESS_NOT_PROVISIONED',
]);

const EDITION_OF_PLAN: Record<string, string> = {
  PREMIUM: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
  FREE: 'SUBSCRIPTION_FREE',
};

/** One thing an event sets, with what it asks for. */
type ThingSet =
  | { readonly kind: 'plan'; readonly key: string; readonly edition: string }
  | {
      readonly kind: 'customField';
      readonly key: string;
      readonly employeeId: number;
      readonly apiName: string;
      readonly value: string;
    }
  | {
      readonly kind: 'regularHours';
      readonly key: string;
      readonly employeeId: number;
      readonly hours: string;
    }
  | {
      readonly kind: 'payRate';
      readonly key: string;
      readonly employeeId: number;
      readonly awardCode: string;
      readonly hourlyRate: number;
    }
  | {
      readonly kind: 'leaveBalance';
      readonly key: string;
      readonly employeeId: number;
      readonly leaveRuleId: number;
      readonly hours: number;
    }
  | {
      readonly kind: 'budgetCell';
      readonly key: string;
      readonly locationId: number;
      readonly areaId: number;
      readonly wage: boolean;
      readonly timestamp: number;
      readonly value: number;
      readonly reference: string | null;
    }
  | {
      readonly kind: 'location';
      readonly key: string;
      readonly name: string;
      readonly areaNames: readonly string[];
    };

interface Setter {
  readonly eventId: string;
  readonly event: ChaosEvent;
  readonly set: ThingSet;
}

/** Every thing a valid event sets, from its detail as the contract reads it. */
export function thingsSetBy(event: ChaosEvent): ThingSet[] {
  if (event.expectation.kind !== 'valid') return [];
  const detail = event.detail;
  switch (event.detailType) {
    case 'PlanChosen': {
      const edition = EDITION_OF_PLAN[String(detail['plan'])];
      return edition === undefined ? [] : [{ kind: 'plan', key: 'plan', edition }];
    }
    case 'EmployeeChanged':
      return employeeThings(detail);
    case 'BudgetSet':
      return budgetThings(detail);
    case 'LocationCreated': {
      const name = String(detail['name']);
      const areas = Array.isArray(detail['areas'])
        ? (detail['areas'] as Array<{ name?: unknown }>).map((area) => String(area.name))
        : [name];
      return [{ kind: 'location', key: `location#${String(detail['locationRef'])}`, name, areaNames: areas }];
    }
    default:
      return [];
  }
}

function employeeThings(detail: Record<string, unknown>): ThingSet[] {
  const employeeId = Number(detail['employeeId']);
  const prefix = `employee#${employeeId}#`;
  const things: ThingSet[] = [];
  const fields = detail['customFields'];
  if (typeof fields === 'object' && fields !== null) {
    for (const [apiName, value] of Object.entries(fields)) {
      things.push({
        kind: 'customField',
        key: `${prefix}customField#${apiName}`,
        employeeId,
        apiName,
        value: String(value),
      });
    }
  }
  const hours = detail['regularHours'];
  if (typeof hours === 'object' && hours !== null) {
    things.push({
      kind: 'regularHours',
      key: `${prefix}regularHours`,
      employeeId,
      hours: hoursSignature(hours as Record<string, unknown>),
    });
  }
  const payRate = detail['payRate'] as { awardCode?: unknown; hourlyRate?: unknown } | undefined;
  if (payRate !== undefined) {
    things.push({
      kind: 'payRate',
      key: `${prefix}payRate`,
      employeeId,
      awardCode: String(payRate.awardCode),
      hourlyRate: Number(payRate.hourlyRate),
    });
  }
  const balances = detail['leaveBalances'];
  if (Array.isArray(balances)) {
    for (const balance of balances as Array<{ leaveRuleId?: unknown; hours?: unknown }>) {
      things.push({
        kind: 'leaveBalance',
        key: `${prefix}leaveBalance#${Number(balance.leaveRuleId)}`,
        employeeId,
        leaveRuleId: Number(balance.leaveRuleId),
        hours: Number(balance.hours),
      });
    }
  }
  return things;
}

function budgetThings(detail: Record<string, unknown>): ThingSet[] {
  const locationId = Number(detail['locationId']);
  const area = detail['areaId'];
  const kind = String(detail['kind']);
  const timeZone = typeof detail['timeZone'] === 'string' ? detail['timeZone'] : 'UTC';
  const reference = typeof detail['reference'] === 'string' ? detail['reference'] : null;
  const days = Array.isArray(detail['days'])
    ? (detail['days'] as Array<{ date?: unknown; value?: unknown }>)
    : [];
  return days.map((day) => {
    const date = String(day.date);
    return {
      kind: 'budgetCell',
      key: `budget#${locationId}#${area === undefined ? '-' : Number(area)}#${kind}#${date}`,
      locationId,
      areaId: area === undefined ? 0 : Number(area),
      wage: kind === 'WAGE',
      timestamp: localMidnightSeconds(date, timeZone),
      value: Number(day.value),
      reference,
    };
  });
}

/** What the service's agreed hour must carry of an event's regular hours (the cycle is respelled per form). */
function hoursSignature(hours: Record<string, unknown>): string {
  const period = (hours['workPeriod'] ?? {}) as Record<string, unknown>;
  return JSON.stringify([
    hours['threshold'],
    hours['applyThreshold'] ?? null,
    period['startDate'] ?? null,
    period['endCycleDate'] ?? null,
  ]);
}

/** Unix seconds of midnight at the start of `date` (YYYY-MM-DD) in `timeZone`. */
export function localMidnightSeconds(date: string, timeZone: string): number {
  const [year = 0, month = 1, day = 1] = date.split('-').map(Number);
  const wall = Date.UTC(year, month - 1, day);
  let at = wall;
  // Two rounds settle the offset (midnight never falls in a DST gap in the zones the run uses).
  for (let round = 0; round < 2; round++) at = wall - offsetMs(at, timeZone);
  return Math.floor(at / 1000);
}

function offsetMs(at: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(at));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  );
  return asUtc - Math.floor(at / 1000) * 1000;
}

/** Orders two events' positions: occurredAt (its instant), then event id. */
function compareSetters(a: Setter, b: Setter): number {
  const at = (setter: Setter) => Date.parse(String(setter.event.detail['occurredAt'] ?? ''));
  const [ta, tb] = [at(a), at(b)];
  if (ta !== tb) return (Number.isNaN(ta) ? -Infinity : ta) < (Number.isNaN(tb) ? -Infinity : tb) ? -1 : 1;
  return a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0;
}

function asksFor(outcome: OrderOutcome | undefined): boolean {
  return outcome?.kind === 'applied' || outcome?.kind === 'superseded' || outcome?.kind === 'no-op';
}

/** An event that did not apply but may have written some of its things before it ended. */
function mayHaveWritten(outcome: OrderOutcome | undefined): boolean {
  if (outcome === undefined) return true;
  if (outcome.kind === 'failed') return !WROTE_NOTHING_CODES.has(outcome.code);
  return outcome.kind === 'dead-lettered' || outcome.kind === 'lost';
}

interface AccountState {
  readonly install: InstallTables;
  readonly serviceEdition: string | undefined;
  readonly tableEdition: string | undefined;
  readonly positions: ReadonlyMap<string, TablePosition> | undefined;
}

/** The things of every account whose final state is not what their newest event asks for. */
export function findOrderViolations(observed: OrderObservations): OrderViolation[] {
  const setters = new Map<string, Map<string, Setter[]>>();
  for (const [eventId, event] of observed.sent) {
    for (const set of thingsSetBy(event)) {
      const byThing = setters.get(event.account) ?? new Map<string, Setter[]>();
      byThing.set(set.key, [...(byThing.get(set.key) ?? []), { eventId, event, set }]);
      setters.set(event.account, byThing);
    }
  }
  const violations: OrderViolation[] = [];
  for (const account of observed.workload.accounts) {
    const business = observed.businesses.find((candidate) => candidate.externalId === account.accountId);
    const install = business === undefined ? undefined : observed.installs.get(business.hostname);
    // No business in the service (or not observed): nothing to compare; lost and mismatches judge it.
    if (business === undefined || install === undefined) continue;
    const state: AccountState = {
      install,
      serviceEdition: business.edition,
      tableEdition: observed.tableBusinesses.get(account.accountId)?.edition,
      positions: observed.tablePositions.get(business.hostname),
    };
    for (const [key, all] of setters.get(account.accountId) ?? []) {
      const counted = all.filter((setter) => asksFor(observed.outcomes.get(setter.eventId)));
      const newest = counted.reduce<Setter | undefined>(
        (best, setter) => (best === undefined || compareSetters(setter, best) > 0 ? setter : best),
        undefined,
      );
      if (newest === undefined) continue;
      const acceptable = [
        newest,
        ...all.filter(
          (setter) =>
            compareSetters(setter, newest) > 0 && mayHaveWritten(observed.outcomes.get(setter.eventId)),
        ),
      ];
      const found = disagreements(state, key, acceptable);
      if (found.length > 0) {
        violations.push({
          account: account.accountId,
          thing: key,
          newest: { order: newest.event.order, eventId: newest.eventId, value: describeSet(newest.set) },
          found,
        });
      }
    }
  }
  return violations;
}

/** Where the state holds none of the acceptable events' values, and what it holds there. */
function disagreements(state: AccountState, key: string, acceptable: readonly Setter[]): string[] {
  const found: string[] = [];
  const first = acceptable[0];
  if (first === undefined) return found;
  const service = serviceValue(state, first.set);
  if (!acceptable.some((setter) => serviceHolds(state, setter.set))) found.push(`service: ${service}`);
  if (first.set.kind === 'plan' && !acceptable.some((setter) => tableHoldsPlan(state, setter.set))) {
    found.push(`table edition: ${state.tableEdition ?? 'none'}`);
  }
  const position = state.positions?.get(key);
  if (!acceptable.some((setter) => setter.eventId === position?.eventId)) {
    found.push(`table position: ${position?.eventId ?? 'none'}`);
  }
  return found;
}

function tableHoldsPlan(state: AccountState, set: ThingSet): boolean {
  return set.kind === 'plan' && state.tableEdition === set.edition;
}

function records(state: AccountState, resource: string): Array<Record<string, unknown>> {
  return state.install[resource] ?? [];
}

function customFieldValues(state: AccountState, employeeId: number, apiName: string): unknown[] {
  const employee = records(state, 'Employee').find((record) => record['Id'] === employeeId);
  const data = records(state, 'CustomFieldData').find(
    (record) => record['Id'] === employee?.['CustomFieldData'],
  );
  if (data === undefined) return [];
  return Object.entries(data)
    .filter(([field, value]) => /^F\d{2,3}$/.test(field) && String(value).split('|')[0] === apiName)
    .map(([, value]) => value);
}

function activeAgreements(state: AccountState, employeeId: number) {
  return records(state, 'EmployeeAgreement')
    .filter((agreement) => agreement['EmployeeId'] === employeeId && agreement['Active'] === true)
    .map((agreement) => ({
      awardCode: records(state, 'EmploymentContract').find(
        (contract) => contract['Id'] === agreement['Contract'],
      )?.['AwardCode'],
      baseRate: agreement['BaseRate'],
    }));
}

function metricOf(state: AccountState, set: Extract<ThingSet, { kind: 'budgetCell' }>) {
  return records(state, 'Metric').find(
    (metric) =>
      metric['location'] === set.locationId &&
      metric['area'] === set.areaId &&
      (metric['type'] === 'budget_wage') === set.wage &&
      String(metric['timestamp']) === String(set.timestamp),
  );
}

function serviceHolds(state: AccountState, set: ThingSet): boolean {
  switch (set.kind) {
    case 'plan':
      return state.serviceEdition === undefined || state.serviceEdition === set.edition;
    case 'customField': {
      const values = customFieldValues(state, set.employeeId, set.apiName);
      return values.length > 0 && values.every((value) => value === set.value);
    }
    case 'regularHours': {
      const held = records(state, 'AgreedHour').find((record) => record['Employee'] === set.employeeId);
      const hours = held?.['agreedHour'];
      return (
        typeof hours === 'object' &&
        hours !== null &&
        hoursSignature(hours as Record<string, unknown>) === set.hours
      );
    }
    case 'payRate': {
      const active = activeAgreements(state, set.employeeId);
      return (
        active.length === 1 &&
        active[0]?.awardCode === set.awardCode &&
        active[0]?.baseRate === set.hourlyRate
      );
    }
    case 'leaveBalance': {
      const held = records(state, 'LeaveAccrual').filter(
        (accrual) => accrual['Employee'] === set.employeeId && accrual['LeaveRule'] === set.leaveRuleId,
      );
      return held.length === 1 && held[0]?.['Hours'] === set.hours;
    }
    case 'budgetCell': {
      const metric = metricOf(state, set);
      return (
        metric !== undefined &&
        metric['value'] === set.value &&
        (metric['reference'] ?? null) === set.reference
      );
    }
    case 'location': {
      const locations = records(state, 'Location').filter((location) => location['CompanyName'] === set.name);
      return (
        locations.length > 0 &&
        locations.every((location) =>
          set.areaNames.every((name) =>
            records(state, 'Area').some(
              (area) => area['Company'] === location['Id'] && area['OperationalUnitName'] === name,
            ),
          ),
        )
      );
    }
  }
}

/** What the service holds for the thing `set` names, for the violation's description. */
function serviceValue(state: AccountState, set: ThingSet): string {
  switch (set.kind) {
    case 'plan':
      return state.serviceEdition ?? 'not observed';
    case 'customField':
      return JSON.stringify(customFieldValues(state, set.employeeId, set.apiName));
    case 'regularHours': {
      const held = records(state, 'AgreedHour').find((record) => record['Employee'] === set.employeeId);
      const hours = held?.['agreedHour'];
      return typeof hours === 'object' && hours !== null
        ? hoursSignature(hours as Record<string, unknown>)
        : 'none';
    }
    case 'payRate':
      return JSON.stringify(activeAgreements(state, set.employeeId));
    case 'leaveBalance':
      return JSON.stringify(
        records(state, 'LeaveAccrual')
          .filter(
            (accrual) => accrual['Employee'] === set.employeeId && accrual['LeaveRule'] === set.leaveRuleId,
          )
          .map((accrual) => accrual['Hours']),
      );
    case 'budgetCell': {
      const metric = metricOf(state, set);
      return metric === undefined ? 'none' : `${String(metric['value'])} (${String(metric['reference'])})`;
    }
    case 'location':
      return `${records(state, 'Location').filter((location) => location['CompanyName'] === set.name).length} location(s) named ${set.name}`;
  }
}

function describeSet(set: ThingSet): string {
  switch (set.kind) {
    case 'plan':
      return set.edition;
    case 'customField':
      return set.value;
    case 'regularHours':
      return set.hours;
    case 'payRate':
      return `${set.awardCode} ${set.hourlyRate}`;
    case 'leaveBalance':
      return String(set.hours);
    case 'budgetCell':
      return `${set.value} (${set.reference ?? 'no reference'}) at ${set.timestamp}`;
    case 'location':
      return `${set.name} [${set.areaNames.join(', ')}]`;
  }
}
