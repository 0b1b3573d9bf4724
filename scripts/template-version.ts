import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { queueRoutes } from '#functions/routes.ts';
import { EXAMPLE_CONFIG_FILE, parseConnectorConfig } from '#lib/config.ts';
import { synthesizeLocalTemplates } from '#local/template.ts';

/**
 * The version rule of CHANGELOG.md, "Versions": the template synthesized from the example config is
 * recorded with the version it belongs to (template-version.json), so a change that alters the
 * template without a version bump is seen (test/infra/template-version.test.ts).
 * `npm run template-version` records the current template; it refuses to record a changed template
 * under a version CHANGELOG.md shows as released.
 */

const ROOT = new URL('../', import.meta.url);
export const RECORD_FILE = 'template-version.json';

export interface TemplateRecord {
  readonly version: string;
  readonly sha256: string;
}

/**
 * The templates' fingerprint: every stack's template, with the asset hashes (function code and
 * other assets: 64 hex digits) left out, since code changes are not template changes.
 */
export async function templateFingerprint(): Promise<string> {
  const example = JSON.parse(readFileSync(new URL(EXAMPLE_CONFIG_FILE, ROOT), 'utf8')) as unknown;
  const config = parseConnectorConfig(example, { knownRoutes: queueRoutes, origin: EXAMPLE_CONFIG_FILE });
  const stacks = await synthesizeLocalTemplates(config);
  const text = JSON.stringify(stacks.map(({ stackName, template }) => ({ stackName, template })));
  return createHash('sha256')
    .update(text.replace(/[0-9a-f]{64}/g, '<asset>'))
    .digest('hex');
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { version: string }).version;
}

export function recordedTemplate(): TemplateRecord {
  return JSON.parse(readFileSync(new URL(RECORD_FILE, ROOT), 'utf8')) as TemplateRecord;
}

/** Whether CHANGELOG.md's heading of `version` says it is not released yet. */
export function versionUnreleased(version: string, changelog: string): boolean {
  const heading = changelog.split('\n').find((line) => line.startsWith(`## [${version}]`));
  return heading !== undefined && /unreleased/i.test(heading);
}

/** What recording the current template would do: write it, or refuse with why. */
export function recordDecision(
  current: TemplateRecord,
  recorded: TemplateRecord,
  changelog: string,
): { write: boolean; message: string } {
  if (current.sha256 === recorded.sha256 && current.version === recorded.version) {
    return { write: false, message: `template unchanged (${current.version})` };
  }
  if (!changelog.includes(`## [${current.version}]`)) {
    return { write: false, message: `CHANGELOG.md has no section for ${current.version}: add it first` };
  }
  if (current.version === recorded.version && !versionUnreleased(current.version, changelog)) {
    return {
      write: false,
      message: `the template changed but ${current.version} is released: bump the version in package.json and CHANGELOG.md (CHANGELOG.md, "Versions"), then run this again`,
    };
  }
  return {
    write: true,
    message: `recorded the template of ${current.version} (${current.sha256.slice(0, 12)})`,
  };
}

async function main(): Promise<number> {
  const current = { version: packageVersion(), sha256: await templateFingerprint() };
  const changelog = readFileSync(new URL('CHANGELOG.md', ROOT), 'utf8');
  const decision = recordDecision(current, recordedTemplate(), changelog);
  if (decision.write) writeFileSync(new URL(RECORD_FILE, ROOT), `${JSON.stringify(current, null, 2)}\n`);
  (decision.write || decision.message.startsWith('template unchanged') ? console.log : console.error)(
    decision.message,
  );
  return decision.write || decision.message.startsWith('template unchanged') ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main();
}
