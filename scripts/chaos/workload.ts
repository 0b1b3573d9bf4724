import type { InboundDetailType } from '#functions/contracts/registry.ts';
import { type Random, seededRandom } from './random.ts';

/**
 * The events a chaos run sends, and what the run expects from them, written from the event
 * contract and the service spec — never from the connector's code, so a bug in a use case cannot
 * hide in the expectation.
 *
 * Shape of a run: every account starts with AccountCreated; then a mix of every other inbound
 * detail-type, ordered per account, with a few deliberately invalid events. Each valid follow-up
 * carries `occurredAt` in send order, as a partner's clock would give it; a tenth of those that set
 * state are corrected by the very next event (CORRECTION_RATE; the order test sends each correction
 * first, `correctionsFirst`, so there `occurredAt` follows `order`, not the send order). Values are chosen so
 * the sandbox's state can be attributed back to events: each custom field value names its apiName
 * and the event that wrote it, each location name names its locationRef.
 */

export interface WorkloadOptions {
  readonly events: number;
  readonly accounts: number;
  readonly seed: number;
  /** Fraction of follow-up events made invalid on purpose. @default 0.03 */
  readonly invalidRate?: number;
  /** Fraction of PlanChosen, EmployeeChanged and BudgetSet corrected at once (CORRECTION_RATE). @default 0.1 */
  readonly correctionRate?: number;
  /**
   * Each correction is sent just before the event it corrects (its `occurredAt` still the later):
   * a delivery out of order made certain, for the test that shows the order check is not blind.
   * @default false
   */
  readonly correctionsFirst?: boolean;
}

/**
 * Share of the follow-ups that set state (PlanChosen, EmployeeChanged, BudgetSet) that the partner
 * corrects at once: the next event sent sets the same things again with other values (the same
 * employee fields, the same budget days, the plan chosen again), with a later `occurredAt`. Sent
 * one after the other, the two travel in one PutEvents call or two calls in a row, where the local
 * runtime's delivery model (as AWS) may deliver the correction first: the order check has such
 * pairs to judge. Events of one thing sent further apart are seldom in flight together, so
 * without corrections a run hardly ever reorders two events of one thing.
 */
export const CORRECTION_RATE = 0.1;

/** What the contract says must happen to an event. */
export type Expectation =
  /** Valid: applied (result event) or, for a business rule, SyncFailed with the service's reason. */
  | { readonly kind: 'valid' }
  /** Invalid detail: SyncFailed INVALID_DETAIL naming `field`, no service write. */
  | { readonly kind: 'invalid'; readonly field: string }
  /** No route can take it (no usable accountId, unknown detail-type): the refusal rule's SyncFailed. */
  | {
      readonly kind: 'refused';
      readonly code: 'MISSING_ACCOUNT_ID' | 'INVALID_ACCOUNT_ID' | 'UNKNOWN_DETAIL_TYPE';
    };

export interface ChaosEvent {
  /** Order of creation, unique in the run: the send order, except a correction sent first (`correctionsFirst`). */
  readonly order: number;
  /** The account the event belongs to (also for an event whose detail lacks accountId). */
  readonly account: string;
  /** An inbound detail-type, or on purpose one no route handles. */
  readonly detailType: InboundDetailType | 'AccountDeleted';
  readonly detail: Record<string, unknown>;
  readonly expectation: Expectation;
}

export interface PlannedLocation {
  readonly locationRef: string;
  readonly name: string;
  /** Areas the location must end with (the default area is named like the location). */
  readonly areaNames: readonly string[];
}

export interface AccountPlan {
  readonly accountId: string;
  readonly businessName: string;
  readonly ownerEmail: string;
  readonly ownerMobile: string;
  readonly locations: ReadonlyMap<string, PlannedLocation>;
}

export interface Workload {
  readonly accounts: readonly AccountPlan[];
  /** Phase 1: one AccountCreated per account. */
  readonly creations: readonly ChaosEvent[];
  /** Phase 2: everything else, ordered within each account, interleaved across accounts. */
  readonly followUps: readonly ChaosEvent[];
  /** apiNames the run writes; each value is `${apiName}|${order}`. */
  readonly customFieldNames: readonly string[];
}

