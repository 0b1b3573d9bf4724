import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { EXAMPLE_CONFIG_FILE } from '#lib/config.ts';
import { PROJECT_ROOT } from '#lib/connector-function.ts';

/**
 * `cdk synth` itself (the CLI, cdk.json and the app), offline, from the config file `configFile`
 * into `outdir` (`extraArgs`: more of the CLI's options); throws with the end of its output when it
 * fails.
 */
export async function runCdkSynth(
  configFile: string,
  outdir: string,
  extraArgs: readonly string[] = [],
): Promise<void> {
  const child = spawn(
    join(PROJECT_ROOT, 'node_modules/.bin/cdk'),
    ['synth', '--quiet', '--no-notices', '--output', outdir, '-c', `config=${configFile}`, ...extraArgs],
    {
      cwd: PROJECT_ROOT,
      // No account or region: synthesis must not need AWS credentials or network.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CDK_DISABLE_CLI_TELEMETRY: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`cdk synth exited ${code}:\n${output.slice(-4000)}`);
}

/**
 * Another partner's fields, as a partner sets them: its own partner name, account and region, bus,
 * secret, sources, service addresses and alarm addresses. `globexCloudAssembly` gives them to
 * `cdk synth` as cdk context over the README's example config file, so one synthesis proves the
 * README's `npx cdk synth -c config=connector.config.example.json`, the documented context
 * overrides, and an assembly of a partner other than the local runtime's example. The artifact
 * test (test/infra/artifact.test.ts) and `npm start -- --assembly` (test/local/assembly.test.ts)
 * both read it.
 */
const GLOBEX_CONFIG = {
  partnerName: 'globex',
  account: '210987654321',
  region: 'eu-west-1',
  provisioningUrls: { US: 'https://provisioning.globex.example' },
  installUrlTemplate: 'https://{hostname}',
  allowedHostnameSuffixes: ['.globex.example'],
  tokenSecret: { create: true, name: 'workforce-connector/globex/token' },
  eventBus: { create: true, name: 'workforce-connector-globex' },
  inboundSource: 'globex.app',
  outboundSource: 'globex.connector',
  alarms: {
    email: 'ops@globex.example',
    ticketEmail: 'tickets@globex.example',
    runbookBaseUrl: 'https://github.com/globex/workforce-connector/blob/main/docs',
  },
};

/** How often a test file waiting for another's `cdk synth` looks whether it has ended. */
const POLL_MS = 250;
/** How long a test file waits for another's `cdk synth` (bundling on a busy two-core machine). */
const WAIT_MS = 200_000;

/**
 * The cloud assembly of the example config with GLOBEX_CONFIG over it, synthesized once per test
 * run by `cdk synth` (about 20 s of CPU: it bundles every function): the first test file that asks
 * runs it into the run's directory (test/support/global-setup.ts); one asking meanwhile waits until
 * it has ended, and gets its failure if it failed. Read-only for its users: a test that changes an
 * assembly changes a copy.
 */
export async function globexCloudAssembly(): Promise<string> {
  const directory = join(inject('runDirectory'), 'globex');
  const outdir = join(directory, 'cdk.out');
  const done = join(directory, 'done');
  const failed = join(directory, 'failed');
  try {
    // mkdir either creates the directory or fails with EEXIST: one test file runs the synthesis.
    mkdirSync(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const deadline = Date.now() + WAIT_MS;
    while (!existsSync(done)) {
      if (existsSync(failed)) throw new Error(readFileSync(failed, 'utf8'));
      if (Date.now() > deadline) {
        throw new Error(
          `another test file's cdk synth into ${outdir} did not end within ${WAIT_MS / 1000} s`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return outdir;
  }
  try {
    // A context value that starts with { or [ is read as JSON (lib/config.ts).
    const overrides = Object.entries(GLOBEX_CONFIG).flatMap(([field, value]) => [
      '-c',
      `${field}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
    ]);
    await runCdkSynth(EXAMPLE_CONFIG_FILE, outdir, overrides);
  } catch (error) {
    // Written aside and renamed: a waiting file never reads half a message.
    writeFileSync(
      `${failed}.partial`,
      `cdk synth of the shared assembly failed: ${(error as Error).message}`,
    );
    renameSync(`${failed}.partial`, failed);
    throw error;
  }
  writeFileSync(done, '');
  return outdir;
}
