import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App } from 'aws-cdk-lib';
import { REGIONS, type Region } from '#functions/contracts/fields.ts';
import { queueRoutes } from '#functions/routes.ts';
import { LOCAL_REQUEST_BUDGET } from '#functions/store/request-budget.ts';
import { type ConnectorConfig, EXAMPLE_CONFIG_FILE, parseConnectorConfig } from '#lib/config.ts';
import type { WorkforceConnectorProps } from '#lib/workforce-connector.ts';
import type { SandboxAddresses } from './assembly.ts';

/**
 * The connector app as `cdk synth` builds it (bin/app.ts: the same stacks from the same config
 * schema), synthesized in this process for the local runtime. Only the config differs from a
 * deployment: it is the example config with the service addresses pointed at the sandbox. Asset
 * bundling is skipped (CDK's `aws:cdk:bundling-stacks` switch): the local runtime runs each
 * function's source module, named in the template's metadata, not the bundle.
 */

export const LOCAL_ACCOUNT_ID = '000000000000';
export const LOCAL_REGION = 'us-east-1';

/**
 * The sandbox listens on a free port chosen at each start, so the template is synthesized with the
 * service at this fixed address and the local runtime puts the sandbox's address in its place in the
 * functions' environment: then one synthesis serves every run (see `synthesizeLocalTemplates`).
 */
export const SERVICE_PLACEHOLDER = 'http://127.0.0.1:1';

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
  readonly Condition?: string;
  readonly DependsOn?: unknown;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

export interface CfnTemplate {
  readonly Resources: Record<string, CfnResource>;
  readonly Outputs?: Record<string, { Value: unknown; Export?: { Name: unknown }; Description?: string }>;
  readonly Parameters?: Record<string, unknown>;
  readonly Conditions?: Record<string, unknown>;
  readonly Rules?: Record<string, unknown>;
  readonly Description?: string;
}

export interface SynthesizedStack {
  readonly stackName: string;
  readonly template: CfnTemplate;
}

export interface LocalConfigOptions {
  /** Root of the sandbox; the provisioning roots and install URL template point at it. */
  readonly sandboxUrl: string;
  /** Partner name (provisioning path). @default the example config's */
  readonly partnerName?: string;
  /** Regions given a provisioning root (the sandbox serves UK and AU under /regions). @default all three */
  readonly regions?: readonly Region[];
  /** Any other config field, applied last. */
  readonly overrides?: Readonly<Record<string, unknown>>;
}

/**
 * Where the sandbox at `sandboxUrl` serves the service: the provisioning root of each region (UK
 * and AU simulated under /regions), the install API, and the suffix of every install hostname.
 */
export function sandboxAddresses(sandboxUrl: string): SandboxAddresses {
  const sandbox = sandboxUrl.replace(/\/+$/, '');
  return {
    provisioningUrls: { US: sandbox, UK: `${sandbox}/regions/uk`, AU: `${sandbox}/regions/au` },
    installUrlTemplate: `${sandbox}/installs/{hostname}`,
    // The sandbox names every install <name>.<region>.sandbox.test.
    allowedHostnameSuffixes: ['.sandbox.test'],
  };
}

/** The example config with the service addresses at the sandbox (UK/AU simulated under /regions). */
export function localConnectorConfig(options: LocalConfigOptions): ConnectorConfig {
  const example = JSON.parse(readFileSync(join(PROJECT_ROOT, EXAMPLE_CONFIG_FILE), 'utf8')) as Record<
    string,
    unknown
  >;
  const sandbox = sandboxAddresses(options.sandboxUrl);
  return parseConnectorConfig(
    {
      ...example,
      ...(options.partnerName ? { partnerName: options.partnerName } : {}),
      provisioningUrls: Object.fromEntries(
        Object.entries(sandbox.provisioningUrls).filter(([region]) =>
          (options.regions ?? REGIONS).includes(region as Region),
        ),
      ),
      installUrlTemplate: sandbox.installUrlTemplate,
      allowedHostnameSuffixes: sandbox.allowedHostnameSuffixes,
      // The budget runs locally as deployed (docs/local.md); chaos sets it to the sandbox's limit.
      requestBudget: LOCAL_REQUEST_BUDGET,
      ...options.overrides,
    },
    {
      knownRoutes: queueRoutes,
      origin: 'local runtime config',
      local: true,
    },
  );
}

