import { readFile } from 'node:fs/promises';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { packageOf } from './bundle.ts';
import { round, sum } from './stats.ts';

/**
 * What one profile spends beyond another, by consumer (ms per consumer): the largest positive
 * differences, largest first, and the difference of the totals. A function against its raw
 * reference: what the connector's code and libraries add to a first invocation that makes the same
 * requests; a warm handler against its replay (bench/warm-profile.ts).
 */
export function beyond(
  total: Readonly<Record<string, number>>,
  reference: Readonly<Record<string, number>>,
  { top = 5, digits = 1 }: { top?: number; digits?: number } = {},
): { totalMs: number; largest: { what: string; ms: number }[] } {
  const consumers = new Set([...Object.keys(total), ...Object.keys(reference)]);
  const differences = [...consumers].map((what) => ({
    what,
    ms: (total[what] ?? 0) - (reference[what] ?? 0),
  }));
  return {
    totalMs: round(sum(differences.map((entry) => entry.ms)), 0),
    largest: differences
      .filter((entry) => entry.ms > 0)
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top)
      .map((entry) => ({ what: entry.what, ms: round(entry.ms, digits) })),
  };
}

/**
 * Where a first invocation spends its CPU (issue #17 §1): a V8 CPU profile of one cold start
 * (`node --cpu-prof`), each sample's own (self) time given to what its frame belongs to — a
 * package, the connector's own module, or Node itself (module compilation, source maps, GC) —
 * through the bundle's source map, and split into the module load and the first invocation at the
 * moment the runner saw the import end.
 */

export interface ProfileSummary {
  /** Sampled ms per phase. */
  readonly loadMs: number;
  readonly invokeMs: number;
  /** The largest consumers of each phase, ms of self time, largest first. */
  readonly load: readonly { what: string; ms: number }[];
  readonly invoke: readonly { what: string; ms: number }[];
  /** Every consumer's ms over both phases: what a profile of its raw reference is compared by. */
  readonly total: Readonly<Record<string, number>>;
  /** Where the profile file was written. */
  readonly file: string;
}

interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { url: string; functionName: string; lineNumber: number; columnNumber: number };
  }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const NODE_AREAS: readonly [RegExp, string][] = [
  [/modules\/esm|modules\/cjs|bootstrap\/realm/, 'node: module compile/load'],
  [/source_map/, 'node: source maps'],
  [/_http|net|stream|dns|tls/, 'node: network'],
];

/** A source file's npm package, or the connector's functions/ folder it belongs to. */
export function consumerOf(source: string): string {
  const npmPackage = packageOf(source);
  if (npmPackage !== undefined) return npmPackage;
  const connector = source.match(/functions\/([^/]+)\//);
  return connector ? `connector: functions/${connector[1]}/` : 'connector';
}

function areaOf(frame: CpuProfile['nodes'][number]['callFrame'], bundleUrl: string, map: SourceMap): string {
  if (frame.url === bundleUrl) {
    const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string };
    return entry.originalSource ? consumerOf(entry.originalSource) : 'bundle (unmapped)';
  }
  if (frame.url === '') {
    return frame.functionName === '(garbage collector)' ? 'gc' : `v8: ${frame.functionName || 'native'}`;
  }
  for (const [pattern, area] of NODE_AREAS) if (pattern.test(frame.url)) return area;
  return frame.url.startsWith('node:') ? 'node: other' : 'other';
}

export async function summarizeProfile(
  profileFile: string,
  bundleFile: string,
  initDoneAtUs: number | undefined,
  top = 6,
): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(profileFile, 'utf8')) as CpuProfile;
  const map = new SourceMap(JSON.parse(await readFile(`${bundleFile}.map`, 'utf8')) as SourceMapPayload);
  const bundleUrl = `file://${bundleFile}`;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const phases = { load: new Map<string, number>(), invoke: new Map<string, number>() };
  let time = profile.startTime;
  for (const [index, sample] of profile.samples.entries()) {
    const delta = profile.timeDeltas[index] ?? 0;
    time += delta;
    const node = nodes.get(sample);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    const phase = initDoneAtUs !== undefined && time > initDoneAtUs ? phases.invoke : phases.load;
    const area = areaOf(node.callFrame, bundleUrl, map);
    phase.set(area, (phase.get(area) ?? 0) + delta / 1000);
  }
  const ranked = (phase: Map<string, number>) =>
    [...phase]
      .map(([what, ms]) => ({ what, ms: round(ms, 1) }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top);
  const total = (phase: Map<string, number>) => round(sum([...phase.values()]), 0);
  const both: Record<string, number> = {};
  for (const phase of [phases.load, phases.invoke]) {
    for (const [what, ms] of phase) both[what] = (both[what] ?? 0) + ms;
  }
  return {
    loadMs: total(phases.load),
    invokeMs: total(phases.invoke),
    load: ranked(phases.load),
    invoke: ranked(phases.invoke),
    total: both,
    file: profileFile,
  };
}
