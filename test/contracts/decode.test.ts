import { describe, expect, it } from 'vitest';
import { MAX_DETAIL_BYTES } from '#functions/contracts/route-decoder.ts';
import { inboundSamples } from '#functions/contracts/samples.ts';
import { busEvent, decodeInboundMessage, decodeOptions, eventBody, pipeBody } from './support.ts';

describe('decodeInboundMessage', () => {
  it('returns the typed event with defaults applied', () => {
    // Prepare
    const { isWorkplace: _w, ...detail } = inboundSamples.LocationCreated;

    // Act
    const result = decodeInboundMessage(eventBody('LocationCreated', detail), decodeOptions);

    // Assess
    expect(result).toEqual({
      ok: true,
      event: {
        id: 'evt-0001',
        detailType: 'LocationCreated',
        source: 'partner.app',
        time: '2025-03-03T09:00:00Z',
        detail: { ...detail, isWorkplace: true, active: true },
      },
    });
  });

  it('accepts events from a configured source other than the default', () => {
    const body = eventBody('SubscriptionStatusRequested', { accountId: 'acct-1001' }, { source: 'acme.crm' });

    const result = decodeInboundMessage(body, { source: 'acme.crm' });

    expect(result.ok).toBe(true);
  });

  it('answers INVALID_JSON for a body that is not JSON', () => {
    const result = decodeInboundMessage('{"detail-type": "AccountCreated", ', decodeOptions);

    expect(result).toEqual({ ok: false, code: 'INVALID_JSON', message: 'body is not valid JSON' });
  });

  it('answers INVALID_ENVELOPE for a body that is not the intake pipe message, naming the wrapper', () => {
    // The EventBridge event itself, unwrapped: what a bare <$.body> template would have meant to send.
    const result = decodeInboundMessage(JSON.stringify(busEvent('AccountCreated', {})), decodeOptions);

    expect(result).toMatchObject({ ok: false, code: 'INVALID_ENVELOPE' });
    expect(!result.ok && result.message).toContain('{"event": <EventBridge event>}');
  });

  it('answers INVALID_ENVELOPE naming the missing envelope field, and keeps the event id', () => {
    const body = pipeBody({ ...busEvent('AccountCreated', {}), time: undefined });

    const result = decodeInboundMessage(body, decodeOptions);

    expect(result).toMatchObject({ ok: false, code: 'INVALID_ENVELOPE', eventId: 'evt-0001' });
    expect(!result.ok && result.message).toMatch(/^time: /);
  });

  it('answers INVALID_ENVELOPE for JSON that is not an object', () => {
    expect(decodeInboundMessage('[1,2,3]', decodeOptions)).toMatchObject({
      ok: false,
      code: 'INVALID_ENVELOPE',
    });
    expect(decodeInboundMessage('null', decodeOptions)).toMatchObject({
      ok: false,
      code: 'INVALID_ENVELOPE',
    });
  });

  it('answers INVALID_ENVELOPE when the detail is an array', () => {
    const result = decodeInboundMessage(eventBody('AccountCreated', ['acct-1001']), decodeOptions);

    expect(result).toMatchObject({ ok: false, code: 'INVALID_ENVELOPE' });
    expect(!result.ok && result.message).toMatch(/^detail: /);
  });

  it('answers UNEXPECTED_SOURCE for an event from another source, without the source it came from', () => {
    const body = eventBody('AccountCreated', inboundSamples.AccountCreated, { source: 'mallory.app' });

    const result = decodeInboundMessage(body, decodeOptions);

    expect(result).toMatchObject({
      ok: false,
      code: 'UNEXPECTED_SOURCE',
      eventId: 'evt-0001',
      detailType: 'AccountCreated',
      accountId: 'acct-1001',
    });
    expect(!result.ok && result.message).not.toContain('mallory');
  });

  it('answers UNKNOWN_DETAIL_TYPE for a detail-type without a contract, left to the refusal rule', () => {
    const result = decodeInboundMessage(
      eventBody('AccountDeleted', { accountId: 'acct-1001' }),
      decodeOptions,
    );

    expect(result).toMatchObject({
      ok: false,
      code: 'UNKNOWN_DETAIL_TYPE',
      detailType: 'AccountDeleted',
      accountId: 'acct-1001',
      refusedByRule: true,
    });
    expect(!result.ok && result.message).toContain('AccountCreated');
  });

  it.each([
    [{}, 'MISSING_ACCOUNT_ID'],
    [{ accountId: null }, 'MISSING_ACCOUNT_ID'],
    [{ accountId: '' }, 'INVALID_ACCOUNT_ID'],
    [{ accountId: 'acct 1001' }, 'INVALID_ACCOUNT_ID'],
    [{ accountId: 'a'.repeat(129) }, 'INVALID_ACCOUNT_ID'],
    [{ accountId: 'zürich-1' }, 'INVALID_ACCOUNT_ID'],
    [{ accountId: 1001 }, 'INVALID_ACCOUNT_ID'],
  ])('leaves %j to the refusal rule with %s: SQS cannot group it', (detail, code) => {
    const result = decodeInboundMessage(eventBody('SubscriptionStatusRequested', detail), decodeOptions);

    expect(result).toMatchObject({ ok: false, code, refusedByRule: true });
  });

  it('does not treat inherited object properties as detail-types', () => {
    const result = decodeInboundMessage(eventBody('constructor', { accountId: 'acct-1001' }), decodeOptions);

    expect(result).toMatchObject({ ok: false, code: 'UNKNOWN_DETAIL_TYPE' });
  });

  it('answers DETAIL_TOO_LARGE before validating a detail over the EventBridge limit', () => {
    const detail = {
      accountId: 'acct-1001',
      timesheetIds: Array.from({ length: MAX_DETAIL_BYTES / 4 }, () => 1001),
    };

    const result = decodeInboundMessage(eventBody('PayReturnsRequested', detail), decodeOptions);

    expect(result).toMatchObject({ ok: false, code: 'DETAIL_TOO_LARGE', accountId: 'acct-1001' });
  });

  it('answers INVALID_DETAIL naming the field, keeping ids and never echoing the value', () => {
    const detail = {
      ...inboundSamples.AccountCreated,
      owner: { ...inboundSamples.AccountCreated.owner, email: 'jane.doe.private' },
    };

    const result = decodeInboundMessage(eventBody('AccountCreated', detail), decodeOptions);

    expect(result).toEqual({
      ok: false,
      code: 'INVALID_DETAIL',
      message: 'detail.owner.email: Invalid email address',
      eventId: 'evt-0001',
      detailType: 'AccountCreated',
      accountId: 'acct-1001',
    });
  });

  it('masks unknown keys that are not field names, since keys can carry data too', () => {
    const detail = { ...inboundSamples.SubscriptionStatusRequested, 'jane@example.com': true, note: 1 };

    const result = decodeInboundMessage(eventBody('SubscriptionStatusRequested', detail), decodeOptions);

    expect(!result.ok && result.message).toBe('detail: Unrecognized keys: "note", 1 more not shown');
  });

  it('leaves out an accountId that is not id-shaped, so it cannot carry personal data into SyncFailed', () => {
    const result = decodeInboundMessage(
      eventBody('AccountCreated', { accountId: 'jane@x<>', businessName: 42 }),
      decodeOptions,
    );

    expect(result).toMatchObject({ ok: false, code: 'INVALID_DETAIL' });
    expect(result).not.toHaveProperty('accountId');
  });

  it('caps a long list of problems to a readable message', () => {
    const days = Array.from({ length: 20 }, () => ({ date: 'someday', value: -1 }));
    const detail = { ...inboundSamples.BudgetSet, days };

    const result = decodeInboundMessage(eventBody('BudgetSet', detail), decodeOptions);

    expect(!result.ok && result.message.split('; ')).toHaveLength(6);
    expect(!result.ok && result.message).toMatch(/; and \d+ more$/);
  });
});
