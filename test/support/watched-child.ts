import { type ChildProcess, spawn } from 'node:child_process';
import { PROJECT_ROOT } from '#lib/connector-function.ts';
import { trackGroup } from './process-groups.ts';

/** A child process whose output a test reads and waits on. */
export interface WatchedChild {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects if the process exits first or on timeout. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** Resolves once the process is gone, with its exit code or the signal that ended it. */
  readonly exited: Promise<ChildExit>;
}

export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Collects `child`'s stdout and stderr (piped) as it writes them. */
export function watchChild(child: ChildProcess): WatchedChild {
  let output = '';
  let gone = false;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    notify();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<ChildExit>((resolve) =>
    child.on('close', (code, signal) => {
      gone = true;
      notify();
      resolve({ code, signal });
    }),
  );
  return {
    child,
    output: () => output,
    exited,
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern} in:\n${output.slice(-3000)}`));
        }, timeoutMs);
        function check(): void {
          const match = pattern.exec(output);
          if (!match && !gone) return;
          clearTimeout(timer);
          listeners.delete(check);
          if (match) resolve(match);
          else reject(new Error(`exited before ${pattern}:\n${output.slice(-3000)}`));
        }
        listeners.add(check);
        check();
      }),
  };
}

/**
 * `command` started from the repository root as a partner's shell would start it (no AWS settings
 * of the developer's), its output watched, leading a process group of its own (tracked: the test
 * process kills it if a test does not), so everything it starts can be killed together. Signals a
 * test sends with `child.kill` still go to the command alone, as a process manager sends them.
 */
export function spawnInGroup(
  command: string,
  args: readonly string[],
  /** Variables the child gets besides PATH and HOME (an operator command's credentials). @default none */
  env: Readonly<Record<string, string>> = {},
): WatchedChild {
  const watched = watchChild(
    spawn(command, [...args], {
      cwd: PROJECT_ROOT,
      // A developer's AWS settings must not reach the local runtime.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_NO_WARNINGS: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    }),
  );
  trackGroup(watched.child.pid);
  return watched;
}
