/** A seeded source of choices, so a chaos run with the same seed sends the same events. */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(values: readonly T[]): T;
  chance(probability: number): boolean;
}

export function seededRandom(seed: number): Random {
  // mulberry32, the same generator the sandbox uses for its faults.
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: <T>(values: readonly T[]): T => {
      if (values.length === 0) throw new RangeError('pick from an empty list');
      return values[int(0, values.length - 1)] as T;
    },
    chance: (probability: number) => next() < probability,
  };
}
