import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isTracked, killGroup, trackGroup } from '#test/support/process-groups.ts';
import { type WatchedChild, watchChild } from '#test/support/watched-child.ts';

/** The repository's TypeScript commands run directly with tsx, in a child process (npm scripts: test/support/npm-script.ts). */

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

export interface RunningCommand extends Omit<WatchedChild, 'exited'> {
  /** Resolves with the exit code once the process is gone. */
  exited: Promise<number | null>;
  /**
   * SIGKILL for the command's whole process group: tsx and the node process it starts (a SIGKILL
   * to tsx alone would leave that one running, with its ports).
   */
  killGroup(): Promise<void>;
}

export function startCommand(script: string, args: readonly string[]): RunningCommand {
  const watched = watchChild(
    spawn(TSX, [script, ...args], {
      cwd: PROJECT_ROOT,
      // A developer's AWS settings must not reach the local runtime.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_NO_WARNINGS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own, so killGroup reaches everything it starts; signals sent with
      // `child.kill` still go to tsx alone.
      detached: true,
    }),
  );
  const pgid = watched.child.pid;
  trackGroup(pgid);
  const exited = watched.exited.then(({ code }) => code);
  return {
    ...watched,
    exited,
    killGroup: async () => {
      if (pgid === undefined || !isTracked(pgid)) return;
      killGroup(pgid);
      await exited;
    },
  };
}

/** Runs a command to its end. */
export async function runCommand(
  script: string,
  args: readonly string[],
): Promise<{ code: number | null; output: string }> {
  const command = startCommand(script, args);
  const code = await command.exited;
  return { code, output: command.output() };
}