const CUSTOM_FIELD_NAMES = [
  'chaosBadge',
  'chaosLocker',
  'chaosShirtSize',
  'chaosVehicle',
  'chaosLanguage',
  'chaosUnionId',
  'chaosTraining',
  'chaosRoster',
] as const;

/** Seeded install data of the sandbox (sandbox/README.md): employees, locations/areas, timesheets. */
const EMPLOYEE_IDS = [1, 2, 3, 4, 5] as const;
const SEEDED_LOCATION_AREAS = [
  { locationId: 1, areaId: 1 },
  { locationId: 2, areaId: 2 },
] as const;
const TIMESHEET_IDS = [1001, 1002, 1003, 1004] as const;
const AWARD_CODES = ['RetailAssoc2024x', 'HospServer2024b', 'WhseOps2024Q3'] as const;
const LEAVE_RULE_IDS = [1, 2, 3, 4] as const;

type FollowUpType = Exclude<InboundDetailType, 'AccountCreated'>;
const FOLLOW_UP_WEIGHTS: ReadonlyArray<readonly [FollowUpType, number]> = [
  ['PlanChosen', 10],
  ['EmployeeChanged', 35],
  ['LocationCreated', 15],
  ['BudgetSet', 15],
  ['PayReturnsRequested', 12],
  ['SubscriptionStatusRequested', 13],
];

function chaosAccountId(seed: number, index: number): string {
  return `chaos-${seed}-${String(index).padStart(4, '0')}`;
}

export function buildWorkload(options: WorkloadOptions): Workload {
  if (!Number.isInteger(options.accounts) || options.accounts < 1)
    throw new RangeError('accounts must be ≥ 1');
  if (!Number.isInteger(options.events) || options.events < options.accounts) {
    throw new RangeError('events must be an integer ≥ accounts (every account starts with AccountCreated)');
  }
  const random = seededRandom(options.seed);
  const invalidRate = options.invalidRate ?? 0.03;
  const correctionRate = options.correctionRate ?? CORRECTION_RATE;
  let order = 0;
  const accounts: Array<AccountPlan & { locations: Map<string, PlannedLocation>; plan: 'PREMIUM' | 'FREE' }> =
    [];
  const creations: ChaosEvent[] = [];
  for (let index = 1; index <= options.accounts; index++) {
    const accountId = chaosAccountId(options.seed, index);
    const businessName = `Chaos Shop ${options.seed} ${index}`;
    const ownerEmail = `owner.${options.seed}.${index}@chaos-owners.example`;
    const ownerMobile = `+1 415 ${String(200 + (index % 700)).padStart(3, '0')} ${String(1000 + index).slice(-4)}`;
    accounts.push({
      accountId,
      businessName,
      ownerEmail,
      ownerMobile,
      locations: new Map(),
      // Most accounts convert first; some ask to cancel a trial, which the service refuses.
      plan: random.chance(0.8) ? 'PREMIUM' : 'FREE',
    });
    creations.push({
      order: order++,
      account: accountId,
      detailType: 'AccountCreated',
      detail: {
        accountId,
        businessName,
        owner: {
          firstName: 'Chaos',
          lastName: `Owner${index}`,
          email: ownerEmail,
          mobileNumber: ownerMobile,
        },
        estimatedEmployeeCount: random.int(1, 200),
        region: 'US',
      },
      expectation: { kind: 'valid' },
    });
  }

  const followUps: ChaosEvent[] = [];
  const totalWeight = FOLLOW_UP_WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);
  for (let n = options.accounts; n < options.events; n++) {
    const account = random.pick(accounts);
    if (random.chance(invalidRate)) {
      followUps.push({
        ...invalidEvent(random, account.accountId),
        order: order++,
        account: account.accountId,
      });
      continue;
    }
    let roll = random.next() * totalWeight;
    let detailType: FollowUpType = 'SubscriptionStatusRequested';
    for (const [type, weight] of FOLLOW_UP_WEIGHTS) {
      roll -= weight;
      if (roll < 0) {
        detailType = type;
        break;
      }
    }
    const current = order++;
    const detail = validDetail(random, detailType, account, current);
    followUps.push({
      order: current,
      account: account.accountId,
      detailType,
      detail: { ...detail, occurredAt: occurredAtOf(current) },
      expectation: { kind: 'valid' },
    });
    if (n + 1 < options.events && CORRECTED.has(detailType) && random.chance(correctionRate)) {
      n++;
      const next = order++;
      const corrected: ChaosEvent = {
        order: next,
        account: account.accountId,
        detailType,
        detail: { ...correction(random, detailType, detail, account, next), occurredAt: occurredAtOf(next) },
        expectation: { kind: 'valid' },
      };
      if (options.correctionsFirst) followUps.splice(followUps.length - 1, 0, corrected);
      else followUps.push(corrected);
    }
  }
  return {
    accounts: accounts.map(({ plan: _plan, ...plan }) => plan),
    creations,
    followUps,
    customFieldNames: CUSTOM_FIELD_NAMES,
  };
}

