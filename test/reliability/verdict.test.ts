import { describe, expect, it } from 'vitest';
import { judge, type Observations } from '#scripts/chaos/verdict.ts';
import { buildWorkload, type ChaosEvent, customFieldValue, type Workload } from '#scripts/chaos/workload.ts';

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
    redeliveries: 0,
    duplicatesDelivered: 0,
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
      // The 429 in second 0 asked for a 1 s pause: seconds 0 and 1 are the service's, not busy.
      busySeconds: 0,
      busyMeanAcceptedPerSecond: 0,
    });
  });
});
