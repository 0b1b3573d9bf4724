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
    held.fill(0); // held until the child has answered

    // Assess: the child's own figure is a node's few tens of MB; the kernel's maxRSS carried the
    // parent's peak over fork and exec, which is why the bench does not use it.
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

  it('is the peak, not what is resident when it is read', async () => {
    // Prepare: a fresh node touches 200 MB, lets it go and collects it before reading.
    const script = `(() => Buffer.alloc(200 * 1024 * 1024, 1).fill(2))(); globalThis.gc(); import('./bench/peak-rss.ts').then((m) => { globalThis.gc(); console.log(JSON.stringify({ peak: m.ownPeakRssKb(), now: process.memoryUsage.rss() / 1024 })); })`;

    // Act
    const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', '-e', script], {
      cwd: process.cwd(),
    });
    const reported = JSON.parse(stdout) as { peak: number; now: number };

    // Assess: the 200 MB are in the peak though no longer resident
    expect(reported.peak / 1024).toBeGreaterThan(200);
    expect(reported.now / 1024).toBeLessThan(reported.peak / 1024 - 150);
  });
});