function validDetail(
  random: Random,
  detailType: FollowUpType,
  account: { accountId: string; locations: Map<string, PlannedLocation>; plan: 'PREMIUM' | 'FREE' },
  order: number,
): Record<string, unknown> {
  const { accountId } = account;
  switch (detailType) {
    case 'PlanChosen': {
      const plan = account.plan;
      // Alternating keeps every choice a real change while the earlier ones applied.
      account.plan = plan === 'PREMIUM' ? 'FREE' : 'PREMIUM';
      return plan === 'PREMIUM'
        ? { accountId, plan, billingAddress: { address1: `${order} Market St`, state: 'CA', country: 'US' } }
        : { accountId, plan };
    }
    case 'EmployeeChanged':
      return employeeChange(random, accountId, order);
    case 'LocationCreated': {
      const known = [...account.locations.values()];
      // A partner re-sending a location it already sent (new event id): the store must reuse it.
      const resent = known.length > 0 && random.chance(0.15) ? random.pick(known) : undefined;
      const location = resent ?? plannedLocation(random, accountId, account.locations.size + 1);
      account.locations.set(location.locationRef, location);
      return locationDetail(accountId, location);
    }
    case 'BudgetSet': {
      const seeded = random.pick(SEEDED_LOCATION_AREAS);
      const first = Date.UTC(2026, 2, 1) + random.int(0, 60) * 86_400_000;
      const days = Array.from({ length: random.int(1, 7) }, (_, day) => ({
        date: new Date(first + day * 86_400_000).toISOString().slice(0, 10),
        value: random.int(100, 5000),
      }));
      return {
        accountId,
        locationId: seeded.locationId,
        ...(random.chance(0.5) ? { areaId: seeded.areaId } : {}),
        kind: random.chance(0.7) ? 'WAGE' : 'HOURS',
        timeZone: random.pick(['UTC', 'America/New_York', 'America/Los_Angeles']),
        days,
        reference: `chaos-${order}`,
      };
    }
    case 'PayReturnsRequested': {
      const count = random.int(1, TIMESHEET_IDS.length);
      return { accountId, timesheetIds: TIMESHEET_IDS.slice(0, count) };
    }
    case 'SubscriptionStatusRequested':
      return { accountId };
    // Reads without side effects, not drawn (FOLLOW_UP_WEIGHTS): there is nothing for the model to check.
    case 'PayRatesRequested':
      return { accountId, employeeIds: [random.pick(EMPLOYEE_IDS)] };
    case 'ReferenceDataRequested':
      return { accountId, kinds: ['COUNTRIES', 'STATES'] };
    case 'RecordsRequested':
      return { accountId, resource: 'Employee', pageSize: random.int(1, 5) };
    // Not drawn either (FOLLOW_UP_WEIGHTS): the order model has no state for definitions or bulk pay rates yet.
    case 'TimesheetFieldsDefined':
      return {
        accountId,
        fields: [{ apiName: `chaosField${random.int(1, 3)}`, name: 'Chaos question', type: 4 }],
      };
    case 'PayRateAssigned':
      return {
        accountId,
        employeeIds: [...EMPLOYEE_IDS],
        awardCode: 'RetailAssoc2024x',
        countryCode: 'US',
        overrides: [{ hourlyRate: random.int(15, 45) }],
      };
  }
}

