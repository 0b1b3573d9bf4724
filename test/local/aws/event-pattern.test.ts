import { describe, expect, it } from 'vitest';
import { compileEventPattern } from '#local/aws/event-pattern.ts';

const event = (detail: Record<string, unknown>, overrides: Record<string, unknown> = {}) => ({
  source: 'partner.app',
  'detail-type': 'AccountCreated',
  detail,
  ...overrides,
});

describe('EventBridge event patterns ("Amazon EventBridge event patterns", "Content filtering")', () => {
  it('matches every named field (AND) against its list of alternatives (OR)', () => {
    // Prepare
    const matches = compileEventPattern({
      source: ['partner.app'],
      'detail-type': ['AccountCreated', 'PlanChosen'],
    });

    // Act / Assess
    expect(matches(event({}))).toBe(true);
    expect(matches(event({}, { 'detail-type': 'PlanChosen' }))).toBe(true);
    expect(matches(event({}, { 'detail-type': 'BudgetSet' }))).toBe(false);
    expect(matches(event({}, { source: 'other' }))).toBe(false);
  });

  it('matches exists on leaf values only: present, null and scalar arrays exist; absent, objects and empty arrays do not', () => {
    // Prepare
    const exists = compileEventPattern({ detail: { accountId: [{ exists: true }] } });
    const absent = compileEventPattern({ detail: { accountId: [{ exists: false }] } });

    // Act / Assess
    expect(exists(event({ accountId: 'a' }))).toBe(true);
    expect(exists(event({ accountId: null }))).toBe(true);
    expect(exists(event({ accountId: ['a'] }))).toBe(true);
    expect(exists(event({}))).toBe(false);
    expect(exists(event({ accountId: { nested: 1 } }))).toBe(false);
    expect(exists(event({ accountId: [] }))).toBe(false);
    expect(absent(event({}))).toBe(true);
    expect(absent(event({ accountId: 'a' }))).toBe(false);
  });

  it('matches any element of an array value', () => {
    // Act / Assess
    expect(compileEventPattern({ detail: { tags: ['b'] } })(event({ tags: ['a', 'b'] }))).toBe(true);
    expect(compileEventPattern({ detail: { tags: ['c'] } })(event({ tags: ['a', 'b'] }))).toBe(false);
  });

  it('supports prefix, suffix, equals-ignore-case, wildcard, numeric, anything-but and $or', () => {
    // Act / Assess
    expect(compileEventPattern({ detail: { id: [{ prefix: 'acct-' }] } })(event({ id: 'acct-1' }))).toBe(
      true,
    );
    expect(compileEventPattern({ detail: { id: [{ suffix: '.png' }] } })(event({ id: 'a.PNG' }))).toBe(false);
    expect(
      compileEventPattern({ detail: { id: [{ suffix: { 'equals-ignore-case': '.png' } }] } })(
        event({ id: 'a.PNG' }),
      ),
    ).toBe(true);
    expect(compileEventPattern({ detail: { id: [{ wildcard: '* *' }] } })(event({ id: 'a b' }))).toBe(true);
    expect(compileEventPattern({ detail: { id: [{ wildcard: '*' }] } })(event({ id: '' }))).toBe(true);
    expect(compileEventPattern({ detail: { n: [{ numeric: ['>', 0, '<=', 5] }] } })(event({ n: 5 }))).toBe(
      true,
    );
    expect(compileEventPattern({ detail: { n: [{ numeric: ['>', 0, '<=', 5] }] } })(event({ n: 6 }))).toBe(
      false,
    );
    const notInit = compileEventPattern({
      detail: { state: [{ 'anything-but': ['initializing', 'stopped'] }] },
    });
    expect(notInit(event({ state: 'running' }))).toBe(true);
    expect(notInit(event({ state: 'stopped' }))).toBe(false);
    // anything-but needs a value: an absent field is not "anything".
    expect(notInit(event({}))).toBe(false);
    const either = compileEventPattern({ detail: { $or: [{ a: [1] }, { b: [2] }] } });
    expect(either(event({ b: 2 }))).toBe(true);
    expect(either(event({ a: 2 }))).toBe(false);
  });

  it('refuses an operator the local runtime does not model, so it stops at start-up', () => {
    // Act / Assess
    expect(() => compileEventPattern({ detail: { ip: [{ cidr: '10.0.0.0/24' }] } })).toThrow(/not modeled/);
  });
});
