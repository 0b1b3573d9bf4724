import { RetryableError } from '#functions/commons/errors.ts';

/**
 * Simulated process deaths between the steps of multi-step use cases, for the chaos run
 * (`npm run chaos`, docs/reliability.md). A Lambda can die anywhere (timeout, out of memory, a
 * host going away); the guards in the store only prove themselves if that actually happens
 * between a create call and recording its id, or between two areas of one location.
 *
 * Off unless `CONNECTOR_CRASH_RATE` is above 0. The variable is read once, at module load, so a
 * disabled crash point costs one comparison. Deployed stacks never set it.
 *
 * The draw is seeded (`CONNECTOR_CRASH_SEED`, default 1) so a chaos run can be replayed; the
 * order of draws still follows the interleaving of concurrent invocations, so the same seed gives
 * the same crash rate, not the same crashed records.
 */

/** Thrown at a crash point. Retryable: the batch layer reports the record as failed and SQS redelivers it. */
export class SimulatedCrash extends RetryableError {
  readonly crashPoint: string;
  constructor(name: string) {
    super('SIMULATED_CRASH', `simulated crash at ${name}`);
    this.crashPoint = name;
  }
}

export interface CrashPointSettings {
  /** Probability (0..1) that a crash point throws. */
  readonly rate: number;
  /** @default 1 */
  readonly seed?: number;
}

interface ActiveCrashes {
  rate: number;
  random: () => number;
  counts: Map<string, number>;
}

let active: ActiveCrashes | undefined = fromEnvironment(process.env);

/** Throws a SimulatedCrash with the configured probability; does nothing when crash points are off. */
export function crashPoint(name: string): void {
  if (active === undefined) return;
  if (active.random() >= active.rate) return;
  active.counts.set(name, (active.counts.get(name) ?? 0) + 1);
  throw new SimulatedCrash(name);
}

/** Turns crash points on (rate > 0) or off (undefined or rate 0) for this process; tests and the chaos tool. */
export function configureCrashPoints(settings: CrashPointSettings | undefined): void {
  active = settings === undefined ? undefined : activate(settings.rate, settings.seed ?? 1);
}

/** Crashes simulated so far in this process, per crash point name. */
export function simulatedCrashCounts(): Record<string, number> {
  return Object.fromEntries(active?.counts ?? []);
}

function fromEnvironment(env: NodeJS.ProcessEnv): ActiveCrashes | undefined {
  const rate = Number(env['CONNECTOR_CRASH_RATE'] ?? '');
  const seed = Number(env['CONNECTOR_CRASH_SEED'] ?? '1');
  return activate(rate, Number.isInteger(seed) ? seed : 1);
}

function activate(rate: number, seed: number): ActiveCrashes | undefined {
  if (!Number.isFinite(rate) || rate <= 0) return undefined;
  return { rate: Math.min(rate, 1), random: mulberry32(seed), counts: new Map() };
}

/** mulberry32: small, fast and good enough to spread crashes; not for anything secret. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
