/** One day in milliseconds: trial and notice arithmetic, and local midnight's neighbouring days. */
export const DAY_MS = 86_400_000;
