import { readFileSync } from 'node:fs';

/**
 * This process's own peak resident set size in KB: the high-water mark of its own memory, `VmHWM`
 * in /proc/self/status (Linux). Not `process.resourceUsage().maxRSS`: on Linux that figure survives
 * fork and exec, so a fresh `node` spawned by the bench starts out with the bench process's own peak
 * (test/bench/peak-rss.test.ts shows it). `undefined` where there is no /proc (the caller falls back
 * to its own sampling).
 */
export function ownPeakRssKb(): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}
