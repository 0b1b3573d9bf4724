import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { instantKey } from '#functions/contracts/date-time.ts';
import { getBusiness } from '#functions/store/business.ts';
import { getLocation } from '#functions/store/locations.ts';
import { readPositions } from '#functions/store/positions.ts';
import { listSlots } from '#functions/store/slots.ts';
import {
  type InstallRecords,
  installRecords,
  provisionedInstall,
  simpleHours,
} from '#test/flows/install/install-support.ts';
import {
  inboundEvent,
  type PublishedEvent,
  sandboxBusinessOf,
  sqsFifoBatch,
  US_BILLING_ADDRESS,
  useFlowHarness,
} from '#test/flows/support/harness.ts';

/**
 * Last writer wins per thing (issue 25): random sequences of one account's events — plan changes,
 * changes of one employee with overlapping fields, budgets on overlapping days, a location and its
 * budgets — are delivered through the REAL handlers in every order fast-check draws, with repeats,
 * and then:
 *
 * - the service (the sandbox's control API) and the table hold what applying only the newest event
 *   per thing (by occurredAt, then event id) gives — the model below, computed from the events;
 * - every event that first arrived after a newer event on one of its things got exactly one
 *   SyncSkipped SUPERSEDED naming exactly those things (a repeat of it none more), no other event got
 *   one, and every event with a thing left to set got its usual result event once.
 *
 * A budget on the location the sequence creates needs that location's id, which exists only once
 * a LocationCreated of it applied: such a budget drawn before the first LocationCreated is held
 * back until right after it, as the connector holds back an event waiting for its location.
 */

// Against the sandbox as the spec reads (its default).
const flow = useFlowHarness();

const EMPLOYEE = 2;
const API_NAMES = ['lwwBadge', 'lwwLocker', 'lwwShirt'] as const;
const LEAVE_RULES = [1, 2, 3] as const;
const DAYS = ['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04'] as const;
const SEEDED_LOCATION = { locationId: 1, areaId: 1 } as const;
const LOCATION_REF = 'loc-lww';
const LOCATION_NAME = 'LWW Corner';
const AREA_NAMES = ['Area A', 'Area B', 'Area C'] as const;
const AWARD_CODE = 'RetailAssoc2024x';

// ---------------------------------------------------------------------------------------------
// What is generated

type PlanSpec = { kind: 'plan'; plan: 'PREMIUM' | 'FREE' };
type EmployeeSpec = {
  kind: 'employee';
  customFields: Partial<Record<(typeof API_NAMES)[number], string>>;
  threshold?: number;
  hourlyRate?: number;
  leave: Array<{ leaveRuleId: number; hours: number }>;
};
type BudgetSpec = {
  kind: 'budget';
  location: 'seeded' | 'created';
  withArea: boolean;
  days: Array<{ date: string; value: number }>;
};
type LocationSpec = { kind: 'location' };
type Spec = PlanSpec | EmployeeSpec | BudgetSpec | LocationSpec;

interface Timing {
  /** Seconds after the run's base time: few values, so ties (decided by event id) happen. */
  second: number;
  half: boolean;
  /** Without occurredAt the envelope time (whole seconds) stands in. */
  withOccurredAt: boolean;
}

interface Scenario {
  specs: Spec[];
  ids: string[];
  timings: Timing[];
  /** Indexes of specs in first-draw order (a permutation). */
  permutation: number[];
  /** Extra deliveries of an event (same id), inserted at a position of the sequence. */
  repeats: Array<{ index: number; at: number }>;
}

const planArb: fc.Arbitrary<PlanSpec> = fc.record({
  kind: fc.constant('plan' as const),
  plan: fc.constantFrom('PREMIUM' as const, 'FREE' as const),
});

