import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboundDetailType } from '#functions/contracts/registry.ts';
import { INBOUND_DETAIL_TYPES } from '#functions/contracts/route-decoder.ts';
import { type QueueRoute, queueRoutes, refusalFunction, scheduledFunctions } from '#functions/routes.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { globexCloudAssembly } from '#test/support/cdk-synth.ts';

/**
 * The deployed artifact, not the source: each function's bundle from the cloud assembly `cdk synth`
 * writes is imported by a fresh `node` process (as Lambda's runtime would) and invoked on the
 * sample SQS batch of its route, with the environment the template gives that function, against
 * the local runtime's sandbox, dynalite and AWS endpoint.
 */

const EVENTS_DIR = fileURLToPath(new URL('../../events/inbound/', import.meta.url));

/** The result event each route publishes on success (ARCHITECTURE.md, outbound contract). */
const EXPECTED_RESULT: Record<InboundDetailType, string> = {
  AccountCreated: 'BusinessProvisioned',
  PlanChosen: 'PlanChanged',
  SubscriptionStatusRequested: 'SubscriptionStatus',
  EmployeeChanged: 'EmployeeSynced',
  LocationCreated: 'LocationProvisioned',
  BudgetSet: 'BudgetSaved',
  PayReturnsRequested: 'PayReturnsReady',
  PayRatesRequested: 'PayRatesReported',
  ReferenceDataRequested: 'ReferenceData',
  RecordsRequested: 'RecordsReported',
  TimesheetFieldsDefined: 'TimesheetFieldsSynced',
  PayRateAssigned: 'PayRatesAssigned',
};

/**
 * Every route, in the registry's order: every later sample acts on the business the first one
 * provisions (BudgetSet's sample names a seeded location, so it does not depend on LocationCreated).
 */
const SCENARIO_ORDER = INBOUND_DETAIL_TYPES;

const DRIVER = `
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [bundle, eventFile, functionName, timeoutMs] = process.argv.slice(2);
const { handler } = await import(pathToFileURL(bundle).href);
const deadline = Date.now() + Number(timeoutMs);
const context = {
  functionName, functionVersion: '$LATEST', memoryLimitInMB: '256', awsRequestId: crypto.randomUUID(),
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:' + functionName,
  logGroupName: '/aws/lambda/' + functionName, logStreamName: 'artifact-test', callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
};
const result = await handler(JSON.parse(readFileSync(eventFile, 'utf8')), context);
process.stdout.write('\\n@@result ' + JSON.stringify(result ?? null) + '\\n');
`;

interface Invocation {
  readonly result: unknown;
  readonly output: string;
}

interface CloudAssembly {
  readonly outdir: string;
  readonly functions: { Properties: { Description: string; Code: { S3Key: string } } }[];
}

/**
 * Runs `cdk synth` itself (the CLI, cdk.json and the app it names), offline, in a child process
 * so this worker stays responsive while esbuild bundles every function: how `npm test` proves the
 * README's `npx cdk synth -c config=connector.config.example.json` works on a clean clone. Another
 * partner's fields are given over the example as cdk context (test/support/cdk-synth.ts), and
 * assembly.test.ts reads the same assembly: one synthesis for both.
 */
async function synthesizeApp(): Promise<CloudAssembly> {
  const outdir = await globexCloudAssembly();
  const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as {
    artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const serviceStack = Object.entries(manifest.artifacts).find(([name]) => name.endsWith('-Service'));
  if (!serviceStack?.[1].properties?.templateFile) throw new Error('no service stack in the cloud assembly');
  const template = JSON.parse(
    readFileSync(join(outdir, serviceStack[1].properties.templateFile), 'utf8'),
  ) as {
    Resources: Record<string, { Type: string; Properties: CloudAssembly['functions'][number]['Properties'] }>;
  };
  return {
    outdir,
    functions: Object.values(template.Resources).filter(
      (resource) => resource.Type === 'AWS::Lambda::Function',
    ),
  };
}

function assetDirectory(assembly: CloudAssembly, description: string): string {
  const fn = assembly.functions.find((candidate) => candidate.Properties.Description === description);
  if (!fn) throw new Error(`no function described "${description}"`);
  return join(assembly.outdir, `asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`);
}

function invokeBundle(
  bundleDir: string,
  event: unknown,
  settings: { functionName: string; timeoutSeconds: number; env: Record<string, string>; workDir: string },
): Promise<Invocation> {
  const eventFile = join(settings.workDir, `${settings.functionName}-${Date.now()}.json`);
  writeFileSync(eventFile, JSON.stringify(event));
  const driver = join(settings.workDir, 'driver.mjs');
  const child = spawn(
    process.execPath,
    [
      '--enable-source-maps',
      driver,
      join(bundleDir, 'index.mjs'),
      eventFile,
      settings.functionName,
      String(settings.timeoutSeconds * 1000),
    ],
    // Only what Lambda would give: no developer credentials or profile leak into the artifact.
    { env: { PATH: process.env.PATH ?? '', ...settings.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const marker = /\n@@result (.*)\n/.exec(output);
      if (code !== 0 || !marker) {
        reject(new Error(`${settings.functionName} exited ${code}:\n${output.slice(-4000)}`));
        return;
      }
      resolve({ result: JSON.parse(marker[1]!), output });
    });
  });
}

