import { RetryableError } from '#functions/domain/errors.ts';
import type { Interruptions } from '#functions/runtime/dependencies.ts';
import { mulberry32 } from '#local/random.ts';

/**
 * Simulated process deaths between the steps of multi-step use cases, for the chaos run
 * (`npm run chaos`, docs/reliability.md). A Lambda can die anywhere (timeout, out of memory, a
 * host going away); the guards in the store only prove themselves if that actually happens
 * between a create call and recording its id, or between two areas of one location.
 *
 * The use cases name those places through their `interruptions` collaborator
 * (functions/runtime/dependencies.ts), which deployed functions do not have; the chaos run injects this one
 * into the functions it hosts (`dependencyOptions` of the local runtime, passed to each handler
 * module's `createHandler`). Nothing of it is in a deployed bundle
 * (test/infra/artifact.test.ts greps the assets).
 *
 * The draw is seeded, so a chaos run can be replayed; the order of draws still follows the
 * interleaving of concurrent invocations, so the same seed gives the same crash rate, not the same
 * crashed records.
 */

/** Thrown at a crash point. Retryable: the batch layer reports the record as failed and SQS redelivers it. */
export class SimulatedCrash extends RetryableError {
  readonly crashPoint: string;
  constructor(name: string) {
    super('SIMULATED_CRASH', `simulated crash at ${name}`);
    this.crashPoint = name;
  }
}

export interface CrashPoints extends Interruptions {
  /** Crashes simulated so far, per crash point name. */
  counts(): Record<string, number>;
}

/** Interruptions that throw a SimulatedCrash with probability `rate` (0..1) at every point. */
export function crashPoints({ rate, seed = 1 }: { rate: number; seed?: number }): CrashPoints {
  const random = mulberry32(seed);
  const counts = new Map<string, number>();
  const probability = Math.min(Math.max(rate, 0), 1);
  return {
    at(point) {
      if (probability === 0 || random() >= probability) return;
      counts.set(point, (counts.get(point) ?? 0) + 1);
      throw new SimulatedCrash(point);
    },
    counts: () => Object.fromEntries(counts),
  };
}
