import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { instantKey, isoDateTime, rfc3339DateTime } from '#functions/contracts/date-time.ts';
import { occurredAt as occurredAtField } from '#functions/contracts/fields.ts';
import { inboundSamples } from '#functions/contracts/samples.ts';
import { agreedHourSchema } from '#functions/service/records/agreed-hours.ts';
import * as records from '../client/spec-records.ts';
import { decodeInboundMessage, decodeOptions, eventBody } from './support.ts';

/**
 * zod 4.5 made `z.iso.datetime()` require seconds; the connector's date-times still accept them
 * left out, as they did before the upgrade (functions/contracts/date-time.ts).
 */
describe('isoDateTime', () => {
  const utc = isoDateTime();
  const withOffset = isoDateTime({ offset: true });

  it('accepts a UTC time to the minute, the second or any fraction of it', () => {
    for (const value of ['2026-03-01T09:00Z', '2026-03-01T09:00:05Z', '2026-03-01T09:00:05.123456Z'])
      expect(utc.safeParse(value).success, value).toBe(true);
  });

  it('refuses a time without Z, an offset where only UTC is allowed, and a day the calendar lacks', () => {
    for (const value of [
      '2026-03-01T09:00',
      '2026-03-01T09:00+02:00',
      '2026-02-29T09:00Z',
      '2026-03-01 09:00Z',
    ])
      expect(utc.safeParse(value).success, value).toBe(false);
  });

  it('accepts an hh:mm offset with or without seconds when offsets are allowed, and nothing looser', () => {
    expect(withOffset.safeParse('2026-03-01T09:00+02:00').success).toBe(true);
    expect(withOffset.safeParse('2026-03-01T09:00:00-05:30').success).toBe(true);
    expect(withOffset.safeParse('2026-03-01T09:00:00+0200').success).toBe(false);
    expect(withOffset.safeParse('2026-03-01T09:00:00+24:00').success).toBe(false);
  });

  it("refuses with zod's own date-time issue, or the message given", () => {
    const refused = utc.safeParse('soon');
    expect(refused.error?.issues[0]).toMatchObject({ code: 'invalid_format', format: 'datetime' });
    expect(isoDateTime({ error: 'say when' }).safeParse('soon').error?.issues[0]?.message).toBe('say when');
  });

  it('keeps format date-time in the JSON Schema the events/ files are generated from', () => {
    expect(z.toJSONSchema(withOffset)).toMatchObject({ type: 'string', format: 'date-time' });
  });
});

describe('date-times written to the minute', () => {
  it('pass the inbound contracts: the envelope time and an employee work period', () => {
    // Prepare
    const detail = structuredClone(inboundSamples.EmployeeChanged) as {
      regularHours: { workPeriod: Record<string, unknown> };
    };
    detail.regularHours.workPeriod['startDate'] = '2025-03-03T00:00Z';

    // Act
    const decoded = decodeInboundMessage(
      eventBody('EmployeeChanged', detail, { time: '2025-03-03T09:00Z' }),
      decodeOptions,
    );

    // Assess
    expect(decoded.ok, decoded.ok ? '' : decoded.message).toBe(true);
  });

  it("pass the service's agreed-hour record, and a value that is no time names the field's rule", () => {
    const workPeriod = { ...records.fullAgreedHour.workPeriod, startDate: '2026-01-05T00:00Z' };
    expect(agreedHourSchema.safeParse({ ...records.fullAgreedHour, workPeriod }).success).toBe(true);

    const refused = agreedHourSchema.safeParse({
      ...records.fullAgreedHour,
      workPeriod: { ...workPeriod, startDate: 'next tuesday' },
    });
    expect(refused.error?.issues[0]?.message).toBe('must be a UTC ISO 8601 timestamp ending in Z');
  });
});

describe('occurredAt (rfc3339DateTime)', () => {
  const occurredAt = rfc3339DateTime();

  it('accepts RFC 3339 with seconds, Z or an hh:mm offset, and up to nine fractional digits', () => {
    for (const value of [
      '2026-03-01T09:00:00Z',
      '2026-03-01T09:00:00.5+02:00',
      '2026-03-01T09:00:00.123456789-05:30',
    ])
      expect(occurredAt.safeParse(value).success, value).toBe(true);
  });

  it('refuses a time to the minute, without an offset, with a ten-digit fraction, or an hhmm offset, saying what it takes', () => {
    for (const value of [
      '2026-03-01T09:00Z',
      '2026-03-01T09:00:00',
      '2026-03-01T09:00:00.1234567891Z',
      '2026-03-01T09:00:00+0200',
      '2026-02-29T09:00:00Z',
    ]) {
      const refused = occurredAt.safeParse(value);
      expect(refused.success, value).toBe(false);
      expect(refused.error?.issues[0]?.message, value).toMatch(
        /RFC 3339 date-time with seconds and an offset/,
      );
    }
  });

  it('is refused in an inbound detail as INVALID_DETAIL naming detail.occurredAt', () => {
    // Act
    const decoded = decodeInboundMessage(
      eventBody('PlanChosen', { ...inboundSamples.PlanChosen, occurredAt: '2026-03-01T09:00Z' }),
      decodeOptions,
    );

    // Assess
    expect(decoded).toMatchObject({ ok: false, code: 'INVALID_DETAIL' });
    expect(decoded.ok ? '' : decoded.message).toMatch(/^detail\.occurredAt: expected an RFC 3339 date-time/);
  });
});

describe('instantKey', () => {
  it('gives one fixed-width UTC key per instant, whatever the spelling', () => {
    // Assess
    expect(instantKey('2026-03-01T09:00:00.5+02:00')).toBe('2026-03-01T07:00:00.500000000Z');
    expect(instantKey('2026-03-01T07:00:00.500Z')).toBe('2026-03-01T07:00:00.500000000Z');
    expect(instantKey('2026-03-01T07:00Z')).toBe('2026-03-01T07:00:00.000000000Z');
    expect(instantKey('0050-03-01T07:00:00Z')).toBe('0050-03-01T07:00:00.000000000Z');
  });

  it('sorts as the instants do, across offsets, days and fractions', () => {
    // Prepare
    const instants = [
      '2026-03-01T23:30:00-02:00',
      '2026-03-02T01:00:00.000000001Z',
      '2026-03-02T01:00:00Z',
      '2026-03-02T02:59:59.999+02:00',
      '2025-12-31T23:59:59.9Z',
    ];

    // Act
    const byKey = [...instants].sort((a, b) => (instantKey(a) < instantKey(b) ? -1 : 1));

    // Assess
    // 02:59:59.999+02:00 is 00:59:59.999Z; 23:30:00-02:00 is 01:30:00Z the next day.
    expect(byKey).toEqual([
      '2025-12-31T23:59:59.9Z',
      '2026-03-02T02:59:59.999+02:00',
      '2026-03-02T01:00:00Z',
      '2026-03-02T01:00:00.000000001Z',
      '2026-03-01T23:30:00-02:00',
    ]);
  });

  it('refuses an instant outside the years 0000-9999 in UTC, and the schema says so first', () => {
    // Assess
    expect(() => instantKey('0000-01-01T00:30:00+01:00')).toThrow(RangeError);
    expect(occurredAtField.safeParse('0000-01-01T00:30:00+01:00').error?.issues[0]?.message).toBe(
      'must be an instant between the years 0000 and 9999 in UTC',
    );
  });
});
