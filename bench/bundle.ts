import { mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { queueRoutes, scheduledFunctions } from '#functions/routes.ts';
import { deployBuildOptions } from '#lib/deploy-bundling.ts';

/**
 * Deploy bundles, built from the very `connectorBundling` options `cdk deploy` uses
 * (lib/connector-function.ts), so sizes and cold starts measured here are the deployed ones.
 */

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BUNDLE_DIR = resolve(REPO_ROOT, '.tmp/bench-bundles');

export type BundleKind = 'function' | 'reference';

export interface BundleTarget {
  /** Function name (route table) or reference name (`hello`, `floor`, `stack-floor`, `raw-<function>`, `stack-<function>`). */
  readonly name: string;
  readonly kind: BundleKind;
  /** Repo-relative entry. */
  readonly entry: string;
  /** Configured memory (functions, and the stack floor of one). */
  readonly memorySizeMb?: number;
  /** A reference made for one function (its stack floor): that function's name. */
  readonly referenceOf?: string;
}

export interface BuiltBundle extends BundleTarget {
  /** Absolute path of the .mjs bundle. */
  readonly file: string;
  /** Bytes of the code file (what Lambda loads). */
  readonly bytes: number;
  /** Bytes of the source map (shipped too, read by --enable-source-maps). */
  readonly mapBytes: number;
  /** Top input packages by bytes in the output, for "what gets pulled in". */
  readonly topPackages: readonly { name: string; bytes: number }[];
}

/** The reference of the required stack alone (bench/references/stack-floor.ts). */
export const STACK_FLOOR = 'stack-floor';

export const REFERENCE_TARGETS: readonly BundleTarget[] = [
  { name: 'hello', kind: 'reference', entry: 'bench/references/hello.ts' },
  { name: 'floor', kind: 'reference', entry: 'bench/references/floor.ts' },
  { name: STACK_FLOOR, kind: 'reference', entry: 'bench/references/stack-floor.ts' },
];

export function functionTargets(): BundleTarget[] {
  return [
    ...queueRoutes.map((route) => ({
      name: route.functionName,
      kind: 'function' as const,
      entry: route.entry,
      memorySizeMb: route.memorySizeMb,
    })),
    ...scheduledFunctions.map((fn) => ({
      name: fn.functionName,
      kind: 'function' as const,
      entry: fn.entry,
      memorySizeMb: fn.memorySizeMb,
    })),
  ];
}

/** The npm package a bundled file comes from (`@scope/name` or `name`); undefined outside node_modules. */
export function packageOf(path: string): string | undefined {
  const marker = 'node_modules/';
  const at = path.lastIndexOf(marker);
  if (at < 0) return undefined;
  const rest = path.slice(at + marker.length).split('/');
  return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? '?');
}

export async function buildBundle(target: BundleTarget, outDir = BUNDLE_DIR): Promise<BuiltBundle> {
  await mkdir(outDir, { recursive: true });
  const file = join(outDir, `${target.name}.mjs`);
  const result = await build({
    ...deployBuildOptions,
    entryPoints: [resolve(REPO_ROOT, target.entry)],
    outfile: file,
    absWorkingDir: REPO_ROOT,
    metafile: true,
  });
  const byPackage = new Map<string, number>();
  const output = Object.values(result.metafile.outputs).find((out) => out.entryPoint !== undefined);
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const name = packageOf(input) ?? '(connector)';
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
  }
  const topPackages = [...byPackage.entries()]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 8);
  const [code, map] = await Promise.all([stat(file), stat(`${file}.map`)]);
  return { ...target, file, bytes: code.size, mapBytes: map.size, topPackages };
}

/** The runner the cold-start children execute: plain Node, no tsx, so it is bundled too. */
export async function buildColdStartRunner(outDir = BUNDLE_DIR): Promise<string> {
  await mkdir(outDir, { recursive: true });
  const file = join(outDir, 'cold-start-runner.mjs');
  await build({
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    entryPoints: [resolve(REPO_ROOT, 'bench/cold-start-runner.ts')],
    outfile: file,
    absWorkingDir: REPO_ROOT,
    logLevel: 'silent',
  });
  return file;
}