const CORRECTED: ReadonlySet<FollowUpType> = new Set(['PlanChosen', 'EmployeeChanged', 'BudgetSet']);

/** The same things as `previous` sets, each with another value (CORRECTION_RATE). */
function correction(
  random: Random,
  detailType: FollowUpType,
  previous: Record<string, unknown>,
  account: { accountId: string; locations: Map<string, PlannedLocation>; plan: 'PREMIUM' | 'FREE' },
  order: number,
): Record<string, unknown> {
  if (detailType === 'PlanChosen') return validDetail(random, detailType, account, order);
  if (detailType === 'BudgetSet') {
    const days = previous['days'] as Array<{ date: string; value: number }>;
    return {
      ...previous,
      days: days.map((day) => ({ date: day.date, value: otherInt(random, 100, 5000, day.value) })),
      reference: `chaos-${order}`,
    };
  }
  const detail: Record<string, unknown> = {
    accountId: account.accountId,
    employeeId: previous['employeeId'],
  };
  const fields = previous['customFields'] as Record<string, string> | undefined;
  if (fields) {
    detail['customFields'] = Object.fromEntries(
      Object.keys(fields).map((name) => [name, customFieldValue(name, order)]),
    );
  }
  const hours = previous['regularHours'] as { threshold: number } | undefined;
  if (hours) detail['regularHours'] = { ...hours, threshold: otherInt(random, 10, 40, hours.threshold) };
  const payRate = previous['payRate'] as { hourlyRate: number } | undefined;
  if (payRate) detail['payRate'] = { ...payRate, hourlyRate: otherInt(random, 15, 45, payRate.hourlyRate) };
  const balances = previous['leaveBalances'] as Array<{ leaveRuleId: number; hours: number }> | undefined;
  if (balances) {
    detail['leaveBalances'] = balances.map((balance) => ({
      ...balance,
      hours: otherInt(random, 0, 120, balance.hours),
    }));
  }
  return detail;
}

/** An integer in [min, max] other than `not`, so a correction is always a change. */
function otherInt(random: Random, min: number, max: number, not: number): number {
  const value = random.int(min, max - 1);
  return value >= not ? value + 1 : value;
}

function employeeChange(random: Random, accountId: string, order: number): Record<string, unknown> {
  const detail: Record<string, unknown> = { accountId, employeeId: random.pick(EMPLOYEE_IDS) };
  const parts = new Set<string>();
  while (parts.size === 0) {
    if (random.chance(0.6)) parts.add('customFields');
    if (random.chance(0.3)) parts.add('regularHours');
    if (random.chance(0.3)) parts.add('payRate');
    if (random.chance(0.3)) parts.add('leaveBalances');
  }
  if (parts.has('customFields')) {
    const names = new Set<string>();
    const wanted = random.int(1, 3);
    while (names.size < wanted) names.add(random.pick(CUSTOM_FIELD_NAMES));
    detail['customFields'] = Object.fromEntries(
      [...names].map((name) => [name, customFieldValue(name, order)]),
    );
  }
  if (parts.has('regularHours')) {
    const start = Date.UTC(2026, 0, 5) + random.int(0, 20) * 7 * 86_400_000;
    detail['regularHours'] = {
      threshold: random.int(10, 40),
      applyThreshold: random.chance(0.5),
      workPeriod: {
        cycle: 'WEEKLY',
        dayOfWeek: 'MONDAY',
        startDate: isoSeconds(start),
        startCycleDate: isoSeconds(start),
        endCycleDate: isoSeconds(start + 7 * 86_400_000),
      },
      workingDaysPerCycle: 5,
      details: { weeks: [] },
    };
  }
  if (parts.has('payRate')) {
    detail['payRate'] = {
      awardCode: random.pick(AWARD_CODES),
      countryCode: 'us',
      hourlyRate: random.int(15, 45),
    };
  }
  if (parts.has('leaveBalances')) {
    detail['leaveBalances'] = [{ leaveRuleId: random.pick(LEAVE_RULE_IDS), hours: random.int(0, 120) }];
  }
  return detail;
}

