import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Region, SEED_READINGS } from '#sandbox/records.ts';
import { awardLibrary, createInstall } from '#sandbox/seed.ts';

/**
 * Every seeded install the sandbox can create (each region, the spec's seed and the seed of every
 * lenient seed reading) and the award library, as the seed test compares them with `fixtures/seed-snapshot.json`. The fixture was written
 * by the seed code as it stood before the seed data moved to `sandbox/seed/*.json`; rewrite it only
 * when the seed changes on purpose:
 *
 *   node --import tsx test/sandbox/seed-snapshot.ts
 */

export const SNAPSHOT_FILE = fileURLToPath(new URL('./fixtures/seed-snapshot.json', import.meta.url));

const REGIONS: readonly Region[] = ['us', 'uk', 'au'];

export function seedSnapshot(): Record<string, unknown> {
  const snapshot: Record<string, unknown> = {};
  for (const region of REGIONS) {
    // 'strict': the spec's seed (the default); 'default': every lenient seed reading (the former default).
    for (const strict of [false, true]) {
      const name = `${region}/${strict ? 'strict' : 'default'}`;
      snapshot[name] = createInstall(`seed-1.${region}.sandbox.test`, region, {
        readings: strict ? [] : SEED_READINGS,
      });
    }
  }
  snapshot['awardLibrary'] = awardLibrary();
  return snapshot;
}

/** JSON with one record per line: small enough to commit, and a changed record shows as one line. */
export function formatSnapshot(value: unknown, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const inner = `${indent}  `;
    return `[\n${value.map((item) => `${inner}${JSON.stringify(item)}`).join(',\n')}\n${indent}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const inner = `${indent}  `;
    const entries = Object.entries(value).map(
      ([key, item]) => `${inner}${JSON.stringify(key)}: ${formatSnapshot(item, inner)}`,
    );
    return `{\n${entries.join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SNAPSHOT_FILE, `${formatSnapshot(seedSnapshot())}\n`);
  console.log(`wrote ${SNAPSHOT_FILE}`);
}
