/**
 * Process groups of children a test started detached (their own group), killed as a whole when
 * the test says so or, as a last resort, when the test process ends without its hooks: on exit,
 * and on SIGTERM/SIGINT (how a test pool tears a worker down, and Ctrl-C, which no longer reaches
 * the detached children). Node runs no 'exit' handler when a signal ends it, hence both.
 */

const running = new Set<number>();

function killAll(): void {
  for (const pgid of [...running]) killGroup(pgid);
}

process.once('exit', killAll);
for (const [signal, number] of [
  ['SIGTERM', 15],
  ['SIGINT', 2],
] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(128 + number);
  });
}

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
