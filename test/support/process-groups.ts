/**
 * Process groups of children a test started detached (their own group), killed as a whole when
 * the test says so or, as a last resort, when the test process exits without its hooks (a worker
 * torn down mid-test).
 */

const running = new Set<number>();

process.once('exit', () => {
  for (const pgid of running) killGroup(pgid);
});

/** Remembers the group `pgid` leads, for the exit handler. */
export function trackGroup(pgid: number | undefined): void {
  if (pgid !== undefined) running.add(pgid);
}

/** SIGKILL for every process of the group; forgets it. */
export function killGroup(pgid: number): void {
  running.delete(pgid);
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // the whole group is gone
  }
}

/** Whether the group was started and not yet killed through killGroup. */
export function isTracked(pgid: number): boolean {
  return running.has(pgid);
}
