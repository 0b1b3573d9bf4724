import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type {
  AssemblyManifest,
  AssetManifest,
  AssetManifestProperties,
  AwsCloudFormationStackProperties,
  NestedCloudAssemblyProperties,
} from 'aws-cdk-lib/cloud-assembly-schema';
import { REGIONS, type Region } from '#functions/contracts/fields.ts';
import { HANDLER_SOURCE_METADATA, type HandlerSource } from '#lib/handler-source.ts';
import { LOCAL_ACCOUNT_ID } from './aws/lambda.ts';
import { TemplateModel } from './cloudformation.ts';
import type { ConnectorTemplate } from './runtime/connector-template.ts';
import type { LocalServices } from './runtime/services.ts';
import type { LocalRuntimeOptions } from './runtime.ts';
import {
  type CfnResource,
  type CfnTemplate,
  LOCAL_REGION,
  localConnectorConfig,
  SERVICE_PLACEHOLDER,
  type SynthesizedStack,
  sandboxAddresses,
} from './template.ts';

/**
 * An already synthesized cloud assembly (the directory `cdk synth` writes: manifest.json, one
 * template per stack, one asset folder per bundled function), read for the local runtime instead of
 * synthesizing the example (`npm start -- --assembly <cdk.out>`): the templates a partner is about
 * to deploy from its own config.
 *
 * Only what the cloud assembly schema documents is read (aws-cdk-lib/cloud-assembly-schema: the
 * manifest's artifacts, their `type`, `environment`, `dependencies` and `properties`, and each
 * stack's asset manifest), through its own loader, which refuses an assembly of a newer schema
 * version than this aws-cdk-lib knows, as the schema's README asks of every consumer. Nothing of the
 * CDK's internals or of the app's source is used.
 *
 * The templates address the real service; a local run must reach the sandbox instead. So, in every
 * function's environment, the settings the config gives the service's addresses are replaced by the
 * sandbox's, as the example's local config sets them (template.ts, `localConnectorConfig`):
 * `PROVISIONING_URLS` (each region the template configures → the sandbox's root for it),
 * `INSTALL_URL_TEMPLATE` (→ the sandbox's installs) and `ALLOWED_HOSTNAME_SUFFIXES` (→ the sandbox's
 * `.sandbox.test`; the token would otherwise be refused to every sandbox install). The sandbox's
 * address is SERVICE_PLACEHOLDER in the template, put in at deployment as for the example. Every
 * replacement is reported in the start-up lines.
 *
 * A template of another account or region names them in ARNs, conditions and service principals;
 * the local runtime runs in its own (000000000000, us-east-1), so those are rewritten too, and said.
 */

/** The sandbox's roots per region, as the example's local config points them (template.ts). */
export interface SandboxAddresses {
  readonly provisioningUrls: Readonly<Record<Region, string>>;
  readonly installUrlTemplate: string;
  readonly allowedHostnameSuffixes: readonly string[];
}

export interface AssemblyEnvironment {
  readonly account?: string;
  readonly region?: string;
}

export interface AssemblyStack extends SynthesizedStack {
  readonly artifactId: string;
  /** The stack's target (`aws://account/region` of the manifest; unknown parts left out). */
  readonly environment: AssemblyEnvironment;
}

/** Where a function's deployed code is in the assembly, or why it is not usable. */
export type FunctionBundle =
  | { readonly kind: 'bundle'; readonly file: string; readonly asset: string }
  | { readonly kind: 'missing'; readonly reason: string };

export interface CloudAssemblyStacks {
  readonly directory: string;
  /** The schema version the assembly was written with. */
  readonly version: string;
  /** Its stacks, each after the stacks it depends on. */
  readonly stacks: readonly AssemblyStack[];
  /** Each function's bundle in the assembly, by `<stack name>/<logical id>`. */
  readonly bundles: ReadonlyMap<string, FunctionBundle>;
}

export class CloudAssemblyError extends Error {
  constructor(directory: string, message: string) {
    super(`cannot run the cloud assembly ${directory}: ${message}`);
    this.name = 'CloudAssemblyError';
  }
}

const STACK = 'aws:cloudformation:stack';
const ASSET_MANIFEST = 'cdk:asset-manifest';
const NESTED_ASSEMBLY = 'cdk:cloud-assembly';

