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
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/**
 * Runs `work` over `items`, at most `limit` at a time, starting nothing new once `stop()` says so.
 * Resolves when every started item has settled, with the number of items never started. The
 * scheduled watches run their due businesses through it, stopping on time or budget contention.
 */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  stop: () => boolean,
  work: (item: T) => Promise<void>,
): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stop()) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return items.length - next;
}
