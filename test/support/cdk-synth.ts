import { spawn } from 'node:child_process';
import { join } from 'node:path';
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
