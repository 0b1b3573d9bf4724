import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { outboundContracts } from '#functions/contracts/registry.ts';
import { connectorConfig, type SynthesizedConnector, synthesizeConnector } from '#test/infra/synthesize.ts';

/**
 * What the README states about the deployed connector, checked against the template the CDK app
 * synthesizes (issue 16): a README that says one runtime while the stack deploys another, or names
 * a limit the template no longer has, fails here instead of misleading a partner.
 */

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

type Resource = { Type: string; Properties: Record<string, unknown> };
let connector: SynthesizedConnector;
let resources: Resource[];

function ofType(type: string): Resource[] {
  return resources.filter((resource) => resource.Type === type);
}

/** The one value the README gives for `pattern` (its first capture group), failing when it gives none or several. */
function stated(pattern: RegExp): string {
  const values = [...new Set([...README.matchAll(new RegExp(pattern, 'g'))].map((match) => match[1] ?? ''))];
  expect(values, `README statements matching ${pattern}`).toHaveLength(1);
  return values[0] ?? '';
}

beforeAll(() => {
  connector = synthesizeConnector(connectorConfig(), { cloudFormationValidation: false });
  resources = Object.values(connector.service.toJSON()['Resources'] as Record<string, Resource>);
}, 120_000);

describe('README facts against the synthesized template', () => {
  it('names the Lambda runtime and architecture every function deploys with', () => {
    // Act
    const runtime = stated(/\b(nodejs\d+\.x)\b/);
    const functions = ofType('AWS::Lambda::Function');

    // Assess
    expect(functions.length).toBeGreaterThan(5);
    for (const fn of functions) {
      expect(fn.Properties['Runtime']).toBe(runtime);
      expect(fn.Properties['Architectures']).toEqual(['arm64']);
    }
    expect(README).toMatch(/\bon arm64\b/);
  });

  it('shows the input template every pipe sends', () => {
    // Prepare
    const pipes = ofType('AWS::Pipes::Pipe');

    // Act
    const templates = new Set(
      pipes.map(
        (pipe) =>
          (pipe.Properties['TargetParameters'] as { InputTemplate?: string } | undefined)?.InputTemplate,
      ),
    );

    // Assess
    expect(pipes.length).toBeGreaterThan(5);
    expect([...templates]).toHaveLength(1);
    const template = [...templates][0] ?? '';
    expect(README.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>')).toContain(
      template,
    );
  });

  it('states the largest batch and the attempts before a record gives up as the route functions get them', () => {
    // Act
    const batch = Number(stated(/batch ≤ (\d+)/));
    const attempts = Number(stated(/(\d+) attempts/));
    const mappings = ofType('AWS::Lambda::EventSourceMapping');
    const routeFunctions = ofType('AWS::Lambda::Function').filter(
      (fn) =>
        (fn.Properties['Environment'] as { Variables?: Record<string, unknown> } | undefined)?.Variables?.[
          'MAX_ATTEMPTS'
        ] !== undefined,
    );

    // Assess
    expect(Math.max(...mappings.map((mapping) => Number(mapping.Properties['BatchSize'])))).toBe(batch);
    expect(routeFunctions.length).toBeGreaterThan(5);
    for (const fn of routeFunctions) {
      expect(
        (fn.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables['MAX_ATTEMPTS'],
      ).toBe(String(attempts));
    }
  });

  it("keeps a waiting record for the route queue's retention", () => {
    // Act
    const days = Number(stated(/the queue's (\d+) days/));
    const fifoQueues = ofType('AWS::SQS::Queue').filter(
      (queue) => queue.Properties['FifoQueue'] === true && queue.Properties['RedrivePolicy'] !== undefined,
    );

    // Assess
    expect(fifoQueues.length).toBeGreaterThan(5);
    for (const queue of fifoQueues) expect(queue.Properties['MessageRetentionPeriod']).toBe(days * 86_400);
  });

  it('lists exactly the inbound detail-types the route rules take and the outbound ones the connector publishes', () => {
    // Prepare
    const catalog = README.slice(README.indexOf('## Event catalog'), README.indexOf('## Deploy'));
    const inboundText = catalog.slice(catalog.indexOf('Inbound'), catalog.indexOf('Outbound'));
    const outboundText = catalog.slice(catalog.indexOf('Outbound'), catalog.indexOf('The [event catalog]'));
    const namesIn = (text: string) =>
      [...text.matchAll(/`([A-Z][A-Za-z]+)`/g)].map((match) => match[1]).sort();

    // Act
    const routed = ofType('AWS::Events::Rule')
      .map(
        (rule) =>
          (rule.Properties['EventPattern'] as { 'detail-type'?: string[] } | undefined)?.['detail-type'],
      )
      .filter((types): types is string[] => Array.isArray(types))
      .flat()
      .sort();

    // Assess
    expect(namesIn(inboundText)).toEqual(routed);
    expect(namesIn(outboundText)).toEqual(Object.keys(outboundContracts).sort());
  });
});