const employeeArb: fc.Arbitrary<EmployeeSpec> = fc
  .record({
    kind: fc.constant('employee' as const),
    customFields: fc.record(
      Object.fromEntries(
        API_NAMES.map((name) => [name, fc.constantFrom('red', 'green', 'blue', '')]),
      ) as Record<(typeof API_NAMES)[number], fc.Arbitrary<string>>,
      { requiredKeys: [] },
    ),
    threshold: fc.option(fc.integer({ min: 10, max: 40 }), { nil: undefined }),
    hourlyRate: fc.option(fc.integer({ min: 15, max: 45 }), { nil: undefined }),
    leave: fc.uniqueArray(
      fc.record({ leaveRuleId: fc.constantFrom(...LEAVE_RULES), hours: fc.integer({ min: 0, max: 80 }) }),
      { maxLength: 2, selector: (balance) => balance.leaveRuleId },
    ),
  })
  .filter(
    (spec) =>
      Object.keys(spec.customFields).length > 0 ||
      spec.threshold !== undefined ||
      spec.hourlyRate !== undefined ||
      spec.leave.length > 0,
  )
  .map((spec) => {
    // fc.option leaves the key present; the detail must not carry undefined parts.
    const { threshold, hourlyRate, ...rest } = spec;
    return {
      ...rest,
      ...(threshold === undefined ? {} : { threshold }),
      ...(hourlyRate === undefined ? {} : { hourlyRate }),
    };
  });

const budgetArb = (location: 'seeded' | 'created'): fc.Arbitrary<BudgetSpec> =>
  fc.record({
    kind: fc.constant('budget' as const),
    location: fc.constant(location),
    withArea: fc.boolean(),
    days: fc.uniqueArray(
      fc.record({ date: fc.constantFrom(...DAYS), value: fc.integer({ min: 100, max: 5000 }) }),
      { minLength: 1, maxLength: 3, selector: (day) => day.date },
    ),
  });

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .tuple(
    fc.array(planArb, { maxLength: 3 }),
    fc.array(employeeArb, { minLength: 1, maxLength: 4 }),
    fc.array(budgetArb('seeded'), { minLength: 1, maxLength: 3 }),
    fc.integer({ min: 1, max: 3 }),
    fc.array(budgetArb('created'), { maxLength: 2 }),
  )
  .map(([plans, employees, budgets, locationVersions, locationBudgets]) => [
    ...plans,
    ...employees,
    ...budgets,
    ...Array.from({ length: locationVersions }, (): LocationSpec => ({ kind: 'location' })),
    ...locationBudgets,
  ])
  .chain((specs) => {
    const n = specs.length;
    const indexes = Array.from({ length: n }, (_, index) => index);
    return fc.record({
      specs: fc.constant(specs),
      ids: fc.uniqueArray(fc.uuid({ version: 4 }), { minLength: n, maxLength: n }),
      timings: fc.array(
        fc.record({
          second: fc.integer({ min: 1, max: 6 }),
          half: fc.boolean(),
          // Mostly with occurredAt, as a partner should send; some without, to order by the envelope time.
          withOccurredAt: fc.integer({ min: 0, max: 4 }).map((roll) => roll > 0),
        }),
        { minLength: n, maxLength: n },
      ),
      permutation: fc.shuffledSubarray(indexes, { minLength: n, maxLength: n }),
      repeats: fc.array(fc.record({ index: fc.nat({ max: n - 1 }), at: fc.nat({ max: n }) }), {
        maxLength: 3,
      }),
    });
  });

// ---------------------------------------------------------------------------------------------
// The events, their things and the model

interface Planned {
  index: number;
  id: string;
  spec: Spec;
  detailType: 'PlanChosen' | 'EmployeeChanged' | 'BudgetSet' | 'LocationCreated';
  functionName: string;
  /** The envelope time, and occurredAt when the event carries one. */
  time: string;
  occurredAt?: string;
  /** instantKey(occurredAt ?? time), then id: the order the connector must keep. */
  key: string;
  /** thing → its field name in SyncSkipped. */
  things: Map<string, string>;
  /** LocationCreated: the areas it lists (more for newer versions). */
  areas?: string[];
}

