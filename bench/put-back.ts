/**
 * Runs `setUp` and then `run`, and `restore` whatever happened: the way a raw replay borrows the
 * state a handler met (bench/table-state.ts, bench/service-state.ts) and gives back what it found.
 * A failure of `restore` does not hide one of `setUp` or `run`: both are thrown together.
 */
export async function withPutBack<T>(
  what: string,
  steps: { setUp: () => Promise<void>; run: () => Promise<T>; restore: () => Promise<void> },
): Promise<T> {
  let failure: { error: unknown } | undefined;
  try {
    await steps.setUp();
    return await steps.run();
  } catch (error) {
    failure = { error };
    throw error;
  } finally {
    try {
      await steps.restore();
    } catch (restoring) {
      // biome-ignore lint/correctness/noUnsafeFinally: both failures are reported together
      throw failure ? new AggregateError([failure.error, restoring], `${what} both failed`) : restoring;
    }
  }
}
