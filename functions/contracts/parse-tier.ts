/**
 * When an object schema's parser is compiled.
 *
 * zod compiles an object schema into a parser of its own (`new Function`) on the schema's first
 * synchronous parse, unless that parse is told `jitless`. The compiled parser is a few
 * microseconds quicker per parse; compiling it costs far more than that (generating and compiling
 * the code), so it pays only after some hundreds of parses, and a cold start paid it for every
 * object schema its first record met (issue #17: the bench's first invocations with and without
 * it). So, as V8 tiers its own code, a schema is parsed `jitless` until it has been parsed
 * `COMPILE_AFTER_PARSES` times in this process, and compiled then: a warm function handling a
 * steady stream of events gets the compiled parsers, a first invocation does not build any.
 *
 * Use at the top-level parses of the hot paths (the inbound contract, service answers, store
 * items, the outbound contract): `schema.safeParse(value, parseTier(schema))`. The flag reaches
 * every schema nested in that parse.
 */

export const COMPILE_AFTER_PARSES = 100;

/**
 * zod's per-parse option that skips compiling (`ParseContext.jitless`): for a schema while it is
 * cold, and for a parse that runs once per execution environment (a JSON setting at cold start, the
 * refusal function's settings), whose compiled parser would never be used again.
 */
export const INTERPRETED = { jitless: true } as const;

const parsesSoFar = new WeakMap<object, number>();

/** The parse options for this parse of `schema`: interpreted while the schema is cold. */
export function parseTier(schema: object): typeof INTERPRETED | undefined {
  const count = parsesSoFar.get(schema) ?? 0;
  if (count >= COMPILE_AFTER_PARSES) return undefined;
  parsesSoFar.set(schema, count + 1);
  return INTERPRETED;
}