const ROUTES = {
  plan: ['PlanChosen', 'change-plan'],
  employee: ['EmployeeChanged', 'sync-employee'],
  budget: ['BudgetSet', 'save-budget'],
  location: ['LocationCreated', 'provision-location'],
} as const;

function budgetThing(spec: BudgetSpec, date: string): string {
  return `budget:${spec.location}:${spec.withArea ? 'area' : '-'}:${date}`;
}

function thingsOf(spec: Spec): Map<string, string> {
  switch (spec.kind) {
    case 'plan':
      return new Map([['plan', 'plan']]);
    case 'location':
      return new Map([['location', 'location']]);
    case 'budget':
      return new Map(spec.days.map((day) => [budgetThing(spec, day.date), `days[date=${day.date}]`]));
    case 'employee': {
      const things = new Map<string, string>();
      for (const apiName of Object.keys(spec.customFields))
        things.set(`cf:${apiName}`, `customFields.${apiName}`);
      if (spec.threshold !== undefined) things.set('regularHours', 'regularHours');
      if (spec.hourlyRate !== undefined) things.set('payRate', 'payRate');
      for (const { leaveRuleId } of spec.leave)
        things.set(`leave:${leaveRuleId}`, `leaveBalances[leaveRuleId=${leaveRuleId}]`);
      return things;
    }
  }
}

function plan(scenario: Scenario, baseMs: number): Planned[] {
  const planned = scenario.specs.map((spec, index): Planned => {
    const timing = scenario.timings[index] as Timing;
    const id = scenario.ids[index] as string;
    const ms = baseMs + timing.second * 1000 + (timing.withOccurredAt && timing.half ? 500 : 0);
    const at = new Date(ms).toISOString();
    const time = timing.withOccurredAt
      ? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')
      : at.replace(/\.\d{3}Z$/, 'Z');
    const [detailType, functionName] = ROUTES[spec.kind];
    return {
      index,
      id,
      spec,
      detailType,
      functionName,
      time,
      ...(timing.withOccurredAt ? { occurredAt: at } : {}),
      key: `${instantKey(timing.withOccurredAt ? at : time)}|${id}`,
      things: thingsOf(spec),
    };
  });
  // A location only gains areas: its newer versions list more of them (the service can only add).
  const locations = planned.filter((event) => event.spec.kind === 'location').sort(byKey);
  for (const [rank, location] of locations.entries()) location.areas = AREA_NAMES.slice(0, rank + 1);
  return planned;
}

const byKey = (a: Planned, b: Planned) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** The delivery sequence: the permutation with the repeats put in, budgets of the location after it. */
function deliveries(scenario: Scenario, planned: Planned[]): Planned[] {
  const sequence = scenario.permutation.map((index) => planned[index] as Planned);
  for (const repeat of scenario.repeats) {
    sequence.splice(Math.min(repeat.at, sequence.length), 0, planned[repeat.index] as Planned);
  }
  const firstLocation = sequence.findIndex((event) => event.spec.kind === 'location');
  const early = sequence
    .slice(0, firstLocation)
    .filter((event) => event.spec.kind === 'budget' && event.spec.location === 'created');
  const rest = sequence.filter((event, position) => !(position < firstLocation && early.includes(event)));
  const at = rest.findIndex((event) => event.spec.kind === 'location') + 1;
  rest.splice(at, 0, ...early);
  return rest;
}

interface Expectation {
  /** event id → the SyncSkipped things it must list (absent: no SyncSkipped). */
  superseded: Map<string, Set<string>>;
  /** event id → how many usual result events it must have. */
  results: Map<string, number>;
  /** thing → the newest event on it. */
  newest: Map<string, Planned>;
}

