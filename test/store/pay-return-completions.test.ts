import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import { RetryableError } from '#functions/domain/errors.ts';
import { type PeriodAnswer, publishPeriodAnswer } from '#functions/pay-returns/pay-period.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import { isServicePause } from '#functions/runtime/retry-schedule.ts';
import { CLAIM_LEASE_MS } from '#functions/store/announcements.ts';
import { claimPayReturnsCompleted } from '#functions/store/pay-return-completions.ts';
import { useTestStore } from './support.ts';

const store = useTestStore();
const HOSTNAME = 'period-1.us.sandbox.test';

/** A publisher that keeps what EventBridge accepted, and refuses the calls it is told to. */
function recordingPublisher() {
  const accepted: OutboundEvent[] = [];
  let refuse: ((events: readonly OutboundEvent[]) => boolean) | undefined;
  return {
    accepted,
    refuseWhen(predicate: typeof refuse) {
      refuse = predicate;
    },
    async publish(events: readonly OutboundEvent[]) {
      if (refuse?.(events)) throw new RetryableError('PUBLISH_FAILED', 'EventBridge refused the entries');
      accepted.push(...events);
    },
  };
}

function dependenciesWith(publisher: ReturnType<typeof recordingPublisher>, now = new Date()): Dependencies {
  return {
    store,
    publisher,
    clock: { now: () => now },
    logger: new Logger({ logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'test', serviceName: 'pay-returns' }),
  } as unknown as Dependencies;
}

function answerOf(eventId: string): PeriodAnswer {
  const ready = [1, 2, 3].map((timesheetId) => ({
    detailType: 'PayReturnsReady',
    detail: {
      accountId: 'acct-1',
      hostname: HOSTNAME,
      timesheetId,
      lines: [],
      totals: { value: 0, cost: 0 },
    },
  }));
  return {
    eventId,
    accountId: 'acct-1',
    hostname: HOSTNAME,
    period: { from: '2026-03-02', to: '2026-03-08' },
    timesheetIds: [1, 2, 3],
    ready,
  };
}

const completedOf = (publisher: ReturnType<typeof recordingPublisher>) =>
  publisher.accepted.filter((event) => event.detailType === 'PayReturnsCompleted');

describe('publishPeriodAnswer', () => {
  it('publishes every PayReturnsReady, then one PayReturnsCompleted naming them', async () => {
    // Prepare
    const publisher = recordingPublisher();
    const eventId = randomUUID();

    // Act
    const left = await publishPeriodAnswer(dependenciesWith(publisher), answerOf(eventId));

    // Assess
    expect(left).toEqual([]);
    expect(publisher.accepted.map((event) => event.detailType)).toEqual([
      'PayReturnsReady',
      'PayReturnsReady',
      'PayReturnsReady',
      'PayReturnsCompleted',
    ]);
    expect(publisher.accepted[0]?.detail).toMatchObject({ causationId: eventId, accountId: 'acct-1' });
    expect(completedOf(publisher)[0]?.detail).toEqual({
      accountId: 'acct-1',
      hostname: HOSTNAME,
      causationId: eventId,
      sourceEventId: eventId,
      from: '2026-03-02',
      to: '2026-03-08',
      timesheetIds: [1, 2, 3],
      count: 3,
    });
  });

  it('run again for the same event (its idempotency record lost, a redrive) republishes the PayReturnsReady events only', async () => {
    // Prepare
    const publisher = recordingPublisher();
    const eventId = randomUUID();
    await publishPeriodAnswer(dependenciesWith(publisher), answerOf(eventId));

    // Act
    await publishPeriodAnswer(dependenciesWith(publisher), answerOf(eventId));

    // Assess
    expect(completedOf(publisher)).toHaveLength(1);
    expect(publisher.accepted.filter((event) => event.detailType === 'PayReturnsReady')).toHaveLength(6);
  });

  it('a PayReturnsCompleted whose publish failed is published by the next run, once', async () => {
    // Prepare
    const publisher = recordingPublisher();
    const eventId = randomUUID();
    publisher.refuseWhen((events) => events.some((event) => event.detailType === 'PayReturnsCompleted'));
    const failed = publishPeriodAnswer(dependenciesWith(publisher), answerOf(eventId));
    await expect(failed).rejects.toMatchObject({ code: 'PUBLISH_FAILED' });
    publisher.refuseWhen(undefined);

    // Act
    await publishPeriodAnswer(dependenciesWith(publisher), answerOf(eventId));
    await publishPeriodAnswer(dependenciesWith(publisher), answerOf(eventId));

    // Assess
    expect(completedOf(publisher)).toHaveLength(1);
  });

  it('a PayReturnsReady that was not accepted publishes no PayReturnsCompleted', async () => {
    // Prepare
    const publisher = recordingPublisher();
    publisher.refuseWhen((events) => events.some((event) => event.detailType === 'PayReturnsReady'));

    // Act
    const run = publishPeriodAnswer(dependenciesWith(publisher), answerOf(randomUUID()));

    // Assess
    await expect(run).rejects.toMatchObject({ code: 'PUBLISH_FAILED' });
    expect(publisher.accepted).toEqual([]);
  });

  it('waits (retryable) while another run holds the claim, and takes it over once its lease ran out', async () => {
    // Prepare: a run that claimed, then died before it published or confirmed.
    const publisher = recordingPublisher();
    const eventId = randomUUID();
    const claimedAt = new Date('2026-03-09T10:00:00Z');
    await claimPayReturnsCompleted(store, HOSTNAME, eventId, claimedAt);

    // Act
    const during = publishPeriodAnswer(
      dependenciesWith(publisher, new Date(claimedAt.getTime() + 60_000)),
      answerOf(eventId),
    );
    const waited = await during.catch((error: unknown) => error);
    // A wait of the lease, not a counted attempt (runtime/failure-kinds.ts).
    expect(isServicePause(waited)).toBe(true);
    expect(waited).toMatchObject({ code: 'COMPLETION_IN_PROGRESS', retryAfterMs: CLAIM_LEASE_MS });
    await publishPeriodAnswer(
      dependenciesWith(publisher, new Date(claimedAt.getTime() + CLAIM_LEASE_MS + 1)),
      answerOf(eventId),
    );

    // Assess
    expect(completedOf(publisher)).toHaveLength(1);
  });
});