/**
 * When the partner made the change: one millisecond per send position after a fixed start, so
 * `occurredAt` increases in the order the run publishes (the order of a partner's clock), and the
 * newest event per thing is the last one sent on it, whatever order the events arrive in.
 */
export function occurredAtOf(order: number): string {
  return new Date(OCCURRED_AT_START_MS + order).toISOString();
}

const OCCURRED_AT_START_MS = Date.parse('2026-01-01T00:00:00Z');

/** Values name their apiName and event, so the sandbox's slots can be attributed. */
export function customFieldValue(apiName: string, order: number): string {
  return `${apiName}|${order}`;
}

export function apiNameOfValue(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const [name, order] = value.split('|');
  return name !== undefined && order !== undefined && /^\d+$/.test(order) ? name : undefined;
}

function plannedLocation(random: Random, accountId: string, n: number): PlannedLocation {
  const locationRef = `loc-${accountId}-${n}`;
  const name = `Chaos Location ${accountId} ${n}`;
  const areaCount = random.int(0, 3);
  const areaNames = areaCount === 0 ? [name] : Array.from({ length: areaCount }, (_, i) => `Area ${i + 1}`);
  return { locationRef, name, areaNames };
}

function locationDetail(accountId: string, location: PlannedLocation): Record<string, unknown> {
  const defaultArea = location.areaNames.length === 1 && location.areaNames[0] === location.name;
  return {
    accountId,
    locationRef: location.locationRef,
    name: location.name,
    code: location.locationRef.slice(-8),
    ...(defaultArea ? {} : { areas: location.areaNames.map((name) => ({ name })) }),
  };
}

/** Invalid on purpose; each names the field the SyncFailed message must point at. */
function invalidEvent(
  random: Random,
  accountId: string,
): Pick<ChaosEvent, 'detailType' | 'detail' | 'expectation'> {
  const kind = random.int(0, 6);
  switch (kind) {
    case 0:
      return {
        detailType: 'EmployeeChanged',
        detail: { accountId, employeeId: 'seven', customFields: { chaosBadge: 'x' } },
        expectation: { kind: 'invalid', field: 'employeeId' },
      };
    case 1:
      return {
        detailType: 'LocationCreated',
        // An unknown field carrying an address: refused as a field, never used as one.
        detail: { accountId, locationRef: 'loc-invalid', name: 'Nowhere', hostname: 'evil.example.com' },
        expectation: { kind: 'invalid', field: 'hostname' },
      };
    case 2:
      return {
        detailType: 'BudgetSet',
        detail: {
          accountId,
          locationId: 1,
          kind: 'WAGE',
          days: [
            { date: '2026-03-01', value: 10 },
            { date: '2026-03-01', value: 20 },
          ],
        },
        expectation: { kind: 'invalid', field: 'days' },
      };
    case 3:
      return {
        detailType: 'PlanChosen',
        detail: { accountId, plan: 'GOLD' },
        expectation: { kind: 'invalid', field: 'plan' },
      };
    case 4:
      return {
        detailType: 'SubscriptionStatusRequested',
        detail: {},
        expectation: { kind: 'refused', code: 'MISSING_ACCOUNT_ID' },
      };
    case 5:
      return {
        detailType: 'SubscriptionStatusRequested',
        // No message group id can hold a space: only the refusal rule answers it.
        detail: { accountId: `${accountId} copy` },
        expectation: { kind: 'refused', code: 'INVALID_ACCOUNT_ID' },
      };
    default:
      return {
        detailType: 'AccountDeleted',
        detail: { accountId },
        expectation: { kind: 'refused', code: 'UNKNOWN_DETAIL_TYPE' },
      };
  }
}

function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