/** Reads the stacks, templates and function bundles of the cloud assembly in `directory`. */
export async function readCloudAssembly(directory: string): Promise<CloudAssemblyStacks> {
  const root = resolve(directory);
  const manifestFile = join(root, 'manifest.json');
  if (!existsSync(manifestFile)) {
    throw new CloudAssemblyError(
      root,
      'no manifest.json: expected the directory `cdk synth` writes (cdk.out, or the one given with --output)',
    );
  }
  // Loaded on demand: a run of the example never needs it.
  const { Manifest } = await import('aws-cdk-lib/cloud-assembly-schema');
  let manifest: AssemblyManifest;
  try {
    manifest = Manifest.loadAssemblyManifest(manifestFile);
  } catch (error) {
    throw new CloudAssemblyError(root, (error as Error).message);
  }
  const artifacts = Object.entries(manifest.artifacts ?? {});
  const nested = artifacts.filter(([, artifact]) => artifact.type === NESTED_ASSEMBLY);
  if (nested.length > 0) {
    const folders = nested.map(
      ([, artifact]) => (artifact.properties as NestedCloudAssemblyProperties).directoryName,
    );
    throw new CloudAssemblyError(
      root,
      `it holds nested assemblies (CDK stages): run one of them with --assembly ${folders.map((folder) => join(root, folder)).join(' or ')}`,
    );
  }
  const stackArtifacts = artifacts.filter(([, artifact]) => artifact.type === STACK);
  if (stackArtifacts.length === 0) throw new CloudAssemblyError(root, 'its manifest names no stack');

  const stacks: AssemblyStack[] = [];
  const bundles = new Map<string, FunctionBundle>();
  for (const [artifactId, artifact] of dependencyOrder(stackArtifacts)) {
    const properties = artifact.properties as AwsCloudFormationStackProperties;
    const stackName = properties.stackName ?? artifactId;
    const template = readJson(root, properties.templateFile) as CfnTemplate;
    stacks.push({ artifactId, stackName, template, environment: environmentOf(artifact.environment) });
    const assets = (artifact.dependencies ?? []).flatMap((id) => {
      const dependency = manifest.artifacts?.[id];
      if (dependency?.type !== ASSET_MANIFEST) return [];
      return [
        Manifest.loadAssetManifest(join(root, (dependency.properties as AssetManifestProperties).file)),
      ];
    });
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      bundles.set(`${stackName}/${logicalId}`, functionBundleOf(root, resource, assets));
    }
  }
  return { directory: root, version: manifest.version, stacks, bundles };
}

/** Stacks after the stacks they depend on (the manifest's `dependencies`), else in manifest order. */
function dependencyOrder<T extends { readonly dependencies?: string[] }>(
  stacks: ReadonlyArray<readonly [string, T]>,
): Array<readonly [string, T]> {
  const ordered: Array<readonly [string, T]> = [];
  const placed = new Set<string>();
  const ids = new Set(stacks.map(([id]) => id));
  const visit = (entry: readonly [string, T], path: readonly string[]) => {
    const [id, artifact] = entry;
    if (placed.has(id)) return;
    if (path.includes(id)) throw new Error(`stack dependency cycle: ${[...path, id].join(' → ')}`);
    for (const dependency of artifact.dependencies ?? []) {
      const found = stacks.find(([other]) => other === dependency);
      if (found && ids.has(dependency)) visit(found, [...path, id]);
    }
    placed.add(id);
    ordered.push(entry);
  };
  for (const entry of stacks) visit(entry, []);
  return ordered;
}

/** `aws://<account>/<region>`, where `unknown-account` / `unknown-region` say the stack is environment-agnostic. */
function environmentOf(environment: string | undefined): AssemblyEnvironment {
  const match = /^aws:\/\/([^/]+)\/([^/]+)$/.exec(environment ?? '');
  if (!match) return {};
  const [, account, region] = match as unknown as [string, string, string];
  return {
    ...(account === 'unknown-account' ? {} : { account }),
    ...(region === 'unknown-region' ? {} : { region }),
  };
}

/**
 * The file Lambda would load for the function: the asset whose destination object key is the
 * function's `Code.S3Key` (the asset manifest), the handler's module in it with the extensions the
 * Node.js runtime loads (Lambda developer guide, "Define Lambda function handler in Node.js").
 */
