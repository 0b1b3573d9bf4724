import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { killGroup } from './process-groups.ts';
import { type ChildExit, spawnInGroup, type WatchedChild } from './watched-child.ts';

/**
 * An npm script run as a partner runs it (`npm run sandbox -- ...`, `npm start -- ...`), with what it
 * takes to check that a signal to npm stops everything the script started: the process tree under
 * npm, processes by command line, and whether a port still takes connections.
 */

export interface RunningScript extends WatchedChild {
  /** As `exited`, or 'still running' after `timeoutMs`. */
  exitedWithin(timeoutMs: number): Promise<ChildExit | 'still running'>;
  /**
   * SIGKILL for everything the script started, whatever the test got to: its process group and the
   * processes under npm now. For a test's afterEach, so a wait that ran out leaves nothing running.
   */
  killTree(): Promise<void>;
}

export function startNpmScript(script: string, args: readonly string[]): RunningScript {
  // npm leads a process group of its own: everything under it (sh, node, esbuild) can be killed
  // together, even once npm is gone and its children were handed to init.
  const watched = spawnInGroup('npm', ['run', script, '--', ...args]);
  const pgid = watched.child.pid;
  let npmGone = false;
  void watched.exited.then(() => {
    npmGone = true;
  });
  const exitedWithin = (timeoutMs: number): Promise<ChildExit | 'still running'> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'still running'>((resolve) => {
      timer = setTimeout(() => resolve('still running'), timeoutMs);
    });
    return Promise.race([watched.exited, late]).finally(() => clearTimeout(timer));
  };
  return {
    ...watched,
    exitedWithin,
    killTree: async () => {
      if (pgid === undefined) return;
      // Descendants that may have left npm's group are found through the tree before the group goes
      // (only while npm runs: once it is gone, its pid may be another process's).
      const tree = npmGone ? [] : await processTree(pgid);
      killGroup(pgid);
      await killLeftovers(tree.map((info) => info.pid));
      await exitedWithin(5_000);
    },
  };
}

export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly args: string;
  /** Exited, waiting only to be reaped by its parent (init, once orphaned): not running. */
  readonly zombie: boolean;
}

async function processes(): Promise<ProcessInfo[]> {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile('ps', ['-eo', 'pid=,ppid=,stat=,args='], { maxBuffer: 16 * 1024 * 1024 }, (error, out) =>
      error ? reject(error) : resolve(out),
    ),
  );
  return stdout.split('\n').flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    return match
      ? [
          {
            pid: Number(match[1]),
            ppid: Number(match[2]),
            args: match[4] ?? '',
            zombie: (match[3] ?? '').startsWith('Z'),
          },
        ]
      : [];
  });
}

/** The process `rootPid` and all its descendants, as they are now. */
export async function processTree(rootPid: number): Promise<ProcessInfo[]> {
  const all = await processes();
  const tree = all.filter((info) => info.pid === rootPid);
  for (let index = 0; index < tree.length; index += 1) {
    const parent = tree[index]?.pid;
    tree.push(...all.filter((info) => info.ppid === parent));
  }
  return tree;
}

/** The processes still running among `pids`. */
export async function stillRunning(pids: readonly number[]): Promise<ProcessInfo[]> {
  return (await processes()).filter((info) => pids.includes(info.pid) && !info.zombie);
}

/** SIGKILL for those of `pids` still running (a failed test's leftovers). */
export async function killLeftovers(pids: readonly number[]): Promise<void> {
  for (const { pid } of await stillRunning(pids)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone in the meantime
    }
  }
}

/** The processes whose command line contains `text` (other than the `ps` that lists them). */
export async function processesNamed(text: string): Promise<ProcessInfo[]> {
  return (await processes()).filter(
    (info) => !info.zombie && info.args.includes(text) && !info.args.startsWith('ps '),
  );
}

/** Whether something on 127.0.0.1 accepts a TCP connection on `port`. */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}
