import { describe, expect, it } from 'vitest';
import {
  type ChaosVerdict,
  judge,
  type Observations,
  runChecks,
  runPassed,
  verdictSummary,
} from '#scripts/chaos/verdict.ts';
import {
  buildWorkload,
  type ChaosEvent,
  customFieldValue,
  occurredAtOf,
  type Workload,
} from '#scripts/chaos/workload.ts';

/**
 * The chaos verdict on hand-made observations: each test breaks one guarantee the way a bug would
 * and checks that the verdict sees it, so a green chaos run cannot come from a blind checker.
 */

const workload: Workload = buildWorkload({
  events: 40,
  accounts: 2,
  seed: 5,
  invalidRate: 0,
});
const [first, second] = workload.accounts;
if (!first || !second) throw new Error('the workload has two accounts');

function sentEvents(): Map<string, ChaosEvent> {
  return new Map([...workload.creations, ...workload.followUps].map((event) => [`ev-${event.order}`, event]));
}

/** Observations of a flawless run: every event applied, one business per account, nothing else. */
function flawless(): Observations & { sent: Map<string, ChaosEvent> } {
  const sent = sentEvents();
  return {
    workload,
    sent,
    outbound: [...sent].map(([id, event]) => ({
      id: `out-${id}`,
      'detail-type': 'Result',
      detail: { causationId: id, accountId: event.account, edition: editionAfter(event) },
    })),
    deadLetters: [],
    businesses: workload.accounts.map((account, index) => ({
      hostname: `h${index}.us.sandbox.test`,
      externalId: account.accountId,
    })),
    installs: new Map(),
    requests: [{ time: '2026-01-01T00:00:00.000Z', method: 'POST', path: '/x', status: 200 }],
    tableBusinesses: new Map(
      workload.accounts.map((account, index) => [
        account.accountId,
        { status: 'ACTIVE', hostname: `h${index}.us.sandbox.test` },
      ]),
    ),
    tableSlots: new Map(),
    tablePositions: new Map(),
    redeliveries: 0,
    duplicatesDelivered: 0,
    delivery: { reordered: 0, redelivered: 0 },
  };
}

function editionAfter(event: ChaosEvent): string | undefined {
  if (event.detailType !== 'PlanChosen') return undefined;
  return event.detail['plan'] === 'PREMIUM' ? 'SUBSCRIPTION_PAID_PRO_PREMIUM' : 'SUBSCRIPTION_FREE';
}

