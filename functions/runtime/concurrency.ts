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
