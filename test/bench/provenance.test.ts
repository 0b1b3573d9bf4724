import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commandLine, sourceRevision } from '#scripts/provenance.ts';

describe('the revision a results page names', () => {
  let repo: string;
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.test', ...args], {
      cwd: repo,
      encoding: 'utf8',
    }).trim();

  beforeEach(async () => {
    // Prepare: a checkout with code and a committed results page.
    repo = await mkdtemp(join(tmpdir(), 'provenance-'));
    await mkdir(join(repo, 'docs', 'results'), { recursive: true });
    await writeFile(join(repo, 'code.ts'), 'export const a = 1;\n');
    await writeFile(join(repo, 'docs', 'results', 'bench.md'), '# Benchmark results\n');
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'start');
  });

  afterEach(async () => {
    await rm(repo, { recursive: true, force: true });
  });

  it('is the bare commit while only a results page was regenerated', async () => {
    // Prepare
    await writeFile(join(repo, 'docs', 'results', 'bench.md'), '# Benchmark results, again\n');

    // Act
    const revision = sourceRevision({ cwd: repo });

    // Assess
    expect(revision).toBe(`commit ${git('rev-parse', '--short', 'HEAD')}`);
  });

  it('says the code had uncommitted changes when it had', async () => {
    // Prepare
    await writeFile(join(repo, 'code.ts'), 'export const a = 2;\n');

    // Act
    const revision = sourceRevision({ cwd: repo });

    // Assess
    expect(revision).toBe(`commit ${git('rev-parse', '--short', 'HEAD')} with uncommitted changes`);
  });
  it('says so for a new source file not yet committed, not for an ignored one', async () => {
    // Prepare
    await writeFile(join(repo, '.gitignore'), 'out/\n');
    git('add', '.gitignore');
    git('commit', '-qm', 'ignore out/');
    await mkdir(join(repo, 'out'));
    await writeFile(join(repo, 'out', 'results.json'), '{}\n');
    const ignoredOnly = sourceRevision({ cwd: repo });
    await writeFile(join(repo, 'helper.ts'), 'export const b = 1;\n');

    // Act
    const revision = sourceRevision({ cwd: repo });

    // Assess
    const commit = git('rev-parse', '--short', 'HEAD');
    expect(ignoredOnly).toBe(`commit ${commit}`);
    expect(revision).toBe(`commit ${commit} with uncommitted changes`);
  });
});

describe('the command a results page names', () => {
  it('is the npm script, with its arguments after -- when there are any', () => {
    // Act + Assess
    expect(commandLine('bench', [])).toBe('npm run bench');
    expect(commandLine('chaos', ['--events', '100'])).toBe('npm run chaos -- --events 100');
  });
});
