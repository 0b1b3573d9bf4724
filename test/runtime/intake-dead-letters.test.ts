import { describe, expect, it } from 'vitest';
import { PIPE_EVENT_KEY } from '#functions/contracts/envelope.ts';
import { inboundContracts } from '#functions/contracts/registry.ts';
import { createRouteDecoder } from '#functions/contracts/route-decoder.ts';
import { answerIntakeDeadLetter } from '#functions/refuse-unroutable/refuse-unroutable.ts';
import { queueRoutes } from '#functions/routes.ts';
import { syncFailedClass } from '#functions/runtime/metric-names.ts';
import { busEvent } from '#test/contracts/support.ts';

/**
 * The refusal function's answer to a message of a route's intake dead-letter queue (pure use case):
 * an event no route can take is refused as the refusal rule refuses it, a routable one is reported
 * INTAKE_UNDELIVERABLE and copied in the shape the pipe writes, anything else is unreadable.
 */

const ROUTED = queueRoutes.map((route) => route.detailType);

const EVENT_ID = 'f1c0ae50-0000-4000-8000-000000000001';

/** An EventBridge event as the intake rule sent it (the contracts' builder, with a UUID id). */
const event = (detailType: string, detail: Record<string, unknown>) =>
  busEvent(detailType, detail, { id: EVENT_ID, time: '2026-11-20T08:00:00Z' });

describe('answerIntakeDeadLetter', () => {
  it('refuses an accountId that is no message group id exactly as the refusal rule does, naming no account', () => {
    // Prepare
    const body = JSON.stringify(event('SubscriptionStatusRequested', { accountId: 'acct 1001' }));

    // Act
    const answer = answerIntakeDeadLetter(body, {}, ROUTED);

    // Assess
    expect(answer).toMatchObject({
      kind: 'refused',
      refusal: {
        eventId: 'f1c0ae50-0000-4000-8000-000000000001',
        detail: { code: 'INVALID_ACCOUNT_ID', sourceEventId: 'f1c0ae50-0000-4000-8000-000000000001' },
      },
    });
    expect(answer.kind === 'refused' && 'accountId' in answer.refusal.detail).toBe(false);
  });

  it('reports a routable event INTAKE_UNDELIVERABLE, an operator problem, naming EventBridge’s error code but not its message', () => {
    // Prepare
    const published = event('SubscriptionStatusRequested', { accountId: 'acct-1001' });

    // Act
    const answer = answerIntakeDeadLetter(
      JSON.stringify(published),
      { errorCode: 'SQS_PERMISSION_ERROR', errorMessage: 'Access to the resource is denied' },
      ROUTED,
    );

    // Assess
    expect(answer.kind).toBe('undeliverable');
    if (answer.kind !== 'undeliverable') return;
    expect(answer.syncFailed).toMatchObject({
      accountId: 'acct-1001',
      causationId: published.id,
      sourceEventId: published.id,
      detailType: 'SubscriptionStatusRequested',
      code: 'INTAKE_UNDELIVERABLE',
    });
    expect(answer.syncFailed.message).toContain('SQS_PERMISSION_ERROR');
    expect(answer.syncFailed.message).toContain('kept in the SubscriptionStatusRequested dead-letter queue');
    expect(answer.syncFailed.message).not.toContain('denied');
    expect(answer.copy.message).toContain('Access to the resource is denied');
    expect(syncFailedClass(answer.syncFailed.code)).toBe('operator');
  });

  it('copies a routable event in the shape the pipe writes: its own decoder reads it, grouped by account, deduplicated on the event id', () => {
    // Prepare: a body as the partner's event arrived, with a `$&` a string replacement would expand.
    const published = event('SubscriptionStatusRequested', { accountId: 'acct-$&-1' });
    const body = JSON.stringify(published);

    // Act
    const answer = answerIntakeDeadLetter(body, {}, ROUTED);

    // Assess
    expect(answer.kind).toBe('undeliverable');
    if (answer.kind !== 'undeliverable') return;
    expect(answer.copy).toMatchObject({
      groupId: 'acct-$&-1',
      deduplicationId: published.id,
      code: 'INTAKE_UNDELIVERABLE',
    });
    expect(JSON.parse(answer.copy.body)).toEqual({ [PIPE_EVENT_KEY]: published });
    expect(answer.copy.message).toContain('intake pipe could not forward it');
    const decoded = createRouteDecoder(inboundContracts.SubscriptionStatusRequested)(answer.copy.body, {
      source: 'partner.app',
    });
    expect(decoded).toMatchObject({ ok: true, event: { id: published.id } });
  });

  it('refuses an unknown detail-type with UNKNOWN_DETAIL_TYPE', () => {
    // Act
    const answer = answerIntakeDeadLetter(
      JSON.stringify(event('AccountDeleted', { accountId: 'a' })),
      {},
      ROUTED,
    );

    // Assess
    expect(answer).toMatchObject({ kind: 'refused', refusal: { detail: { code: 'UNKNOWN_DETAIL_TYPE' } } });
  });

  it.each([
    ['not JSON', 'not json at all', 'the body is not JSON'],
    ['JSON that is no EventBridge event', '{"hello": "world"}', 'the body is not an EventBridge event'],
  ])('calls a body that is %s unreadable', (_what, body, reason) => {
    // Act
    const answer = answerIntakeDeadLetter(body, {}, ROUTED);

    // Assess
    expect(answer).toEqual({ kind: 'unreadable', reason });
  });
});
