import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { COMPILE_AFTER_PARSES, parseTier } from '#functions/contracts/parse-tier.ts';
import { inboundSamples } from '#functions/contracts/samples.ts';

/** Counts the functions compiled from source (zod's compiled object parsers) while `run` runs. */
async function compiledDuring(run: () => unknown): Promise<number> {
  let compiled = 0;
  const original = globalThis.Function;
  globalThis.Function = new Proxy(original, {
    construct(target, args) {
      compiled += 1;
      return Reflect.construct(target, args) as object;
    },
  });
  try {
    await run();
  } finally {
    globalThis.Function = original;
  }
  return compiled;
}

afterEach(() => {
  vi.resetModules();
});

describe('parseTier', () => {
  it('parses a schema interpreted until it has been parsed often, then compiles its parser once', async () => {
    // Prepare
    const schema = z.object({ id: z.string(), count: z.int().min(0), tags: z.array(z.string()).optional() });
    const value = { id: 'a', count: 2, tags: ['x'] };

    // Act
    const whileCold = await compiledDuring(() => {
      for (let parse = 0; parse < COMPILE_AFTER_PARSES; parse++) schema.parse(value, parseTier(schema));
    });
    const onceHot = await compiledDuring(() => {
      for (let parse = 0; parse < 10; parse++) schema.parse(value, parseTier(schema));
    });

    // Assess
    expect(whileCold).toBe(0);
    expect(onceHot).toBe(1);
    expect(schema.parse(value, parseTier(schema))).toEqual(value);
  });

  it('reports the same issues interpreted as compiled', () => {
    // Prepare
    const schema = z.object({ id: z.string(), count: z.int().min(0) });
    const bad = { id: 7, count: -1 };

    // Act
    const interpreted = schema.safeParse(bad, { jitless: true });
    const compiled = schema.safeParse(bad);

    // Assess
    expect(interpreted.error?.issues).toEqual(compiled.error?.issues);
  });

  it("lets a route's first record be decoded without compiling a parser", async () => {
    // Prepare: a cold module graph, as in a new execution environment
    const { createRouteDecoder } = await import('#functions/contracts/route-decoder.ts');
    const employeeChanged = await import('#functions/contracts/inbound/employee-changed.ts');
    const decode = createRouteDecoder(employeeChanged);
    const body = JSON.stringify({
      event: {
        version: '0',
        id: '5f0c8a8e-1a1b-4c1d-9e1f-000000000001',
        'detail-type': 'EmployeeChanged',
        source: 'partner.app',
        account: '123456789012',
        time: '2026-11-26T10:00:00Z',
        region: 'us-east-1',
        resources: [],
        detail: inboundSamples.EmployeeChanged,
      },
    });

    // Act
    let decoded: ReturnType<typeof decode> | undefined;
    const compiled = await compiledDuring(() => {
      decoded = decode(body, { source: 'partner.app' });
    });

    // Assess
    expect(decoded?.ok).toBe(true);
    expect(compiled).toBe(0);
  });
});