/**
 * Synthesizes the connector's stacks for `config`; `connectorOverrides` swaps parts (test
 * fixtures) and `customize` may change the app before synthesis (tests that show drift).
 */
export async function synthesizeConnector(
  config: ConnectorConfig,
  connectorOverrides: Partial<WorkforceConnectorProps> = {},
  customize?: (app: App) => void,
): Promise<SynthesizedStack[]> {
  // Loaded on demand: a run served from the cache never loads the CDK.
  const [{ App }, { addConnectorStacks }] = await Promise.all([
    import('aws-cdk-lib'),
    import('#lib/connector-app.ts'),
  ]);
  const outdir = mkdtempSync(join(tmpdir(), 'connector-local-'));
  try {
    const { context } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
      context?: Record<string, unknown>;
    };
    const app = new App({
      outdir,
      context: { ...context, 'aws:cdk:bundling-stacks': [] },
      // CDK's built-in CloudFormation validation (a WASM validator, about half of a synthesis here)
      // checks what `cdk synth` and the infrastructure tests (test/infra/) check with it on; the
      // local runtime only reads the template it would pass (App, `builtinCloudFormationValidation`).
      builtinCloudFormationValidation: false,
    });
    addConnectorStacks(
      app,
      config,
      { env: { account: LOCAL_ACCOUNT_ID, region: LOCAL_REGION } },
      connectorOverrides,
    );
    customize?.(app);
    const assembly = app.synth();
    return assembly.stacks.map((stack) => ({
      stackName: stack.stackName,
      template: stack.template as CfnTemplate,
    }));
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/**
 * The templates for `config`, synthesized once per content: the key hashes everything synthesis
 * reads (lib/, functions/, the lock file, cdk.json, the config and the construct overrides), so any
 * change of the app synthesizes again. An app changed by `customize` is never cached.
 */
export async function synthesizeLocalTemplates(
  config: ConnectorConfig,
  connectorOverrides: Partial<WorkforceConnectorProps> = {},
  customize?: (app: App) => void,
): Promise<SynthesizedStack[]> {
  if (customize) return synthesizeConnector(config, connectorOverrides, customize);
  const key = createHash('sha256');
  for (const file of sourceFiles()) key.update(relative(PROJECT_ROOT, file)).update(readFileSync(file));
  key.update(JSON.stringify(config)).update(JSON.stringify(connectorOverrides));
  const cacheDir = join(PROJECT_ROOT, '.tmp', 'local-templates');
  const cached = join(cacheDir, `${key.digest('hex').slice(0, 32)}.json`);
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8')) as SynthesizedStack[];
  const stacks = await synthesizeConnector(config, connectorOverrides);
  mkdirSync(cacheDir, { recursive: true });
  // Written aside and renamed: another process reading the cache never sees half a file.
  const partial = `${cached}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(stacks));
  renameSync(partial, cached);
  return stacks;
}

function sourceFiles(): string[] {
  const files = ['package-lock.json', 'cdk.json', EXAMPLE_CONFIG_FILE].map((file) =>
    join(PROJECT_ROOT, file),
  );
  for (const folder of ['lib', 'functions', 'local/template.ts']) {
    const path = join(PROJECT_ROOT, folder);
    if (path.endsWith('.ts')) files.push(path);
    else {
      for (const entry of readdirSync(path, { recursive: true, withFileTypes: true })) {
        if (entry.isFile() && entry.name.endsWith('.ts')) files.push(join(entry.parentPath, entry.name));
      }
    }
  }
  return files.sort();
}
