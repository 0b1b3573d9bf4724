import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The functions as `cdk deploy` ships them: each handler entry bundled by esbuild with the options
 * CDK bundles with (lib/deploy-bundling.ts), once per content. An execution environment of the
 * local runtime imports its function's bundle (local/function-host.ts), as Lambda's runtime
 * imports the deployed one: what runs locally is the code that would run on AWS, and a new
 * environment evaluates one file instead of resolving and loading the whole source graph.
 *
 * The bundle of one content is kept in `.tmp/function-bundles/<key>/`, where the key hashes
 * everything the bundle is made of: every source file under functions/, the entry itself,
 * package.json, tsconfig.json, the lock file (the packages bundled) and the bundling options' sources. A change of any of them
 * builds again; CI starts from a clean clone and builds once (vitest's global setup).
 */

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUNDLE_ROOT = join(PROJECT_ROOT, '.tmp', 'function-bundles');
const METAFILE = 'metafile.json';
/** What the bundling options are read from (a change there bundles again). */
const OPTION_SOURCES = [
  'lib/connector-function.ts',
  'lib/deploy-bundling.ts',
  'local/function-bundles.ts',
  // The `#` imports esbuild resolves, the compiler options it reads, the packages it bundles.
  'package.json',
  'tsconfig.json',
  'package-lock.json',
];

const building = new Map<string, Promise<string>>();

/** The bundle of `entry` (a repo-relative handler file), built if this content has none yet. */
export function functionBundle(entry: string): Promise<string> {
  const key = contentKey(entry);
  let bundle = building.get(key);
  if (!bundle) {
    bundle = bundleOf(key, entry);
    // A failed build is tried again by the next caller.
    bundle.catch(() => building.delete(key));
    building.set(key, bundle);
  }
  return bundle;
}

async function bundleOf(key: string, entry: string): Promise<string> {
  const dir = join(BUNDLE_ROOT, key);
  const file = join(dir, `${bundleName(entry)}.mjs`);
  if (existsSync(file)) return file;
  // Loaded on demand: a run served from the cache never loads esbuild or the CDK.
  const [{ build }, { deployBuildOptions }] = await Promise.all([
    import('esbuild'),
    import('#lib/deploy-bundling.ts'),
  ]);
  // Built aside and renamed: another process (a second test worker) never sees half a folder.
  const partial = `${dir}.${process.pid}.tmp`;
  rmSync(partial, { recursive: true, force: true });
  const { metafile } = await build({
    ...deployBuildOptions,
    absWorkingDir: PROJECT_ROOT,
    entryPoints: { [bundleName(entry)]: entry },
    outdir: partial,
    outExtension: { '.js': '.mjs' },
    metafile: true,
  });
  // What went into the bundle, for the tests that check a route carries only its own code.
  writeFileSync(join(partial, METAFILE), JSON.stringify(metafile));
  try {
    renameSync(partial, dir);
  } catch (error) {
    // Another process renamed the same content first: its bundle is the same.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
  return file;
}

/**
 * Every source file esbuild put into `entry`'s bundle, dependencies included (repo-relative, as
 * esbuild's metafile names them).
 */
export async function functionBundleInputs(entry: string): Promise<string[]> {
  const bundle = await functionBundle(entry);
  const { inputs } = JSON.parse(readFileSync(join(dirname(bundle), METAFILE), 'utf8')) as {
    inputs: Record<string, unknown>;
  };
  return Object.keys(inputs);
}

/** `functions/sync-employee/handler.ts` → `functions__sync-employee__handler`. */
function bundleName(entry: string): string {
  return entry.replace(/\.ts$/, '').replaceAll('/', '__');
}

function contentKey(entry: string): string {
  const hash = createHash('sha256').update(entry).update('\0');
  const files = new Set([...sourcesUnder('functions'), entry, ...OPTION_SOURCES]);
  for (const file of [...files].sort()) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(resolve(PROJECT_ROOT, file)))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 32);
}

function sourcesUnder(folder: string): string[] {
  return readdirSync(join(PROJECT_ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(PROJECT_ROOT, join(entry.parentPath, entry.name)));
}
