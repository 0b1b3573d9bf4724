import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  packageVersion,
  recordDecision,
  recordedTemplate,
  templateFingerprint,
} from '#scripts/template-version.ts';

/**
 * CHANGELOG.md, "Versions": a change that alters the synthesized template comes with a version
 * bump. The template of the example config is recorded with its version (template-version.json).
 */

const CHANGELOG = readFileSync('CHANGELOG.md', 'utf8');

describe('the template and the version', () => {
  it('the template synthesized now is the one recorded for the version in package.json', async () => {
    // Act
    const sha256 = await templateFingerprint();

    // Assess
    const recorded = recordedTemplate();
    expect(
      { version: recorded.version, sha256: recorded.sha256 },
      'the template or the version changed: bump the version in package.json and CHANGELOG.md if the version is released, then run npm run template-version',
    ).toEqual({ version: packageVersion(), sha256 });
    expect(CHANGELOG).toContain(`## [${recorded.version}]`);
  });

  it('refuses to record a changed template under a released version, and records it under a new or unreleased one', () => {
    // Prepare
    const changelog = '## [0.3.0] - unreleased\n## [0.2.0] - 2026-12-01\n';
    const recorded = { version: '0.2.0', sha256: 'a' };

    // Act
    const released = recordDecision({ version: '0.2.0', sha256: 'b' }, recorded, changelog);
    const bumped = recordDecision({ version: '0.3.0', sha256: 'b' }, recorded, changelog);
    const unreleased = recordDecision(
      { version: '0.3.0', sha256: 'c' },
      { version: '0.3.0', sha256: 'b' },
      changelog,
    );
    const noSection = recordDecision({ version: '0.4.0', sha256: 'b' }, recorded, changelog);
    const same = recordDecision({ version: '0.2.0', sha256: 'a' }, recorded, changelog);

    // Assess
    expect(released).toMatchObject({ write: false, message: expect.stringContaining('bump the version') });
    expect(bumped.write).toBe(true);
    expect(unreleased.write).toBe(true);
    expect(noSection).toMatchObject({ write: false, message: expect.stringContaining('no section') });
    expect(same).toMatchObject({ write: false, message: expect.stringContaining('unchanged') });
  });
});
