import { z } from 'zod';

/**
 * `401-no-code`, `403-no-code`, `404-no-code`: the status with a body that carries no error code
 * (`{"message": ...}`, as a gateway in front of a service answers), for the connector's readings of
 * such answers (serviceAssumptions.uncodedStatusReadings); nothing is applied.
 */
export const FAULT_KINDS = [
  '429',
  '500',
  'timeout',
  'drop-after-commit',
  '401-no-code',
  '403-no-code',
  '404-no-code',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const faultPlanSchema = z.strictObject({
  rate: z.number().min(0).max(1),
  kinds: z.array(z.enum(FAULT_KINDS)).min(1),
  seed: z.number().int().default(1),
  // Extensions beyond the architecture contract so tests can fault exactly one call.
  count: z.number().int().positive().optional(),
  pathPrefix: z.string().min(1).optional(),
});
export type FaultPlan = z.infer<typeof faultPlanSchema>;

/** mulberry32: a tiny PRNG; the same seed replays the same fault sequence. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ActivePlan {
  plan: FaultPlan;
  random: () => number;
  remaining: number | undefined;
  injected: number;
}

export class FaultInjector {
  private active: ActivePlan | undefined;

  configure(plan: FaultPlan): void {
    this.active = { plan, random: mulberry32(plan.seed), remaining: plan.count, injected: 0 };
  }

  clear(): void {
    this.active = undefined;
  }

  describe(): (FaultPlan & { remaining: number | null; injected: number }) | null {
    if (!this.active) return null;
    return { ...this.active.plan, remaining: this.active.remaining ?? null, injected: this.active.injected };
  }

  /** Decides the fate of one non-control request; undefined means serve it normally. */
  draw(path: string): FaultKind | undefined {
    const active = this.active;
    if (!active) return undefined;
    if (active.plan.pathPrefix !== undefined && !path.startsWith(active.plan.pathPrefix)) return undefined;
    if (active.remaining === 0) return undefined;
    if (active.random() >= active.plan.rate) return undefined;
    const kinds = active.plan.kinds;
    const kind = kinds[Math.floor(active.random() * kinds.length)] ?? kinds[0];
    if (active.remaining !== undefined) active.remaining -= 1;
    active.injected += 1;
    return kind;
  }
}

/** Sliding one-second window over wall time: the limit models the service, not the sandbox clock. */
export class RateLimiter {
  private accepted: number[] = [];

  constructor(private readonly perSecond: number | undefined) {}

  tryAcquire(nowMs = Date.now()): boolean {
    if (this.perSecond === undefined) return true;
    this.accepted = this.accepted.filter((time) => nowMs - time < 1000);
    if (this.accepted.length >= this.perSecond) return false;
    this.accepted.push(nowMs);
    return true;
  }

  reset(): void {
    this.accepted = [];
  }
}