function expect_(sequence: Planned[], planned: Planned[]): Expectation {
  const superseded = new Map<string, Set<string>>();
  const results = new Map<string, number>();
  const arrived: Planned[] = [];
  for (const event of sequence) {
    if (arrived.includes(event)) continue;
    const older = new Set<string>();
    for (const [thing, field] of event.things) {
      if (arrived.some((earlier) => earlier.things.has(thing) && earlier.key > event.key)) older.add(field);
    }
    arrived.push(event);
    if (older.size > 0) superseded.set(event.id, older);
    const applies = older.size < event.things.size;
    // A plan the business already has is confirmed and answered too (PlanChanged alreadyOnPlan).
    const result = applies ? 1 : 0;
    results.set(event.id, result);
  }
  const newest = new Map<string, Planned>();
  for (const event of planned) {
    for (const thing of event.things.keys()) {
      const held = newest.get(thing);
      if (held === undefined || event.key > held.key) newest.set(thing, event);
    }
  }
  return { superseded, results, newest };
}

// ---------------------------------------------------------------------------------------------
// Delivering

interface Install {
  accountId: string;
  hostname: string;
}

async function createdLocationIds(install: Install): Promise<{ locationId: number; areaId: number }> {
  const location = await getLocation(flow.store, install.hostname, LOCATION_REF);
  const areaId = location?.areas[AREA_NAMES[0]]?.areaId;
  if (location?.locationId === undefined || areaId === undefined) {
    throw new Error(`the location ${LOCATION_REF} is not created yet: ${JSON.stringify(location)}`);
  }
  return { locationId: location.locationId, areaId };
}

async function detailOf(event: Planned, install: Install): Promise<Record<string, unknown>> {
  const base = {
    accountId: install.accountId,
    ...(event.occurredAt ? { occurredAt: event.occurredAt } : {}),
  };
  const { spec } = event;
  switch (spec.kind) {
    case 'plan':
      return {
        ...base,
        plan: spec.plan,
        ...(spec.plan === 'PREMIUM' ? { billingAddress: US_BILLING_ADDRESS } : {}),
      };
    case 'employee':
      return {
        ...base,
        employeeId: EMPLOYEE,
        ...(Object.keys(spec.customFields).length > 0 ? { customFields: spec.customFields } : {}),
        ...(spec.threshold === undefined ? {} : { regularHours: simpleHours(spec.threshold) }),
        ...(spec.hourlyRate === undefined
          ? {}
          : { payRate: { awardCode: AWARD_CODE, countryCode: 'us', hourlyRate: spec.hourlyRate } }),
        ...(spec.leave.length > 0 ? { leaveBalances: spec.leave } : {}),
      };
    case 'budget': {
      const ids = spec.location === 'seeded' ? SEEDED_LOCATION : await createdLocationIds(install);
      return {
        ...base,
        locationId: ids.locationId,
        ...(spec.withArea ? { areaId: ids.areaId } : {}),
        kind: 'WAGE',
        timeZone: 'UTC',
        days: spec.days,
      };
    }
    case 'location':
      return {
        ...base,
        locationRef: LOCATION_REF,
        name: LOCATION_NAME,
        code: 'LWW',
        areas: (event.areas ?? []).map((name) => ({ name })),
      };
  }
}

