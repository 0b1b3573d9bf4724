import { mulberry32 } from '#local/random.ts';

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
  const next = mulberry32(seed);
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