function functionBundleOf(
  root: string,
  resource: CfnResource,
  assets: readonly AssetManifest[],
): FunctionBundle {
  const properties = resource.Properties ?? {};
  const code = properties['Code'] as { S3Key?: unknown } | undefined;
  const key = code?.S3Key;
  if (typeof key !== 'string') return { kind: 'missing', reason: 'its Code is not an asset of the assembly' };
  const source = assets
    .flatMap((asset) => Object.values(asset.files ?? {}))
    .find((file) =>
      Object.values(file.destinations).some((destination) => destination.objectKey === key),
    )?.source;
  if (!source?.path) return { kind: 'missing', reason: `no asset of the assembly is uploaded as ${key}` };
  const folder = join(root, source.path);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    return { kind: 'missing', reason: `its asset folder ${source.path} is not in the assembly` };
  }
  const handler = properties['Handler'];
  const module = typeof handler === 'string' ? handler.slice(0, handler.lastIndexOf('.')) : '';
  const file = ['.mjs', '.js', '.cjs']
    .map((extension) => join(folder, `${module}${extension}`))
    .find((candidate) => existsSync(candidate));
  if (!module || !file) {
    return {
      kind: 'missing',
      reason: `its asset ${source.path} has no ${module || '(handler)'}.mjs/.js/.cjs (synthesized without bundling?)`,
    };
  }
  return { kind: 'bundle', file, asset: source.path };
}

function readJson(root: string, file: string): unknown {
  const path = join(root, file);
  if (!existsSync(path)) throw new CloudAssemblyError(root, `${file} is named in its manifest but missing`);
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

/** What the functions' environment says of the deployment the assembly was synthesized from. */
export interface AssemblySettings {
  readonly partnerName: string;
  readonly inboundSource: string;
  readonly outboundSource: string;
  /** The regions the assembly gives a provisioning root. */
  readonly regions: readonly Region[];
}

export interface LocalAssembly {
  readonly stacks: readonly SynthesizedStack[];
  readonly settings: AssemblySettings;
  /** What was changed to run it here, one line each. */
  readonly notes: readonly string[];
}

/**
 * The stacks as the local runtime runs them: the functions' service addresses pointed at the
 * sandbox (`sandbox`, written with the placeholder the deployment replaces), the target account and
 * region made the local ones, and CDK's version-reporting resource dropped with the condition that
 * only it uses.
 */
export function localAssembly(
  stacks: readonly AssemblyStack[],
  sandbox: SandboxAddresses,
  local: { readonly account: string; readonly region: string },
): LocalAssembly {
  const notes: string[] = [];
  const pointed = pointFunctionsAtSandbox(stacks, sandbox);
  notes.push(...pointed.notes);
  const localized = pointed.stacks.map((stack) => {
    const withoutMetadata = dropVersionReporting(stack);
    const { template, note } = localizeEnvironment(withoutMetadata, local);
    if (note) notes.push(note);
    return { ...stack, template };
  });
  return { stacks: localized, settings: pointed.settings, notes };
}

const SANDBOX_SETTINGS = ['PROVISIONING_URLS', 'INSTALL_URL_TEMPLATE', 'ALLOWED_HOSTNAME_SUFFIXES'] as const;

function pointFunctionsAtSandbox(
  stacks: readonly AssemblyStack[],
  sandbox: SandboxAddresses,
): { stacks: AssemblyStack[]; settings: AssemblySettings; notes: string[] } {
  const replaced = new Map<string, string>();
  let settings: AssemblySettings | undefined;
  const problems: string[] = [];
  const pointed = stacks.map((stack) => {
    const resources = Object.fromEntries(
      Object.entries(stack.template.Resources).map(([logicalId, resource]) => {
        if (resource.Type !== 'AWS::Lambda::Function') return [logicalId, resource];
        const environment = (resource.Properties?.['Environment'] ?? {}) as {
          Variables?: Record<string, unknown>;
        };
        const variables = { ...environment.Variables };
        if (variables['PROVISIONING_URLS'] === undefined) return [logicalId, resource];
        for (const name of SANDBOX_SETTINGS) {
          if (variables[name] !== undefined && typeof variables[name] !== 'string') {
            problems.push(`${stack.stackName}/${logicalId}: ${name} is not a plain value in the template`);
          }
        }
        const urls = parseUrls(String(variables['PROVISIONING_URLS']));
        if (!urls) {
          problems.push(`${stack.stackName}/${logicalId}: PROVISIONING_URLS is not a JSON object of URLs`);
          return [logicalId, resource];
        }
        const regions = REGIONS.filter((region) => urls[region] !== undefined);
        for (const region of regions)
          replaced.set(`provisioning ${region} ${urls[region]}`, sandbox.provisioningUrls[region]);
        variables['PROVISIONING_URLS'] = JSON.stringify(
          Object.fromEntries(regions.map((region) => [region, sandbox.provisioningUrls[region]])),
        );
        const install = variables['INSTALL_URL_TEMPLATE'];
        replaced.set(`install URL ${String(install ?? 'https://{hostname}')}`, sandbox.installUrlTemplate);
        variables['INSTALL_URL_TEMPLATE'] = sandbox.installUrlTemplate;
        if (variables['ALLOWED_HOSTNAME_SUFFIXES'] !== undefined) {
          replaced.set(
            `install hostnames ${String(variables['ALLOWED_HOSTNAME_SUFFIXES'])}`,
            sandbox.allowedHostnameSuffixes.join(','),
          );
          variables['ALLOWED_HOSTNAME_SUFFIXES'] = sandbox.allowedHostnameSuffixes.join(',');
        }
        settings ??= {
          partnerName: String(variables['PARTNER_NAME'] ?? ''),
          inboundSource: String(variables['INBOUND_SOURCE'] ?? ''),
          outboundSource: String(variables['OUTBOUND_SOURCE'] ?? ''),
          regions,
        };
        return [
          logicalId,
          {
            ...resource,
            Properties: { ...resource.Properties, Environment: { ...environment, Variables: variables } },
          },
        ];
      }),
    );
    return { ...stack, template: { ...stack.template, Resources: resources } };
  });
  if (problems.length > 0)
    throw new Error(
      `the local runtime cannot point this assembly at the sandbox:\n  - ${problems.join('\n  - ')}`,
    );
  if (!settings?.partnerName || !settings.inboundSource || !settings.outboundSource) {
    throw new Error(
      'the assembly has no function with the connector settings (PARTNER_NAME, PROVISIONING_URLS, INBOUND_SOURCE, OUTBOUND_SOURCE): is it the connector app?',
    );
  }
  const notes = [...replaced].map(([from, to]) => `  ${from} → ${to}`);
  return {
    stacks: pointed,
    settings,
    notes: notes.length > 0 ? ['service addresses of the assembly pointed at the sandbox:', ...notes] : [],
  };
}

function parseUrls(text: string): Partial<Record<Region, string>> | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const entries = Object.entries(parsed as Record<string, unknown>);
    if (entries.some(([region, url]) => !REGIONS.includes(region as Region) || typeof url !== 'string'))
      return undefined;
    return parsed as Partial<Record<Region, string>>;
  } catch {
    return undefined;
  }
}

