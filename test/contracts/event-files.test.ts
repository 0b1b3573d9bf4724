import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundDetailTypes, outboundDetailTypes } from '#functions/contracts/registry.ts';
import { compareEventFiles, generateEventFiles, writeEventFiles } from '#scripts/generate-schemas.ts';

describe('files in events/', () => {
  it('match what the contracts generate', async () => {
    // Act
    const drift = await compareEventFiles();

    // Assess
    const problems = [...drift.changed.map((p) => `differs: ${p}`), ...drift.stale.map((p) => `stale: ${p}`)];
    expect(problems, 'events/ is out of date with the contracts: run npm run schemas').toEqual([]);
  });
});

describe('generateEventFiles', () => {
  it('produces samples for every inbound and a schema for every detail-type, plus the catalog', () => {
    const files = generateEventFiles();

    const expected = [
      ...inboundDetailTypes.flatMap((t) => [
        `events/inbound/${t}/eventbridge-entry.json`,
        `events/inbound/${t}/sqs-fifo-batch.json`,
        `events/schemas/inbound/${t}.schema.json`,
      ]),
      ...outboundDetailTypes.map((t) => `events/schemas/outbound/${t}.schema.json`),
      'events/README.md',
    ];
    expect([...files.keys()].sort()).toEqual(expected.sort());
  });

  it('is deterministic: two runs give identical content', () => {
    expect([...generateEventFiles()]).toEqual([...generateEventFiles()]);
  });

  it('writes 2-space JSON with a trailing newline', () => {
    for (const [path, content] of generateEventFiles()) {
      if (!path.endsWith('.json')) continue;
      expect(content, path).toBe(`${JSON.stringify(JSON.parse(content), null, 2)}\n`);
    }
  });

  it('gives every JSON Schema an $id and a title and refuses unknown inbound fields', () => {
    const files = generateEventFiles();

    const inbound = JSON.parse(files.get('events/schemas/inbound/AccountCreated.schema.json')!);
    const outbound = JSON.parse(files.get('events/schemas/outbound/SyncFailed.schema.json')!);

    expect(inbound).toMatchObject({
      $id: 'urn:workforce-connector:events:inbound:AccountCreated:v1',
      title: expect.stringContaining('AccountCreated'),
      additionalProperties: false,
      required: expect.arrayContaining(['accountId', 'businessName', 'owner']),
    });
    // Defaults make a field optional for the partner.
    expect(inbound.required).not.toContain('region');
    expect(outbound).toMatchObject({ $id: 'urn:workforce-connector:events:outbound:SyncFailed:v1' });
    expect(outbound.additionalProperties).toBeUndefined();
  });

  it('links every detail-type from the catalog', () => {
    const catalog = generateEventFiles().get('events/README.md')!;

    for (const t of inboundDetailTypes) {
      expect(catalog).toContain(`(inbound/${t}/sqs-fifo-batch.json)`);
      expect(catalog).toContain(`(schemas/inbound/${t}.schema.json)`);
    }
    for (const t of outboundDetailTypes) expect(catalog).toContain(`(schemas/outbound/${t}.schema.json)`);
  });
});

describe('the drift check', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'event-files-'));
    await writeEventFiles(root);
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reports a hand-edited file and a leftover file, and regenerating repairs both', async () => {
    // Prepare
    const edited = 'events/schemas/inbound/BudgetSet.schema.json';
    const leftover = 'events/schemas/outbound/Retired.schema.json';
    await writeFile(join(root, edited), '{}\n');
    await writeFile(join(root, leftover), '{}\n');

    // Act
    const drift = await compareEventFiles(root);
    await writeEventFiles(root);
    const after = await compareEventFiles(root);

    // Assess
    expect(drift).toEqual({ changed: [edited], stale: [leftover] });
    expect(after).toEqual({ changed: [], stale: [] });
    expect(await readFile(join(root, edited), 'utf8')).toBe(generateEventFiles().get(edited));
  });
});
