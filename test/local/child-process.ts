import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository's commands as a user runs them (`npm start` is `tsx local/cli.ts`), in a child process. */

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

export interface RunningCommand {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects if the process exits first. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** Resolves with the exit code once the process is gone. */
  exited: Promise<number | null>;
}

export function startCommand(script: string, args: readonly string[]): RunningCommand {
  const child = spawn(TSX, [script, ...args], {
    cwd: PROJECT_ROOT,
    // A developer's AWS settings must not reach the local runtime.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_NO_WARNINGS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => {
    gone = true;
    for (const listener of listeners) listener();
  });
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
          if (match || gone) {
            clearTimeout(timer);
            listeners.delete(check);
            if (match) resolve(match);
            else reject(new Error(`exited before ${pattern}:\n${output.slice(-3000)}`));
          }
        }
        listeners.add(check);
        check();
      }),
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
