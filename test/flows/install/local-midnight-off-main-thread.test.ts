import { describe, expect, it, vi } from 'vitest';

// As in a worker thread, where process.env is the thread's own copy and TZ would not apply.
vi.mock('node:worker_threads', () => ({ isMainThread: false }));

describe('local midnight off the main thread', () => {
  it("places the day through Intl's formatter and never assigns the process's TZ", async () => {
    // Prepare
    const { localMidnightUnixSeconds } = await import('#functions/save-budget/local-midnight.ts');
    const before = process.env['TZ'];
    const assigned: string[] = [];
    const env = new Proxy(process.env, {
      set(target, key, value) {
        assigned.push(String(key));
        return Reflect.set(target, key, value);
      },
    });
    const original = process.env;
    process.env = env;

    // Act
    let midnight: number;
    try {
      midnight = localMidnightUnixSeconds('2026-03-09', 'America/New_York');
    } finally {
      process.env = original;
    }

    // Assess: 2026-03-09 00:00 in New York is 04:00Z (UTC-4 after the change the day before)
    expect(midnight).toBe(1773028800);
    expect(assigned).not.toContain('TZ');
    expect(process.env['TZ']).toBe(before);
  });
});
