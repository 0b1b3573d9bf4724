import * as z from 'zod';

/**
 * A whole number from 1 to `max` written as text (an environment variable); `text` may carry its
 * own messages. Its own module, so a function that reads a few variables (route-queue.ts, in the
 * refusal function too) does not load the whole connector configuration.
 */
export const wholeNumberText = (max: number, text: z.ZodString = z.string()) =>
  text
    .regex(/^\d+$/, { error: 'must be a whole number' })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1, { error: 'must be at least 1' })
        .max(max, { error: `must be at most ${max}` }),
    );

/**
 * Parse options for a schema that parses once per execution environment (the environment at cold
 * start, the assumptions' defaults): zod compiles a fast path for an object schema on its first
 * synchronous parse (`new Function`), which costs more than it saves on a parse that runs once.
 */
export const PARSED_ONCE = { jitless: true } as const;