/**
 * CDK's version reporting (`AWS::CDK::Metadata`) is made conditional on the region where the
 * stack's region is unknown; the local runtime models no conditions, and this resource does nothing.
 */
function dropVersionReporting(stack: AssemblyStack): AssemblyStack {
  const resources = Object.entries(stack.template.Resources);
  const metadata = resources.filter(([, resource]) => resource.Type === 'AWS::CDK::Metadata');
  if (metadata.length === 0) return stack;
  const kept = resources.filter(([, resource]) => resource.Type !== 'AWS::CDK::Metadata');
  const usedElsewhere = new Set(kept.map(([, resource]) => resource.Condition).filter(Boolean));
  const conditions = Object.fromEntries(
    Object.entries(stack.template.Conditions ?? {}).filter(
      ([name]) => usedElsewhere.has(name) || !metadata.some(([, resource]) => resource.Condition === name),
    ),
  );
  const { Conditions: _dropped, ...rest } = stack.template;
  return {
    ...stack,
    template: {
      ...rest,
      Resources: Object.fromEntries(kept),
      ...(Object.keys(conditions).length > 0 ? { Conditions: conditions } : {}),
    },
  };
}

/**
 * A stack synthesized for an account or region names them in plain text (ARNs of imported
 * resources, `aws:SourceAccount` conditions, `kms:ViaService` values, regional service principals);
 * here they become the local account and region, which the runtime makes every ARN in.
 */
export function localizeEnvironment(
  stack: AssemblyStack,
  local: { readonly account: string; readonly region: string },
): { template: CfnTemplate; note?: string } {
  const { account, region } = stack.environment;
  const swapAccount = account !== undefined && account !== local.account;
  const swapRegion = region !== undefined && region !== local.region;
  if (!swapAccount && !swapRegion) return { template: stack.template };
  const accountPattern = swapAccount ? new RegExp(`(?<!\\d)${account}(?!\\d)`, 'g') : undefined;
  const regionPattern = swapRegion
    ? new RegExp(`(?<=^|[:.])${region.replaceAll('-', '\\-')}(?=$|[:.])`, 'g')
    : undefined;
  const rewrite = (value: unknown): unknown => {
    if (typeof value === 'string') {
      let text = value;
      if (accountPattern) text = text.replace(accountPattern, local.account);
      if (regionPattern) text = text.replace(regionPattern, local.region);
      return text;
    }
    if (Array.isArray(value)) return value.map(rewrite);
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rewrite(item)]));
    }
    return value;
  };
  const target = [swapAccount ? `account ${account}` : '', swapRegion ? `region ${region}` : '']
    .filter(Boolean)
    .join(', ');
  return {
    template: rewrite(stack.template) as CfnTemplate,
    note: `${stack.stackName} targets ${target}: run as account ${local.account}, region ${local.region} (its ARNs, conditions and service principals rewritten)`,
  };
}

