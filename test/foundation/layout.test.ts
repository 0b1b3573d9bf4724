import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { queueRoutes, refusalFunction, scheduledFunctions } from '#functions/routes.ts';

/**
 * The layout of `functions/` shows the hexagon at a glance (issue 16): one folder
 * per use case beside the runtime (primary adapter), the contracts, the publisher, the service
 * client and the store (secondary adapters) and the domain they share — and no module that nothing
 * uses.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FUNCTIONS = join(ROOT, 'functions');

/** The adapters and the shared domain; every other folder is a use case with a handler. */
const ROOMS = ['contracts', 'domain', 'publisher', 'runtime', 'service', 'store'];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

/** Repository paths a file imports, by `#functions/…` or a relative path. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)].map(
    (match) => match[1] ?? '',
  );
  return specifiers.flatMap((specifier) => {
    if (specifier.startsWith('#functions/')) return [`functions/${specifier.slice('#functions/'.length)}`];
    if (specifier.startsWith('.')) return [normalize(join(dirname(file), specifier))];
    return [];
  });
}

describe('functions/', () => {
  it('holds the named rooms of the hexagon and one folder per use case, nothing called commons or utils', () => {
    // Prepare
    const entries = [...queueRoutes, ...scheduledFunctions, refusalFunction].map((fn) => fn.entry);
    const useCaseFolders = [...new Set(entries.map((entry) => entry.split('/')[1]))].sort();

    // Act
    const folders = readdirSync(FUNCTIONS)
      .filter((name) => statSync(join(FUNCTIONS, name)).isDirectory())
      .sort();

    // Assess
    expect(folders).toEqual([...ROOMS, ...useCaseFolders].sort());
    for (const folder of useCaseFolders) {
      expect(readdirSync(join(FUNCTIONS, folder ?? '')), folder).toContain('handler.ts');
    }
  });

  it('has no module that nothing imports: each is a handler the route table names or used by another', () => {
    // Prepare
    const entries = new Set([...queueRoutes, ...scheduledFunctions, refusalFunction].map((fn) => fn.entry));
    const everything = ['functions', 'lib', 'local', 'scripts', 'bench', 'bin'].flatMap((top) =>
      sourceFiles(join(ROOT, top)),
    );
    const imported = new Set(everything.flatMap(importsOf));

    // Act
    const unused = sourceFiles(FUNCTIONS).filter(
      (file) => file !== 'functions/routes.ts' && !entries.has(file) && !imported.has(file),
    );

    // Assess
    expect(unused).toEqual([]);
  });
});
