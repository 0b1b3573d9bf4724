import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import cdkNag from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { queueRoutes } from '#functions/routes.ts';
import { type ConnectorConfig, type ConnectorConfigInput, parseConnectorConfig } from '#lib/config.ts';
import { addConnectorStacks, type ConnectorStacks } from '#lib/connector-app.ts';

/** The app as `bin/app.ts` builds it (same stacks, same cdk-nag pack), synthesized in-process. */
export interface SynthesizedConnector {
  readonly config: ConnectorConfig;
  readonly outdir: string;
  readonly stacks: ConnectorStacks;
  readonly stateful: Template;
  readonly service: Template;
}

export function connectorConfig(overrides: Partial<ConnectorConfigInput> = {}): ConnectorConfig {
  const example = JSON.parse(
    readFileSync(new URL('../../connector.config.example.json', import.meta.url), 'utf8'),
  );
  return parseConnectorConfig({ ...example, ...overrides }, { knownRoutes: queueRoutes });
}

export interface SynthesisOptions {
  /**
   * CDK's built-in CloudFormation validation (App `builtinCloudFormationValidation`, a WASM
   * validator: about 2 s of CPU per synthesis here). Off only where the same template is validated
   * by another test: the example config's, by app.test.ts.
   * @default true
   */
  readonly cloudFormationValidation?: boolean;
}

/**
 * Template-level synthesis: bundling is skipped (CDK's own `aws:cdk:bundling-stacks` switch, as
 * `cdk synth --exclusively` uses), since these assertions read the template, not the code.
 * `artifact.test.ts` synthesizes with bundling, through `bin/app.ts`.
 */
export function synthesizeConnector(
  config: ConnectorConfig,
  options: SynthesisOptions = {},
): SynthesizedConnector {
  const outdir = mkdtempSync(join(tmpdir(), 'connector-synth-'));
  const { context } = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
  const app = new App({
    outdir,
    context: { ...context, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: options.cloudFormationValidation ?? true,
  });
  const stacks = addConnectorStacks(app, config, { env: { account: '123456789012', region: 'us-east-1' } });
  Validations.of(app).addPlugins(new cdkNag.AwsSolutionsChecks(app));
  try {
    app.synth();
  } catch (error) {
    // cdk-nag errors fail synthesis; the report says which rule on which resource.
    const report = join(outdir, 'validation-report.json');
    const detail = existsSync(report) ? readFileSync(report, 'utf8') : '';
    throw new Error(`${(error as Error).message}\n${detail}`);
  }
  return {
    config,
    outdir,
    stacks,
    stateful: Template.fromStack(stacks.stateful),
    service: Template.fromStack(stacks.service),
  };
}

/** Every `Validations.of(x).acknowledge()` in the tree: rule id → reason, with where it was made. */
export function acknowledgments(root: IConstruct): { path: string; id: string; reason: unknown }[] {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, unknown>).map(([id, reason]) => ({
          path: construct.node.path,
          id,
          reason,
        })),
      ),
  );
}

export function validationReport(outdir: string): {
  pluginReports: { conclusion: string; violations: unknown[] }[];
} {
  return JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));
}