/** A cloud assembly read for a run, before the services start (they take its partner name). */
export interface PreparedAssembly {
  readonly assembly: CloudAssemblyStacks;
  readonly local: LocalAssembly;
}

/**
 * The cloud assembly of `options.assembly`, read and pointed at the sandbox (assembly.ts). The
 * options that change a synthesis have nothing to change in an assembly: they are refused.
 */
export async function prepareAssembly(
  options: Pick<
    LocalRuntimeOptions,
    'assembly' | 'provisioningRegions' | 'config' | 'connector' | 'customize'
  >,
): Promise<PreparedAssembly | undefined> {
  if (options.assembly === undefined) return undefined;
  const synthesisOptions = (['provisioningRegions', 'config', 'connector', 'customize'] as const).filter(
    (name) => options[name] !== undefined,
  );
  if (synthesisOptions.length > 0) {
    throw new Error(
      `a cloud assembly runs as it was synthesized: ${synthesisOptions.join(', ')} change a synthesis and do not apply to it`,
    );
  }
  const assembly = await readCloudAssembly(options.assembly);
  const local = localAssembly(assembly.stacks, sandboxAddresses(SERVICE_PLACEHOLDER), {
    account: LOCAL_ACCOUNT_ID,
    region: LOCAL_REGION,
  });
  return { assembly, local };
}

/**
 * The assembly's templates, as the local runtime runs them: the config its functions tell, with
 * the service at the sandbox (or its proxy), and each function's bundle from the assembly's assets
 * (the project's bundle of its source where the assembly has none, said in the notes).
 */
export function assemblyConnectorTemplate(
  { assembly, local }: PreparedAssembly,
  services: Pick<LocalServices, 'serviceUrl' | 'endpoint'>,
): ConnectorTemplate {
  const config = localConnectorConfig({
    sandboxUrl: services.serviceUrl,
    partnerName: local.settings.partnerName,
    regions: local.settings.regions,
    overrides: { inboundSource: local.settings.inboundSource, outboundSource: local.settings.outboundSource },
  });
  const model = new TemplateModel(local.stacks, {
    region: LOCAL_REGION,
    account: LOCAL_ACCOUNT_ID,
    sqsEndpoint: services.endpoint.url,
  });
  const bundleByArn = new Map<string, FunctionBundle>();
  for (const resource of model.ofType('AWS::Lambda::Function')) {
    const bundle = assembly.bundles.get(`${resource.stackName}/${resource.logicalId}`);
    if (bundle) bundleByArn.set(resource.arn, bundle);
  }
  const bundled = [...bundleByArn.values()].filter((bundle) => bundle.kind === 'bundle').length;
  const missing = model
    .ofType('AWS::Lambda::Function')
    .map((resource) => [resource, bundleByArn.get(resource.arn)] as const)
    .filter(([, bundle]) => bundle?.kind !== 'bundle');
  const stackNames = local.stacks.map((stack) => stack.stackName).join(', ');
  const notes = [
    `cloud assembly ${assembly.directory} (schema ${assembly.version}): stacks ${stackNames}; partner ${local.settings.partnerName}, inbound source ${local.settings.inboundSource}`,
    // The notes name the sandbox by the placeholder the deployment replaces: name it as it is.
    ...local.notes.map((note) => note.replaceAll(SERVICE_PLACEHOLDER, services.serviceUrl)),
    `${bundled} of ${bundled + missing.length} functions run from the assembly's own bundles`,
    ...missing.map(([resource, bundle]) => {
      const source = resource.metadata[HANDLER_SOURCE_METADATA] as HandlerSource | undefined;
      const reason = bundle?.kind === 'missing' ? bundle.reason : 'it has no bundle in the assembly';
      return `  ${resource.logicalId}: ${reason}; running the project's bundle of ${source?.entry ?? 'its source'} instead, which may differ from what the assembly deploys`;
    }),
  ];
  return {
    config,
    model,
    notes,
    ownBundle: (fn) => {
      const bundle = bundleByArn.get(fn.arn);
      return bundle?.kind === 'bundle' ? bundle.file : undefined;
    },
  };
}