async function deliverAll(sequence: Planned[], install: Install): Promise<void> {
  const details = new Map<string, Record<string, unknown>>();
  const seen = new Set<string>();
  for (const event of sequence) {
    let detail = details.get(event.id);
    if (detail === undefined) {
      detail = await detailOf(event, install);
      details.set(event.id, detail);
    }
    const batch = sqsFifoBatch([inboundEvent(event.detailType, detail, { id: event.id, time: event.time })], {
      // A repeat is SQS delivering the message again.
      receiveCount: seen.has(event.id) ? 2 : 1,
    });
    seen.add(event.id);
    const response = await flow.invokeBatch(event.functionName, batch);
    if (response.batchItemFailures.length > 0) {
      throw new Error(
        `${event.detailType} ${event.id} failed: ${JSON.stringify(flow.publishedFor(install.accountId))}`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Reading the service and the table

function metricValue(records: InstallRecords, locationId: number, areaId: number, date: string): unknown {
  const timestamp = String(Date.parse(`${date}T00:00:00Z`) / 1000);
  return (records['Metric'] ?? []).find(
    (metric) =>
      metric['location'] === locationId &&
      (metric['area'] ?? 0) === areaId &&
      String(metric['timestamp']) === timestamp &&
      metric['type'] === 'budget_wage',
  )?.['value'];
}

async function checkState(install: Install, expected: Expectation): Promise<void> {
  const records = await installRecords(flow, install.hostname);
  const business = await sandboxBusinessOf(flow, install.accountId);
  const table = await getBusiness(flow.store, install.accountId);
  const slots = new Map(
    (await listSlots(flow.store, install.hostname, 'Employee')).map((entry) => [entry.apiName, entry.slot]),
  );
  const employee = (records['Employee'] ?? []).find((candidate) => candidate['Id'] === EMPLOYEE);
  const customFields = (records['CustomFieldData'] ?? []).find(
    (record) => record['Id'] === employee?.['CustomFieldData'],
  );
  const created = expected.newest.has('location') ? await createdLocationIds(install) : undefined;

  for (const [thing, event] of expected.newest) {
    const { spec } = event;
    if (spec.kind === 'plan') {
      const edition = spec.plan === 'PREMIUM' ? 'SUBSCRIPTION_PAID_PRO_PREMIUM' : 'SUBSCRIPTION_FREE';
      expect(
        business.map((held) => held.edition),
        thing,
      ).toEqual([edition]);
      expect(table?.edition, thing).toBe(edition);
    } else if (spec.kind === 'employee') {
      if (thing.startsWith('cf:')) {
        const apiName = thing.slice(3) as (typeof API_NAMES)[number];
        const slot = slots.get(apiName);
        expect(slot, thing).toBeDefined();
        expect(customFields?.[`F${String(slot).padStart(2, '0')}`], thing).toBe(spec.customFields[apiName]);
      } else if (thing === 'regularHours') {
        const hours = (records['AgreedHour'] ?? []).find((record) => record['Employee'] === EMPLOYEE);
        expect((hours?.['agreedHour'] as { threshold?: number } | undefined)?.threshold, thing).toBe(
          spec.threshold,
        );
      } else if (thing === 'payRate') {
        const active = (records['EmployeeAgreement'] ?? []).filter(
          (agreement) => agreement['EmployeeId'] === EMPLOYEE && agreement['Active'] === true,
        );
        expect(
          active.map((agreement) => agreement['BaseRate']),
          thing,
        ).toEqual([spec.hourlyRate]);
      } else {
        const leaveRuleId = Number(thing.slice('leave:'.length));
        const accruals = (records['LeaveAccrual'] ?? []).filter(
          (accrual) => accrual['Employee'] === EMPLOYEE && accrual['LeaveRule'] === leaveRuleId,
        );
        expect(
          accruals.map((accrual) => accrual['Hours']),
          thing,
        ).toEqual([spec.leave.find((balance) => balance.leaveRuleId === leaveRuleId)?.hours]);
      }
    } else if (spec.kind === 'budget') {
      const date = thing.split(':')[3] as string;
      const ids =
        spec.location === 'seeded' ? SEEDED_LOCATION : (created as { locationId: number; areaId: number });
      const value = spec.days.find((day) => day.date === date)?.value;
      expect(metricValue(records, ids.locationId, spec.withArea ? ids.areaId : 0, date), thing).toBe(value);
    } else {
      const locations = (records['Location'] ?? []).filter(
        (record) => record['CompanyName'] === LOCATION_NAME,
      );
      expect(locations, thing).toHaveLength(1);
      const areas = (records['Area'] ?? [])
        .filter((area) => area['Company'] === locations[0]?.['Id'])
        .map((area) => area['OperationalUnitName']);
      expect([...areas].sort(), thing).toEqual([...(event.areas ?? [])].sort());
      const recorded = await getLocation(flow.store, install.hostname, LOCATION_REF);
      expect(Object.keys(recorded?.areas ?? {}).sort(), thing).toEqual([...(event.areas ?? [])].sort());
    }
  }

  // The table: every thing's position is its newest event's.
  const storeKey = (thing: string): string => {
    if (thing === 'plan') return 'plan';
    if (thing === 'location') return `location#${LOCATION_REF}`;
    if (thing === 'regularHours' || thing === 'payRate') return `employee#${EMPLOYEE}#${thing}`;
    if (thing.startsWith('cf:')) return `employee#${EMPLOYEE}#customField#${thing.slice(3)}`;
    if (thing.startsWith('leave:')) return `employee#${EMPLOYEE}#leaveBalance#${thing.slice(6)}`;
    const [, location, area, date] = thing.split(':');
    const ids = location === 'seeded' ? SEEDED_LOCATION : (created as { locationId: number; areaId: number });
    return `budget#${ids.locationId}#${area === 'area' ? ids.areaId : '-'}#WAGE#${date}`;
  };
  const keys = [...expected.newest.keys()].map(storeKey);
  const positions = await readPositions(flow.store, install.hostname, keys);
  for (const [thing, event] of expected.newest) {
    const [occurredAt] = event.key.split('|');
    expect(positions.get(storeKey(thing)), `position of ${thing}`).toEqual({ occurredAt, eventId: event.id });
  }
}

function checkPublished(install: Install, planned: Planned[], expected: Expectation): void {
  const published = flow.publishedFor(install.accountId);
  const skippedOf = (id: string): PublishedEvent[] =>
    published.filter((event) => event.detailType === 'SyncSkipped' && event.detail['sourceEventId'] === id);
  expect(published.filter((event) => event.detailType === 'SyncFailed')).toEqual([]);
  for (const event of planned) {
    const skipped = skippedOf(event.id);
    const things = expected.superseded.get(event.id);
    if (things === undefined) {
      expect(skipped, `no SyncSkipped for ${event.detailType} ${event.id}`).toEqual([]);
    } else {
      expect(skipped, `one SyncSkipped for ${event.detailType} ${event.id}`).toHaveLength(1);
      const listed = ((skipped[0]?.detail['things'] ?? []) as Array<{ thing: string }>).map(
        (entry) => entry.thing,
      );
      expect(new Set(listed), `things superseded in ${event.id}`).toEqual(things);
      expect(skipped[0]?.detail).toMatchObject({ code: 'SUPERSEDED', detailType: event.detailType });
    }
    const results = published.filter(
      (result) => result.detailType !== 'SyncSkipped' && result.detail['causationId'] === event.id,
    );
    expect(results, `result events of ${event.detailType} ${event.id}`).toHaveLength(
      expected.results.get(event.id) ?? 0,
    );
  }
}

// ---------------------------------------------------------------------------------------------

describe('last writer wins per thing, whatever order and however often events arrive', () => {
  it('leaves the newest event per thing in the service and the table, and one SyncSkipped per event that came after a newer one', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        // Prepare: a fresh install on the premium plan (so FREE and PREMIUM are both a change),
        // chosen before anything the run generates.
        const install = await provisionedInstall(flow, 'lww');
        const baseMs = Math.ceil(Date.now() / 1000) * 1000 + 3_600_000;
        await flow.invokeBatch(
          'change-plan',
          sqsFifoBatch([
            inboundEvent('PlanChosen', {
              accountId: install.accountId,
              plan: 'PREMIUM',
              billingAddress: US_BILLING_ADDRESS,
              occurredAt: new Date(baseMs).toISOString(),
            }),
          ]),
        );
        const planned = plan(scenario, baseMs);
        const sequence = deliveries(scenario, planned);

        // Act
        await deliverAll(sequence, install);

        // Assess
        const expected = expect_(sequence, planned);
        checkPublished(install, planned, expected);
        await checkState(install, expected);
      }),
      { numRuns: 8, seed: 25, endOnFailure: true },
    );
  }, 180_000);
});
