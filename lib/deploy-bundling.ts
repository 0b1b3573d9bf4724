import { type BundlingOptions, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import { connectorBundling } from './connector-function.ts';

/**
 * The esbuild call `cdk deploy` makes for every function, as esbuild API options: translated from
 * the very `connectorBundling` options (connector-function.ts), so the bundles the local runtime
 * runs (local/function-bundles.ts) and the bench measures (bench/bundle.ts) are the deployed ones.
 */

/** CDK bundling options this translation knows; any other one must be added here before the bench runs. */
const TRANSLATED = new Set([
  'format',
  'target',
  'mainFields',
  'banner',
  'minify',
  'sourceMap',
  'sourceMapMode',
  'sourcesContent',
  'bundleAwsSDK',
  'externalModules',
  'forceDockerBundling',
  'esbuildArgs',
]);

/** `--name=value` / `--flag` arguments CDK passes through, as esbuild API options. */
function esbuildArgsAsOptions(args: BundlingOptions['esbuildArgs'] = {}): BuildOptions {
  const options: BuildOptions = {};
  for (const [flag, value] of Object.entries(args)) {
    if (flag === '--legal-comments' && typeof value === 'string') {
      options.legalComments = value as BuildOptions['legalComments'];
    } else if (flag === '--tree-shaking') {
      options.treeShaking = value === true || value === 'true';
    } else {
      throw new Error(`lib/deploy-bundling.ts cannot translate esbuild argument ${flag}; add it there`);
    }
  }
  return options;
}

/**
 * The esbuild API options equivalent to the command line CDK builds from `bundling`
 * (aws-lambda-nodejs Bundling: `--bundle --platform=node`, `--sourcemap` for the default mode,
 * i.e. a linked map whose URL comment Node follows under --enable-source-maps).
 */
export function esbuildOptionsOf(bundling: BundlingOptions): BuildOptions {
  const unknown = Object.keys(bundling).filter((key) => !TRANSLATED.has(key));
  if (unknown.length > 0)
    throw new Error(`lib/deploy-bundling.ts cannot translate bundling ${unknown.join(', ')}`);
  const mode = bundling.sourceMapMode ?? SourceMapMode.DEFAULT;
  const sourceMapEnabled = bundling.sourceMapMode !== undefined || bundling.sourceMap === true;
  return {
    bundle: true,
    platform: 'node',
    format: bundling.format === OutputFormat.ESM ? 'esm' : 'cjs',
    ...(bundling.target ? { target: bundling.target } : {}),
    ...(bundling.mainFields ? { mainFields: bundling.mainFields } : {}),
    ...(bundling.banner ? { banner: { js: bundling.banner } } : {}),
    minify: bundling.minify === true,
    sourcemap: sourceMapEnabled ? (mode === SourceMapMode.DEFAULT ? 'linked' : mode) : false,
    sourcesContent: bundling.sourcesContent ?? true,
    // CDK leaves the runtime's SDK out unless told to bundle it.
    external: [
      ...(bundling.externalModules ?? []),
      ...(bundling.bundleAwsSDK === true ? [] : ['@aws-sdk/*']),
    ],
    ...esbuildArgsAsOptions(bundling.esbuildArgs),
    logLevel: 'silent',
  };
}

export const deployBuildOptions: BuildOptions = esbuildOptionsOf(connectorBundling);
