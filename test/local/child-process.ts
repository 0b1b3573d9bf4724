import { isTracked, killGroup } from '#test/support/process-groups.ts';
import { spawnInGroup, type WatchedChild } from '#test/support/watched-child.ts';

/**
 * The repository's TypeScript commands run directly with tsx, in a child process, as the npm
 * scripts run them (`node --import tsx`: one process; npm scripts: test/support/npm-script.ts).
 */

export interface RunningCommand extends Omit<WatchedChild, 'exited'> {
  /** Resolves with the exit code once the process is gone. */
  exited: Promise<number | null>;
  /** SIGKILL for the command's whole process group: node and anything it starts. */
  killGroup(): Promise<void>;
}

export function startCommand(
  script: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): RunningCommand {
  // A process group of its own, so killGroup reaches everything it starts.
  const watched = spawnInGroup(process.execPath, ['--import', 'tsx', script, ...args], env);
  const pgid = watched.child.pid;
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
  /** Variables the command gets besides PATH and HOME (e.g. an operator's AWS_ACCESS_KEY_ID). */
  env: Readonly<Record<string, string>> = {},
): Promise<{ code: number | null; output: string }> {
  const command = startCommand(script, args, env);
  const code = await command.exited;
  return { code, output: command.output() };
}
