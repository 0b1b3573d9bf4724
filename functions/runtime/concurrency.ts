/**
 * Runs `work` over `items`, at most `limit` at a time, starting nothing new once `stop()` says so.
 * Resolves when every started item has settled, with the number of items never started (rejects
 * with the first failure of `work`, as Promise.all does). The scheduled watches run their due
 * businesses through it, stopping on time or budget contention.
 */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  stop: () => boolean,
  work: (item: T, index: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stop()) {
      const index = next;
      next += 1;
      await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return items.length - next;
}

/**
 * Runs `work` over `items` with at most `concurrency` calls in flight, results in the order of
 * `items`. Install reads go through this so that one record cannot flood an install with
 * requests (the spec names no rate limit, so the connector keeps its own share small).
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  await forEachBounded(
    items,
    concurrency,
    () => false,
    async (item, index) => {
      results[index] = await work(item, index);
    },
  );
  return results;
}