function sampleBatch(
  detailType: string,
  patch: (detail: Record<string, unknown>) => void = () => {},
): unknown {
  const batch = JSON.parse(readFileSync(join(EVENTS_DIR, detailType, 'sqs-fifo-batch.json'), 'utf8')) as {
    Records: { body: string }[];
  };
  for (const record of batch.Records) {
    const body = JSON.parse(record.body) as { event: { detail: Record<string, unknown> } };
    patch(body.event.detail);
    record.body = JSON.stringify(body);
  }
  return batch;
}

describe('the synthesized function bundles', () => {
  let assembly: CloudAssembly;
  let runtime: LocalRuntime;
  const workDir = mkdtempSync(join(tmpdir(), 'connector-artifact-'));
  // As deployed: the bundle's own source maps, not tsx's.
  const environmentOf = (functionName: string) => ({
    ...runtime.functionEnvironment(functionName),
    NODE_OPTIONS: '--enable-source-maps',
  });

  // Bundling every function on a shared two-core machine can take most of a minute.
  beforeAll(async () => {
    assembly = await synthesizeApp();
    writeFileSync(join(workDir, 'driver.mjs'), DRIVER);
    runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  }, 240_000);

  afterAll(async () => {
    await runtime?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('run every route handler on its sample batch with no failed record and publish the result event', async () => {
    for (const detailType of SCENARIO_ORDER) {
      // Prepare
      const route = queueRoutes.find((candidate) => candidate.detailType === detailType) as QueueRoute;
      const location = runtime.outbound().find((event) => event['detail-type'] === 'LocationProvisioned');
      const event = sampleBatch(detailType, (detail) => {
        // The budget sample names a location that only exists once LocationCreated ran here.
        if (detailType === 'BudgetSet' && location) detail.locationId = location.detail['locationId'];
      });
      const before = runtime.outbound().length;

      // Act
      const { result, output } = await invokeBundle(assetDirectory(assembly, route.description), event, {
        functionName: route.functionName,
        timeoutSeconds: route.timeoutSeconds,
        env: environmentOf(route.functionName),
        workDir,
      });

      // Assess
      const produced = runtime
        .outbound()
        .slice(before)
        .map((e) => e['detail-type']);
      expect(result, `${detailType}: ${output.slice(-2000)}`).toEqual({ batchItemFailures: [] });
      expect(produced, `${detailType} published`).toContain(EXPECTED_RESULT[detailType]);
      expect(produced, `${detailType} published`).not.toContain('SyncFailed');
    }
  });

  it('ships each function as one minified ESM file with its source map and the AWS SDK inside', () => {
    for (const fn of [...queueRoutes, ...scheduledFunctions, refusalFunction]) {
      // Prepare
      const dir = assetDirectory(assembly, fn.description);

      // Act
      const bundle = readFileSync(join(dir, 'index.mjs'), 'utf8');
      const lines = bundle.split('\n');
      const map = JSON.parse(readFileSync(join(dir, 'index.mjs.map'), 'utf8')) as { sources: string[] };

      // Assess
      expect(readdirSync(dir).sort(), fn.functionName).toEqual(['index.mjs', 'index.mjs.map']);
      // Minified: thousands of characters per line (readable esbuild output averages under 40).
      expect(bundle.length / lines.length, fn.functionName).toBeGreaterThan(1000);
      expect(bundle).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      // Bundled, not imported from the runtime's copy: no bare import of an SDK package remains.
      expect(bundle).not.toMatch(/from\s*["']@aws-sdk\//);
      expect(map.sources.some((source) => source.includes('@aws-sdk/client-dynamodb'))).toBe(true);
    }
  });

  it('carries no chaos instrumentation: no crash point in any synthesized asset, code or source map', () => {
    // Prepare: every asset the cloud assembly holds (each function's bundle and map).
    const assets = readdirSync(assembly.outdir).filter((name) => name.startsWith('asset.'));
    const files = assets.flatMap((asset) =>
      readdirSync(join(assembly.outdir, asset)).map((file) => join(assembly.outdir, asset, file)),
    );

    // Act
    const traces = files.filter((file) =>
      /crashPoint|SimulatedCrash|crash-points/.test(readFileSync(file, 'utf8')),
    );

    // Assess: the use cases only name their interruption points; the chaos code stays in scripts/.
    expect(files.length).toBeGreaterThanOrEqual(2 * (queueRoutes.length + scheduledFunctions.length + 1));
    expect(traces).toEqual([]);
  });

  it('runs the scheduled trial watch bundle to completion', async () => {
    // Prepare
    const trialWatch = scheduledFunctions[0]!;
    const scheduled = {
      version: '0',
      id: 'c3c0b2b4-5d2a-4b9e-9f1c-2f1f5a0e7d11',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      time: new Date().toISOString(),
      region: runtime.region,
      resources: ['arn:aws:events:us-east-1:000000000000:rule/trial-watch'],
      detail: {},
    };

    // Act
    const { result } = await invokeBundle(assetDirectory(assembly, trialWatch.description), scheduled, {
      functionName: trialWatch.functionName,
      timeoutSeconds: trialWatch.timeoutSeconds,
      env: environmentOf(trialWatch.functionName),
      workDir,
    });

    // Assess
    expect(result).toMatchObject({ runId: scheduled.id, failed: 0 });
  });
});
