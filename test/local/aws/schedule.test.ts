import { describe, expect, it } from 'vitest';
import { parseSchedule } from '#local/aws/schedule.ts';

describe('EventBridge schedule expressions ("Schedule expressions for rules")', () => {
  it('fires a rate schedule one interval after the previous firing', () => {
    // Act
    const next = parseSchedule('rate(1 hour)').next(new Date('2025-03-03T09:15:00Z'));

    // Assess
    expect(next.toISOString()).toBe('2025-03-03T10:15:00.000Z');
  });

  it('fires a cron schedule at the next matching minute in UTC', () => {
    // Act
    const daily = parseSchedule('cron(0 12 * * ? *)').next(new Date('2025-03-03T12:00:00Z'));
    const weekdays = parseSchedule('cron(30 8 ? * MON-FRI *)').next(new Date('2025-03-07T09:00:00Z'));

    // Assess
    expect(daily.toISOString()).toBe('2025-03-04T12:00:00.000Z');
    // Friday 09:00 → Monday 08:30.
    expect(weekdays.toISOString()).toBe('2025-03-10T08:30:00.000Z');
  });

  it('refuses expressions EventBridge refuses, and cron forms the local runtime does not model', () => {
    // Act / Assess
    expect(() => parseSchedule('rate(1 hours)')).toThrow(/singular/);
    expect(() => parseSchedule('cron(0 12 * * * *)')).toThrow(/exactly one/);
    expect(() => parseSchedule('cron(0 12 L * ? *)')).toThrow(/not modeled/);
    expect(() => parseSchedule('every hour')).toThrow(/rate\(\.\.\.\) or cron/);
  });
});
