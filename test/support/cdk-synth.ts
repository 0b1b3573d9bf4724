import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { PROJECT_ROOT } from '#lib/connector-function.ts';

/**
 * `cdk synth` itself (the CLI, cdk.json and the app), offline, from the config file `configFile`
 * into `outdir`; throws with the end of its output when it fails.
 */
export async function runCdkSynth(configFile: string, outdir: string): Promise<void> {
  const child = spawn(
    join(PROJECT_ROOT, 'node_modules/.bin/cdk'),
    ['synth', '--quiet', '--no-notices', '--output', outdir, '-c', `config=${configFile}`],
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
 * Another partner's config, as a partner writes it: its own partner name, account and region, bus,
 * secret, sources and service addresses. The cloud assembly `cdk synth` writes from it is the one
 * the artifact test (test/infra/artifact.test.ts) and `npm start -- --assembly` (test/local/
 * assembly.test.ts) both read.
 */
export const GLOBEX_CONFIG = {
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

/**
 * The cloud assembly of GLOBEX_CONFIG, synthesized once per test run by `cdk synth` (about 20 s of
 * CPU: it bundles every function): the first test file that asks runs it into the run's directory
 * (test/support/global-setup.ts); one asking meanwhile waits until it has ended, and gets its
 * failure if it failed. Read-only for its users: a test that changes an assembly changes a copy.
 */
export async function globexCloudAssembly(): Promise<string> {
  const directory = join(inject('runDirectory'), 'globex');
  const outdir = join(directory, 'cdk.out');
  const done = join(directory, 'done');
  const failed = join(directory, 'failed');
  try {
    // mkdir either creates the directory or fails: one test file runs the synthesis.
    mkdirSync(directory);
  } catch {
    while (!existsSync(done)) {
      if (existsSync(failed)) throw new Error(readFileSync(failed, 'utf8'));
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return outdir;
  }
  const configFile = join(directory, 'connector.config.json');
  writeFileSync(configFile, JSON.stringify(GLOBEX_CONFIG));
  try {
    await runCdkSynth(configFile, outdir);
  } catch (error) {
    writeFileSync(failed, (error as Error).message);
    throw error;
  }
  writeFileSync(done, '');
  return outdir;
}