describe('chaos verdict', () => {
  it('passes a run where every event was applied once', () => {
    // Act
    const verdict = judge(flawless());

    // Assess
    expect(verdict.lost).toBe(0);
    expect(verdict.duplicates.total).toBe(0);
    expect(verdict.applied).toBe(40);
    expect(verdict.mismatches).toEqual([]);
  });

  it('counts an event with no result, no SyncFailed and no dead letter as lost', () => {
    // Prepare
    const observed = flawless();
    const victim = [...observed.sent].find(([, event]) => event.detailType === 'BudgetSet')?.[0] ?? '';

    // Act
    const verdict = judge({
      ...observed,
      outbound: observed.outbound.filter((event) => event.detail['causationId'] !== victim),
    });

    // Assess
    expect(verdict.lost).toBe(1);
    expect(verdict.lostEvents[0]?.eventId).toBe(victim);
  });

  it('counts an event answered only with SyncSkipped SUPERSEDED as superseded, neither applied nor lost', () => {
    // Prepare: every day of a budget had a newer budget applied first.
    const observed = flawless();
    const victim = [...observed.sent].find(([, event]) => event.detailType === 'BudgetSet')?.[0] ?? '';
    const outbound = observed.outbound.filter((event) => event.detail['causationId'] !== victim);
    outbound.push({
      id: 'out-skipped',
      'detail-type': 'SyncSkipped',
      detail: {
        causationId: victim,
        sourceEventId: victim,
        code: 'SUPERSEDED',
        things: [{ thing: 'days[date=2026-03-01]', supersededBy: 'ev-newer' }],
      },
    });

    // Act
    const verdict = judge({ ...observed, outbound });

    // Assess
    expect(verdict).toMatchObject({ superseded: 1, lost: 0, applied: 39 });
    expect(verdictSummary(verdict, { rateLimit: null, wallTimeMs: 1000 })).toMatchObject({
      passed: true,
      superseded: 1,
    });
  });

  it('counts a dead-lettered or SyncFailed event as handled, by code', () => {
    // Prepare
    const observed = flawless();
    const [deadId, failedId] = [...observed.sent.keys()].slice(-2);
    const outbound = observed.outbound.filter(
      (event) => ![deadId, failedId].includes(String(event.detail['causationId'])),
    );

    // Act
    const verdict = judge({
      ...observed,
      outbound: [
        ...outbound,
        {
          id: 'sf',
          'detail-type': 'SyncFailed',
          detail: { sourceEventId: failedId, code: 'CANNOT_CANCEL', message: 'no' },
        },
      ],
      deadLetters: [{ queue: 'q', body: JSON.stringify({ id: deadId }) }],
    });

    // Assess
    expect(verdict.lost).toBe(0);
    expect(verdict.syncFailed).toEqual({ CANNOT_CANCEL: 1 });
    expect(verdict.deadLettered).toBe(1);
    expect(verdict.deadLetteredUnexpectedly).toBe(1);
    expect(verdict.gaveUpWithoutSyncFailed).toBe(1);
  });

  it('counts a kept record reported with SyncFailed RETRIES_EXHAUSTED as reported, not silent', () => {
    // Prepare
    const observed = flawless();
    const keptId = [...observed.sent.keys()].at(-1) as string;
    const outbound = observed.outbound.filter((event) => event.detail['causationId'] !== keptId);

    // Act
    const verdict = judge({
      ...observed,
      outbound: [
        ...outbound,
        {
          id: 'sf',
          'detail-type': 'SyncFailed',
          detail: { sourceEventId: keptId, code: 'RETRIES_EXHAUSTED', message: 'gave up' },
        },
      ],
      deadLetters: [{ queue: 'q', body: JSON.stringify({ event: { id: keptId } }) }],
    });

    // Assess
    expect(verdict.lost).toBe(0);
    expect(verdict.keptForRedrive).toBe(1);
    expect(verdict.gaveUpWithoutSyncFailed).toBe(0);
    expect(verdict.syncFailed).toEqual({ RETRIES_EXHAUSTED: 1 });
  });

  it('counts an event that gave up waiting for the business of an account whose AccountCreated was sent', () => {
    // Prepare: two events of the first account end RETRIES_EXHAUSTED, one because its business was not there.
    const observed = flawless();
    const [awaiting, otherCause] = [...observed.sent]
      .filter(([, event]) => event.account === first.accountId && event.detailType !== 'AccountCreated')
      .map(([id]) => id);
    const gaveUp = (id: string | undefined, lastCode: string) => ({
      id: `sf-${id}`,
      'detail-type': 'SyncFailed',
      detail: {
        sourceEventId: id,
        code: 'RETRIES_EXHAUSTED',
        message: `gave up after 5 attempt(s) over 5 receive(s); last error ${lastCode}: …`,
      },
    });

    // Act
    const verdict = judge({
      ...observed,
      outbound: [
        ...observed.outbound.filter(
          (event) => ![awaiting, otherCause].includes(String(event.detail['causationId'])),
        ),
        gaveUp(awaiting, 'BUSINESS_NOT_PROVISIONED'),
        gaveUp(otherCause, 'SERVICE_UNAVAILABLE'),
      ],
    });

    // Assess
    expect(verdict.syncFailed).toEqual({ RETRIES_EXHAUSTED: 2 });
    expect(verdict.gaveUpAwaitingBusiness).toBe(1);
    expect(runChecks(verdict, null)['gaveUpAwaitingBusiness']).toEqual({ value: 1, max: 0, passed: false });
  });

  it('counts a refused event as mishandled when a copy of it is still parked in a dead-letter queue, answered or not', () => {
    // Prepare: an event whose accountId is no message group id, answered by the refusal rule.
    const observed = flawless();
    const refused: ChaosEvent = {
      order: 1000,
      account: first.accountId,
      detailType: 'SubscriptionStatusRequested',
      detail: { accountId: `${first.accountId} copy` },
      expectation: { kind: 'refused', code: 'INVALID_ACCOUNT_ID' },
    };
    const sent = new Map([...observed.sent, ['ev-refused', refused]]);
    const answer = {
      id: 'sf-refused',
      'detail-type': 'SyncFailed',
      detail: { sourceEventId: 'ev-refused', code: 'INVALID_ACCOUNT_ID', message: 'detail.accountId' },
    };
    const parked = { queue: 'SubscriptionStatusRequestedIntakeDeadLetterQueue', body: '{"id":"ev-refused"}' };

    // Act
    const answeredOnly = judge({ ...observed, sent, outbound: [...observed.outbound, answer] });
    const answeredAndParked = judge({
      ...observed,
      sent,
      outbound: [...observed.outbound, answer],
      deadLetters: [parked],
    });

    // Assess
    expect(answeredOnly.invalidMishandled).toEqual([]);
    expect(answeredOnly.syncFailed).toEqual({ INVALID_ACCOUNT_ID: 1 });
    expect(answeredAndParked.invalidMishandled).toEqual([
      {
        eventId: 'ev-refused',
        detailType: 'SubscriptionStatusRequested',
        outcome: expect.stringMatching(
          /INVALID_ACCOUNT_ID.*parked in SubscriptionStatusRequestedIntakeDeadLetterQueue/,
        ),
      },
    ]);
  });

  it('counts a second business of one account as a duplicate', () => {
    // Prepare
    const observed = flawless();

    // Act
    const verdict = judge({
      ...observed,
      businesses: [
        ...observed.businesses,
        { hostname: 'again.us.sandbox.test', externalId: first.accountId },
      ],
    });

    // Assess
    expect(verdict.duplicates.businesses).toBe(1);
    expect(verdict.duplicates.total).toBe(1);
  });

  it('counts two apiNames in one slot and one apiName in two slots', () => {
    // Prepare
    const observed = flawless();
    const install = {
      CustomFieldData: [
        { Id: 1, System: 'Employee', F01: 'BADGE-0001', F03: customFieldValue('chaosBadge', 3) },
        {
          Id: 2,
          System: 'Employee',
          F01: customFieldValue('chaosLocker', 4),
          F04: customFieldValue('chaosBadge', 9),
        },
      ],
    };

    // Act
    const verdict = judge({ ...observed, installs: new Map([['h0.us.sandbox.test', install]]) });

    // Assess: F01 holds the install's own field and chaosLocker; chaosBadge sits in F03 and F04.
    expect(verdict.duplicates.apiNamesPerSlot).toBe(1);
    expect(verdict.duplicates.slotsPerApiName).toBe(1);
  });

  it('excuses an UNCONFIRMED signup only when the service holds exactly one business for it', () => {
    // Prepare
    const observed = flawless();
    const tableBusinesses = new Map(observed.tableBusinesses);
    tableBusinesses.set(first.accountId, { status: 'UNCONFIRMED' });

    // Act
    const holdsOne = judge({ ...observed, tableBusinesses });
    const holdsNone = judge({
      ...observed,
      tableBusinesses,
      businesses: observed.businesses.filter((business) => business.externalId !== first.accountId),
    });

    // Assess
    expect(holdsOne.mismatches).toEqual([]);
    expect(holdsNone.mismatches).toEqual([expect.stringContaining('UNCONFIRMED but the service holds 0')]);
  });

  it('excuses a PlanChosen without result only when the account already had that edition', () => {
    // Prepare
    const observed = flawless();
    const plans = [...observed.sent].filter(([, event]) => event.detailType === 'PlanChosen');
    const firstPlan = plans[0];
    if (!firstPlan) throw new Error('the workload has a PlanChosen');
    const silent = observed.outbound.filter((event) => event.detail['causationId'] !== firstPlan[0]);

    // Act
    const verdict = judge({ ...observed, outbound: silent });

    // Assess: the account was on trial, so the first choice is a real change and its silence a loss.
    expect(verdict.acknowledgedNoOp).toBe(0);
    expect(verdict.lostEvents.map((event) => event.eventId)).toEqual([firstPlan[0]]);
  });

  it('excuses a silent PlanChosen when a status answer showed the account on that edition', () => {
    // Prepare
    const observed = flawless();
    const premium = [...observed.sent].find(
      ([, event]) => event.detailType === 'PlanChosen' && event.detail['plan'] === 'PREMIUM',
    );
    if (!premium) throw new Error('the workload has a PREMIUM choice');
    const [eventId, event] = premium;
    const outbound = [
      ...observed.outbound.filter((published) => published.detail['causationId'] !== eventId),
      {
        id: 'status',
        'detail-type': 'SubscriptionStatus',
        detail: { accountId: event.account, edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM' },
      },
    ];

    // Act
    const verdict = judge({ ...observed, outbound });

    // Assess
    expect(verdict.acknowledgedNoOp).toBe(1);
    expect(verdict.lost).toBe(0);
  });

  it('counts a second announcement of one trial threshold as a duplicate', () => {
    // Prepare
    const observed = flawless();
    const announcement = {
      'detail-type': 'TrialExpiring',
      detail: { accountId: first.accountId, trialEndDate: '2026-02-01T00:00:00Z', daysLeft: 7 },
    };

    // Act
    const verdict = judge({
      ...observed,
      outbound: [...observed.outbound, { id: 'a1', ...announcement }, { id: 'a2', ...announcement }],
    });

    // Assess
    expect(verdict.duplicates.announcements).toBe(1);
    expect(verdict.duplicates.total).toBe(1);
    expect(verdict.trialAnnouncements.announced).toBe(1);
  });

  it('reads the accepted request rate and the retries from the request log', () => {
    // Prepare
    const observed = flawless();
    const requests = [
      { time: '2026-01-01T00:00:00.100Z', method: 'POST', path: '/a', status: 200 },
      { time: '2026-01-01T00:00:00.200Z', method: 'POST', path: '/a', status: 429, cause: 'rate-limit' },
      { time: '2026-01-01T00:00:00.300Z', method: 'POST', path: '/a', status: 0 },
      { time: '2026-01-01T00:00:01.300Z', method: 'POST', path: '/a', status: 500 },
    ];

    // Act
    const verdict = judge({ ...observed, requests, redeliveries: 2 });

    // Assess
    expect(verdict.retries).toEqual({
      status429: 1,
      rateLimited: 1,
      status500: 1,
      noAnswer: 1,
      redeliveries: 2,
      total: 5,
    });
    expect(verdict.requests).toMatchObject({
      total: 4,
      accepted: 3,
      peakAcceptedPerSecond: 2,
      // No budget watched: the busy period is the seconds in which the service accepted a request.
      busySeconds: 2,
      busyMeanAcceptedPerSecond: 1.5,
    });
  });

  /** `count` requests answered `status` spread over [fromMs, toMs) after T0 (wall clock). */
  const T0 = Date.parse('2026-01-01T00:00:00Z');
  function spread(count: number, fromMs: number, toMs: number, status = 200, cause?: string) {
    return Array.from({ length: count }, (_, index) => {
      const wallMs = T0 + fromMs + Math.floor(((toMs - fromMs) * index) / count);
      return {
        time: new Date(wallMs).toISOString(),
        wallMs,
        method: 'GET',
        path: '/installs/x',
        status,
        ...(cause === undefined ? {} : { cause }),
      };
    });
  }

  it('measures the busy period as the time calls waited on the budget, less the pauses injected 429s asked for', () => {
    // Prepare: calls waited from 0 to 4 s; an injected 429 at 1 s paused everyone until 2 s; 18
    // requests a second, except 6 sent in the pause; 30 more after 5 s, when nobody waited.
    const observed = flawless();
    const requests = [
      ...spread(18, 0, 1000),
      ...spread(1, 1000, 1001, 429, '429'),
      ...spread(6, 1001, 2000),
      ...spread(36, 2000, 4000),
      ...spread(30, 5000, 7000),
    ];

    // Act
    const verdict = judge({ ...observed, requests, budgetWaits: [[T0, T0 + 4000]] });

    // Assess: 3 busy seconds (0-1 and 2-4), 54 requests accepted in them.
    expect(verdict.requests.busySeconds).toBe(3);
    expect(verdict.requests.busyMeanAcceptedPerSecond).toBe(18);
  });

  it("keeps the rate limiter's own 429s in the busy period: refused requests count against the budget", () => {
    // Prepare: 2 s of waiting; in the first second 15 accepted and 5 refused by the limiter.
    const observed = flawless();
    const requests = [
      ...spread(15, 0, 1000),
      ...spread(5, 500, 1000, 429, 'rate-limit'),
      ...spread(18, 1000, 2000),
    ];

    // Act
    const verdict = judge({ ...observed, requests, budgetWaits: [[T0, T0 + 2000]] });

    // Assess
    expect(verdict.requests.busySeconds).toBe(2);
    expect(verdict.requests.busyMeanAcceptedPerSecond).toBe(16.5);
  });

  it('joins overlapping waits of several calls into one busy period', () => {
    // Prepare: three calls waiting over [0, 1.5 s), [1 s, 2 s) and [1.2 s, 1.8 s).
    const observed = flawless();
    const budgetWaits: Array<[number, number]> = [
      [T0, T0 + 1500],
      [T0 + 1000, T0 + 2000],
      [T0 + 1200, T0 + 1800],
    ];

    // Act
    const verdict = judge({ ...observed, requests: spread(40, 0, 2000), budgetWaits });

    // Assess
    expect(verdict.requests.busySeconds).toBe(2);
    expect(verdict.requests.busyMeanAcceptedPerSecond).toBe(20);
  });
});

/**
 * The order check on one hand-made account: events on one thing, their outcomes, the state the
 * service and the table were left in. Each thing kind once where the state is what the newest event
 * asks for (no violation) and once where it holds an older event's value (one violation).
 */
describe('chaos verdict: order violations (the final state against the newest event per thing)', () => {
  const ACCOUNT = 'acct-order';
  const HOSTNAME = 'order-1.us.sandbox.test';
  const EMPLOYEE = 2;

  type Ending = 'applied' | 'superseded' | { readonly failed: string };

  function orderEvent(
    order: number,
    detailType: ChaosEvent['detailType'],
    detail: Record<string, unknown>,
  ): ChaosEvent {
    return {
      order,
      account: ACCOUNT,
      detailType,
      detail: { accountId: ACCOUNT, ...detail, occurredAt: occurredAtOf(order) },
      expectation: { kind: 'valid' },
    };
  }

  /** Observations of one account whose events ended as `events` say, with the state given. */
  function orderRun(
    events: ReadonlyArray<readonly [ChaosEvent, Ending]>,
    state: {
      readonly install?: Record<string, Array<Record<string, unknown>>>;
      readonly edition?: string;
      readonly tableEdition?: string;
      /** Thing key → the event (send order) whose position the table holds. */
      readonly positions?: Record<string, number>;
    },
  ): Observations {
    const id = (event: ChaosEvent) => `ev-${event.order}`;
    const outbound: Observations['outbound'] = events.map(([event, ending]) => {
      const source = { accountId: ACCOUNT, causationId: id(event), sourceEventId: id(event) };
      if (ending === 'applied') {
        const edition =
          event.detail['plan'] === 'FREE' ? 'SUBSCRIPTION_FREE' : 'SUBSCRIPTION_PAID_PRO_PREMIUM';
        return {
          id: `out-${id(event)}`,
          'detail-type': 'Result',
          detail: { ...source, ...(event.detailType === 'PlanChosen' ? { edition } : {}) },
        };
      }
      if (ending === 'superseded') {
        return {
          id: `out-${id(event)}`,
          'detail-type': 'SyncSkipped',
          detail: { ...source, code: 'SUPERSEDED', things: [] },
        };
      }
      return {
        id: `out-${id(event)}`,
        'detail-type': 'SyncFailed',
        detail: { ...source, code: ending.failed, message: `${ending.failed}: refused` },
      };
    });
    const orders = new Map(events.map(([event]) => [event.order, event]));
    return {
      workload: {
        accounts: [
          {
            accountId: ACCOUNT,
            businessName: 'Order Shop',
            ownerEmail: 'owner@order.example',
            ownerMobile: '+1 415 555 0100',
            locations: new Map(),
          },
        ],
        creations: [],
        followUps: events.map(([event]) => event),
        customFieldNames: [],
      },
      sent: new Map(events.map(([event]) => [id(event), event])),
      outbound,
      deadLetters: [],
      businesses: [
        {
          hostname: HOSTNAME,
          externalId: ACCOUNT,
          ...(state.edition === undefined ? {} : { edition: state.edition }),
        },
      ],
      installs: new Map([[HOSTNAME, state.install ?? {}]]),
      requests: [],
      tableBusinesses: new Map([
        [
          ACCOUNT,
          {
            status: 'ACTIVE',
            hostname: HOSTNAME,
            ...(state.tableEdition === undefined ? {} : { edition: state.tableEdition }),
          },
        ],
      ]),
      tableSlots: new Map(),
      tablePositions: new Map([
        [
          HOSTNAME,
          new Map(
            Object.entries(state.positions ?? {}).map(([thing, order]) => [
              thing,
              { occurredAt: occurredAtOf(order), eventId: id(orders.get(order) as ChaosEvent) },
            ]),
          ),
        ],
      ]),
      redeliveries: 0,
      duplicatesDelivered: 0,
      delivery: { reordered: 0, redelivered: 0 },
    };
  }

  const PREMIUM = 'SUBSCRIPTION_PAID_PRO_PREMIUM';
  const FREE = 'SUBSCRIPTION_FREE';

  it('plan: the edition of the newest PlanChosen, in the service and in the table', () => {
    // Prepare: PREMIUM (1) then FREE (2), both applied — in whichever order they arrived.
    const premium = orderEvent(1, 'PlanChosen', { plan: 'PREMIUM' });
    const free = orderEvent(2, 'PlanChosen', { plan: 'FREE' });
    const events = [
      [free, 'applied'],
      [premium, 'applied'],
    ] as const;
    const positions = { plan: 2 };

    // Act
    const newest = judge(orderRun(events, { edition: FREE, tableEdition: FREE, positions }));
    const older = judge(orderRun(events, { edition: PREMIUM, tableEdition: PREMIUM, positions }));
    const tableOnly = judge(orderRun(events, { edition: FREE, tableEdition: PREMIUM, positions }));

    // Assess
    expect(newest.orderViolations).toBe(0);
    expect(older.orderViolations).toBe(1);
    expect(older.orderViolationList[0]).toMatchObject({
      account: ACCOUNT,
      thing: 'plan',
      newest: { order: 2, eventId: 'ev-2', value: FREE },
      found: [`service: ${PREMIUM}`, `table edition: ${PREMIUM}`],
    });
    expect(tableOnly.orderViolations).toBe(1);
  });

  it('plan: a FREE refused on a trial (CANNOT_CANCEL_TRIAL) asks for nothing, even when it is the newest', () => {
    // Prepare: FREE (2) reached the function while the business was on trial and was refused;
    // PREMIUM (1) applied after it.
    const premium = orderEvent(1, 'PlanChosen', { plan: 'PREMIUM' });
    const free = orderEvent(2, 'PlanChosen', { plan: 'FREE' });
    const events = [
      [free, { failed: 'CANNOT_CANCEL_TRIAL' }],
      [premium, 'applied'],
    ] as const;

    // Act
    const kept = judge(orderRun(events, { edition: PREMIUM, tableEdition: PREMIUM, positions: { plan: 1 } }));
    const moved = judge(orderRun(events, { edition: FREE, tableEdition: FREE, positions: { plan: 1 } }));

    // Assess
    expect(kept.orderViolations).toBe(0);
    expect(moved.orderViolations).toBe(1);
  });

  it('custom field: the value of the newest event that set it; an older one superseded after it changes nothing', () => {
    // Prepare: badge set by 1 and by 3; 1 arrived last and was told SUPERSEDED.
    const first = orderEvent(1, 'EmployeeChanged', {
      employeeId: EMPLOYEE,
      customFields: { chaosBadge: customFieldValue('chaosBadge', 1) },
    });
    const third = orderEvent(3, 'EmployeeChanged', {
      employeeId: EMPLOYEE,
      customFields: { chaosBadge: customFieldValue('chaosBadge', 3) },
    });
    const events = [
      [third, 'applied'],
      [first, 'superseded'],
    ] as const;
    const holding = (order: number) => ({
      Employee: [{ Id: EMPLOYEE, CustomFieldData: 10 }],
      CustomFieldData: [{ Id: 10, System: 'Employee', F01: customFieldValue('chaosBadge', order) }],
    });
    const positions = { [`employee#${EMPLOYEE}#customField#chaosBadge`]: 3 };

    // Act
    const newest = judge(orderRun(events, { install: holding(3), positions }));
    const older = judge(orderRun(events, { install: holding(1), positions }));

    // Assess
    expect(newest.orderViolations).toBe(0);
    expect(older.orderViolations).toBe(1);
    expect(older.orderViolationList[0]).toMatchObject({
      thing: 'employee#2#customField#chaosBadge',
      newest: { eventId: 'ev-3', value: 'chaosBadge|3' },
      found: ['service: ["chaosBadge|1"]'],
    });
  });

  it('regular hours: the agreed hours of the newest event', () => {
    // Prepare
    const hours = (threshold: number) => ({
      threshold,
      applyThreshold: true,
      workPeriod: {
        cycle: 'WEEKLY',
        dayOfWeek: 'MONDAY',
        startDate: '2026-01-05T00:00:00Z',
        startCycleDate: '2026-01-05T00:00:00Z',
        endCycleDate: '2026-01-12T00:00:00Z',
      },
      workingDaysPerCycle: 5,
      details: { weeks: [] },
    });
    const events = [
      [orderEvent(4, 'EmployeeChanged', { employeeId: EMPLOYEE, regularHours: hours(30) }), 'applied'],
      [orderEvent(2, 'EmployeeChanged', { employeeId: EMPLOYEE, regularHours: hours(20) }), 'applied'],
    ] as const;
    const holding = (threshold: number) => ({
      AgreedHour: [{ Id: 1, Employee: EMPLOYEE, agreedHour: hours(threshold) }],
    });
    const positions = { [`employee#${EMPLOYEE}#regularHours`]: 4 };

    // Act + Assess
    expect(judge(orderRun(events, { install: holding(30), positions })).orderViolations).toBe(0);
    expect(judge(orderRun(events, { install: holding(20), positions })).orderViolations).toBe(1);
  });

  it("pay rate: the employee's one active agreement has the newest event's award and rate", () => {
    // Prepare
    const events = [
      [
        orderEvent(5, 'EmployeeChanged', {
          employeeId: EMPLOYEE,
          payRate: { awardCode: 'HospServer2024b', countryCode: 'us', hourlyRate: 31 },
        }),
        'applied',
      ],
      [
        orderEvent(3, 'EmployeeChanged', {
          employeeId: EMPLOYEE,
          payRate: { awardCode: 'RetailAssoc2024x', countryCode: 'us', hourlyRate: 22 },
        }),
        'applied',
      ],
    ] as const;
    const holding = (active: 'hosp' | 'retail') => ({
      EmploymentContract: [
        { Id: 7, AwardCode: 'HospServer2024b' },
        { Id: 8, AwardCode: 'RetailAssoc2024x' },
      ],
      EmployeeAgreement: [
        { Id: 1, EmployeeId: EMPLOYEE, Contract: 7, BaseRate: 31, Active: active === 'hosp' },
        { Id: 2, EmployeeId: EMPLOYEE, Contract: 8, BaseRate: 22, Active: active === 'retail' },
      ],
    });
    const positions = { [`employee#${EMPLOYEE}#payRate`]: 5 };

    // Act + Assess
    expect(judge(orderRun(events, { install: holding('hosp'), positions })).orderViolations).toBe(0);
    expect(judge(orderRun(events, { install: holding('retail'), positions })).orderViolations).toBe(1);
  });

  it('leave balance: the hours of the newest event for that leave rule', () => {
    // Prepare
    const events = [
      [
        orderEvent(6, 'EmployeeChanged', {
          employeeId: EMPLOYEE,
          leaveBalances: [{ leaveRuleId: 3, hours: 40 }],
        }),
        'applied',
      ],
      [
        orderEvent(2, 'EmployeeChanged', {
          employeeId: EMPLOYEE,
          leaveBalances: [{ leaveRuleId: 3, hours: 12 }],
        }),
        'applied',
      ],
    ] as const;
    const holding = (hours: number) => ({
      LeaveAccrual: [{ Id: 1, Employee: EMPLOYEE, LeaveRule: 3, Hours: hours }],
    });
    const positions = { [`employee#${EMPLOYEE}#leaveBalance#3`]: 6 };

    // Act + Assess
    expect(judge(orderRun(events, { install: holding(40), positions })).orderViolations).toBe(0);
    expect(judge(orderRun(events, { install: holding(12), positions })).orderViolations).toBe(1);
  });

  it("budget cell: the metric at the day's local midnight holds the newest event's value and reference", () => {
    // Prepare: two budgets of location 1, area 1, WAGE, 2026-03-02 in New York (midnight = 05:00 UTC).
    const budget = (order: number, value: number) =>
      orderEvent(order, 'BudgetSet', {
        locationId: 1,
        areaId: 1,
        kind: 'WAGE',
        timeZone: 'America/New_York',
        days: [{ date: '2026-03-02', value }],
        reference: `chaos-${order}`,
      });
    const events = [
      [budget(9, 900), 'applied'],
      [budget(7, 700), 'applied'],
    ] as const;
    const holding = (order: number, value: number) => ({
      Metric: [
        {
          id: 'mt_000001',
          timestamp: String(Date.parse('2026-03-02T05:00:00Z') / 1000),
          location: 1,
          area: 1,
          employee: 0,
          type: 'budget_wage',
          value,
          reference: `chaos-${order}`,
        },
      ],
    });
    const positions = { 'budget#1#1#WAGE#2026-03-02': 9 };

    // Act
    const newest = judge(orderRun(events, { install: holding(9, 900), positions }));
    const older = judge(orderRun(events, { install: holding(7, 700), positions }));

    // Assess
    expect(newest.orderViolations).toBe(0);
    expect(older.orderViolationList).toMatchObject([
      { thing: 'budget#1#1#WAGE#2026-03-02', found: ['service: 700 (chaos-7)'] },
    ]);
  });

  it('location: the location named by the newest event, with every area it lists', () => {
    // Prepare: the newest event adds an area the older one did not list.
    const location = (order: number, areas: string[]) =>
      orderEvent(order, 'LocationCreated', {
        locationRef: 'loc-1',
        name: 'Order Location 1',
        areas: areas.map((name) => ({ name })),
      });
    const events = [
      [location(8, ['Bar', 'Kitchen']), 'applied'],
      [location(4, ['Bar']), 'applied'],
    ] as const;
    const holding = (areas: string[]) => ({
      Location: [{ Id: 3, CompanyName: 'Order Location 1' }],
      Area: areas.map((name, index) => ({ Id: 10 + index, Company: 3, OperationalUnitName: name })),
    });
    const positions = { 'location#loc-1': 8 };

    // Act + Assess
    expect(judge(orderRun(events, { install: holding(['Bar', 'Kitchen']), positions })).orderViolations).toBe(
      0,
    );
    expect(judge(orderRun(events, { install: holding(['Bar']), positions })).orderViolations).toBe(1);
  });

  it("table: a thing's position must name the newest event, whatever the service holds", () => {
    // Prepare
    const events = [
      [orderEvent(2, 'PlanChosen', { plan: 'FREE' }), 'applied'],
      [orderEvent(1, 'PlanChosen', { plan: 'PREMIUM' }), 'applied'],
    ] as const;
    const state = { edition: FREE, tableEdition: FREE };

    // Act
    const older = judge(orderRun(events, { ...state, positions: { plan: 1 } }));
    const none = judge(orderRun(events, state));

    // Assess
    expect(older.orderViolationList).toMatchObject([{ thing: 'plan', found: ['table position: ev-1'] }]);
    expect(none.orderViolationList).toMatchObject([{ thing: 'plan', found: ['table position: none'] }]);
  });

  it('accepts the value of a newer event that failed after it may have written it, never that of an older one', () => {
    // Prepare: 3 wrote the badge, then a later part of it gave up (RETRIES_EXHAUSTED); 1 applied.
    const first = orderEvent(1, 'EmployeeChanged', {
      employeeId: EMPLOYEE,
      customFields: { chaosBadge: customFieldValue('chaosBadge', 1) },
    });
    const third = orderEvent(3, 'EmployeeChanged', {
      employeeId: EMPLOYEE,
      customFields: { chaosBadge: customFieldValue('chaosBadge', 3) },
    });
    const events = [
      [first, 'applied'],
      [third, { failed: 'RETRIES_EXHAUSTED' }],
    ] as const;
    const holding = (order: number) => ({
      Employee: [{ Id: EMPLOYEE, CustomFieldData: 10 }],
      CustomFieldData: [{ Id: 10, System: 'Employee', F01: customFieldValue('chaosBadge', order) }],
    });
    const thing = `employee#${EMPLOYEE}#customField#chaosBadge`;

    // Act + Assess
    expect(judge(orderRun(events, { install: holding(3), positions: { [thing]: 3 } })).orderViolations).toBe(
      0,
    );
    expect(judge(orderRun(events, { install: holding(1), positions: { [thing]: 1 } })).orderViolations).toBe(
      0,
    );
    expect(
      judge(
        orderRun(
          [
            [first, { failed: 'RETRIES_EXHAUSTED' }],
            [third, 'applied'],
          ],
          {
            install: holding(1),
            positions: { [thing]: 3 },
          },
        ),
      ).orderViolations,
    ).toBe(1);
  });
});

describe('chaos verdict: passed, with and without a rate limit', () => {
  /** A flawless run against a limit of 20/s: 1000 requests, 5 refused by the limiter, 18/s busy. */
  function rateLimitedRun(): ChaosVerdict {
    const verdict = judge(flawless());
    return {
      ...verdict,
      retries: { ...verdict.retries, status429: 5, rateLimited: 5 },
      requests: { ...verdict.requests, total: 1000, busySeconds: 30, busyMeanAcceptedPerSecond: 18 },
    };
  }

  it('passes a rate-limited run whose budget kept every threshold', () => {
    // Act
    const passed = runPassed(rateLimitedRun(), 20);

    // Assess
    expect(passed).toBe(true);
  });

  it('fails a rate-limited run with a record dead-lettered for throttling', () => {
    // Prepare
    const run = { ...rateLimitedRun(), deadLetteredByCause: { throttling: 1 } };

    // Act
    const checks = runChecks(run, 20);

    // Assess
    expect(runPassed(run, 20)).toBe(false);
    expect(checks['throttlingDeadLetters']).toEqual({ value: 1, max: 0, passed: false });
  });

  it('fails a rate-limited run whose 429 answers reach 2 % of its requests', () => {
    // Prepare: 20 of 1000 requests refused by the rate limiter.
    const base = rateLimitedRun();
    const run = { ...base, retries: { ...base.retries, status429: 20, rateLimited: 20 } };

    // Act
    const checks = runChecks(run, 20);

    // Assess
    expect(runPassed(run, 20)).toBe(false);
    expect(checks['answers429Share']).toEqual({ value: 0.02, below: 0.02, passed: false });
  });

  it("counts only the rate limiter's 429 answers, not injected 429 faults, against the 2 %", () => {
    // Prepare: 60 injected 429s besides the limiter's 5.
    const base = rateLimitedRun();
    const run = { ...base, retries: { ...base.retries, status429: 65, rateLimited: 5 } };

    // Act
    const passed = runPassed(run, 20);

    // Assess
    expect(passed).toBe(true);
  });

  it('fails a rate-limited run that accepted under 85 % of the limit over its busy period', () => {
    // Prepare: 16.9/s against 20/s (the threshold is 17).
    const base = rateLimitedRun();
    const run = { ...base, requests: { ...base.requests, busyMeanAcceptedPerSecond: 16.9 } };

    // Act
    const checks = runChecks(run, 20);

    // Assess
    expect(runPassed(run, 20)).toBe(false);
    expect(checks['busyAcceptedPerSecond']).toEqual({ value: 16.9, atLeast: 17, passed: false });
  });

  it('fails a rate-limited run without a busy second: the budget was never tested against the limit', () => {
    // Prepare
    const base = rateLimitedRun();
    const run = { ...base, requests: { ...base.requests, busySeconds: 0, busyMeanAcceptedPerSecond: 0 } };

    // Act
    const passed = runPassed(run, 20);

    // Assess
    expect(passed).toBe(false);
  });

  it('judges a run without a rate limit on its own figures only, none of the rate-limit checks', () => {
    // Prepare: figures that would fail the rate-limit checks.
    const base = rateLimitedRun();
    const run = {
      ...base,
      retries: { ...base.retries, rateLimited: 500 },
      requests: { ...base.requests, busySeconds: 0 },
    };

    // Act
    const checks = runChecks(run, null);

    // Assess
    expect(Object.keys(checks)).toEqual([
      'lost',
      'duplicated',
      'gaveUpWithoutSyncFailed',
      'invalidMishandled',
      'mismatches',
      'orderViolations',
      'gaveUpAwaitingBusiness',
    ]);
    expect(runPassed(run, null)).toBe(true);
    expect(runPassed({ ...run, lost: 1 }, null)).toBe(false);
  });

  it('fails a run with an invalid event mishandled, a mismatch, an order violation, an event given up waiting for a business on its way, the token in the environment or an AWS call the template’s IAM denied', () => {
    // Prepare: a flawless run, then each counter alone at one.
    const base = judge(flawless());
    const runs = {
      invalidMishandled: {
        ...base,
        invalidMishandled: [{ eventId: 'e-1', detailType: 'AccountCreated', outcome: 'applied' }],
      },
      mismatches: { ...base, mismatches: ['acct-1: ACTIVE but the service holds 2 businesses'] },
      orderViolations: { ...base, orderViolations: 1 },
      gaveUpAwaitingBusiness: { ...base, gaveUpAwaitingBusiness: 1 },
      tokenInEnvironment: { ...base, tokenInEnvironment: ['LEAKED'] },
      deniedCalls: {
        ...base,
        deniedCalls: [
          {
            principal: 'arn:aws:sts::000000000000:assumed-role/role/fn',
            action: 'dynamodb:UpdateItem',
            resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/state',
            reason: 'because no identity-based policy allows the dynamodb:UpdateItem action',
          },
        ],
      },
    };

    // Act + Assess
    expect(runPassed({ ...base, tokenInEnvironment: [], deniedCalls: [] }, null)).toBe(true);
    for (const [check, run] of Object.entries(runs)) {
      expect({ check, passed: runPassed(run, null) }).toEqual({ check, passed: false });
      expect(runChecks(run, null)[check]).toEqual({ value: 1, max: 0, passed: false });
      expect(verdictSummary(run, { rateLimit: null, wallTimeMs: 1000 }).passed).toBe(false);
    }
  });

  it('carries what the runtime reordered and repeated into the verdict and its JSON, as figures, not checks', () => {
    // Prepare
    const observed = { ...flawless(), delivery: { reordered: 17, redelivered: 3 } };

    // Act
    const verdict = judge(observed);
    const summary = verdictSummary(verdict, { rateLimit: null, wallTimeMs: 1000 });

    // Assess
    expect(verdict).toMatchObject({ reordered: 17, redelivered: 3 });
    expect(summary).toMatchObject({
      passed: true,
      reordered: 17,
      redelivered: 3,
      superseded: 0,
      orderViolations: 0,
    });
    expect(Object.keys(summary.checks)).not.toContain('reordered');
  });

  it('states every threshold next to its figure in the JSON verdict', () => {
    // Act
    const summary = verdictSummary(rateLimitedRun(), { rateLimit: 20, wallTimeMs: 61_234 });

    // Assess
    expect(summary).toMatchObject({
      passed: true,
      rateLimit: 20,
      answers429: 5,
      requests: 1000,
      wallTimeSeconds: 61.2,
      deadLettered: { byCause: { throttling: 0 } },
      checks: {
        lost: { value: 0, max: 0, passed: true },
        throttlingDeadLetters: { value: 0, max: 0, passed: true },
        answers429Share: { value: 0.005, below: 0.02, passed: true },
        busyAcceptedPerSecond: { value: 18, atLeast: 17, passed: true },
      },
    });
    expect(JSON.parse(JSON.stringify(summary))).toEqual(summary);
  });
});
