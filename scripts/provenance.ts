import { execFileSync } from 'node:child_process';

/**
 * Which code a measured run ran: the commit, and whether the working tree had changes then (a
 * results page must be reproducible from what it names). Read when the run starts, before it
 * writes anything of its own.
 */
export function sourceRevision(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const changes = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    }).trim();
    return changes === '' ? `commit ${commit}` : `commit ${commit} with uncommitted changes`;
  } catch {
    return 'outside a git checkout';
  }
}
