import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ownPeakRssKb } from '#bench/peak-rss.ts';

const run = promisify(execFile);

describe.runIf(process.platform === 'linux')('the peak memory a bench child reports', () => {
  it('is its own, not its parent’s', async () => {
    // Prepare: this process holds 300 MB, touched, while it starts a fresh node, as the bench does.
    const held = Buffer.alloc(300 * 1024 * 1024, 1);
    const parentRssMb = process.memoryUsage.rss() / 1024 / 1024;
    const script = `import('./bench/peak-rss.ts').then((m) => console.log(JSON.stringify({ own: m.ownPeakRssKb(), maxRss: process.resourceUsage().maxRSS })))`;

    // Act
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '-e', script], { cwd: process.cwd() });
    const reported = JSON.parse(stdout) as { own: number; maxRss: number };

    // Assess: the child's own figure is a node's few tens of MB; the kernel's maxRSS carried the
    // parent's peak over fork and exec, which is why the bench does not use it.
    expect(held.length).toBe(300 * 1024 * 1024);
    expect(parentRssMb).toBeGreaterThan(300);
    expect(reported.own / 1024).toBeGreaterThan(10);
    expect(reported.own / 1024).toBeLessThan(parentRssMb - 150);
    expect(reported.maxRss / 1024).toBeGreaterThan(250);
  });

  it('reads this process’s high-water mark', () => {
    // Act
    const peakKb = ownPeakRssKb();

    // Assess: at least what is resident now
    expect(peakKb).toBeGreaterThanOrEqual(Math.floor(process.memoryUsage.rss() / 1024) - 1024);
  });
});
