import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  BUNDLE_DIR,
  type BuiltBundle,
  buildBundle,
  buildColdStartRunner,
  functionTargets,
  REFERENCE_TARGETS,
} from './bundle.ts';
import type { ColdStartSample } from './cold-start-runner.ts';
import type { BenchEnvironment } from './environment.ts';
import { median } from './stats.ts';
import {
  accountCreated,
  budgetSet,
  employeeChanged,
  type InboundEntry,
  locationCreated,
  payReturnsRequested,
  planChosen,
  sqsBatch,
  subscriptionStatusRequested,
  trialWatchEvent,
} from './workload.ts';

/**
 * Issue #9 §1 and §5 (memory): every function's deploy bundle loaded by a fresh `node` and invoked
 * once against the local services, next to the references built in the same run. Runs are
 * interleaved (one of each target per round) so drift in the shared machine's load hits all alike.
 */

export interface ColdStartResult {
  readonly name: string;
  readonly kind: 'function' | 'reference';
  readonly bytes: number;
  readonly mapBytes: number;
  readonly topPackages: BuiltBundle['topPackages'];
  readonly samples: number;
  readonly readyMsMedian: number;
  readonly initMsMedian: number;
  readonly errors: readonly string[];
  readonly memorySizeMb?: number;
  /** Peak memory of one invocation with a batch of 10 (functions only). */
  readonly batchOf10?: { maxRssMb: number; rssPeakMb: number; failedRecords: number; error?: string };
}

/** Records for one first invocation; state each one needs is created here, beforehand. */
async function eventFor(name: string, environment: BenchEnvironment, records: number): Promise<unknown> {
  if (name === 'trial-watch') return trialWatchEvent(new Date());
  const perAccount: Record<string, (accountId: string) => InboundEntry> = {
    'change-plan': (accountId: string) => planChosen(accountId, 'PREMIUM'),
    'subscription-status': subscriptionStatusRequested,
    'sync-employee': (accountId: string) => employeeChanged(accountId),
    'provision-location': (accountId: string) => locationCreated(accountId),
    'save-budget': (accountId: string) => budgetSet(accountId),
    'pay-returns': payReturnsRequested,
  };
  // References and provision-business need no existing account: a fresh AccountCreated suits them.
  const build = perAccount[name] ?? (() => accountCreated());
  const accounts = perAccount[name] ? await environment.provisionAccounts(records) : [];
  const entries = Array.from({ length: records }, (_, index) => build(accounts[index] ?? 'unused'));
  return sqsBatch(entries);
}

function runChild(
  runner: string,
  bundle: BuiltBundle,
  eventFile: string,
  resultFile: string,
  environment: Record<string, string>,
): Promise<ColdStartSample> {
  const memory = String(bundle.memorySizeMb ?? 256);
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [runner, bundle.file, eventFile, resultFile, bundle.name, '60', memory],
      {
        stdio: 'ignore',
        env: {
          ...environment,
          AWS_LAMBDA_FUNCTION_NAME: bundle.name,
          AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
          AWS_LAMBDA_FUNCTION_MEMORY_SIZE: memory,
          AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
          // As deployed (lib/connector-function.ts): stack traces mapped through the shipped map.
          NODE_OPTIONS: '--enable-source-maps',
        },
      },
    );
    child.on('exit', async () => {
      try {
        resolve(JSON.parse(await readFile(resultFile, 'utf8')) as ColdStartSample);
      } catch {
        resolve({
          initDoneMs: Number.NaN,
          invokeMs: Number.NaN,
          readyMs: Number.NaN,
          rssPeakBytes: 0,
          maxRssKb: 0,
          failedRecords: -1,
          error: 'the child wrote no result',
        });
      }
    });
  });
}

export async function measureColdStarts(
  environment: BenchEnvironment,
  {
    repetitions,
    functions,
    outDir = BUNDLE_DIR,
  }: {
    repetitions: number;
    /** Function names to measure. @default every function of the route table */
    functions?: readonly string[];
    /** Where bundles and run files go; separate runs need separate directories. */
    outDir?: string;
  },
): Promise<ColdStartResult[]> {
  const runDir = join(outDir, 'runs');
  await rm(runDir, { recursive: true, force: true });
  await mkdir(runDir, { recursive: true });
  const runner = await buildColdStartRunner(outDir);
  const selected = functionTargets().filter((target) => !functions || functions.includes(target.name));
  const bundles = await Promise.all(
    [...REFERENCE_TARGETS, ...selected].map((target) => buildBundle(target, outDir)),
  );

  // Children run without the local runtime's developer conveniences, as Lambda would.
  const childEnvironment: Record<string, string> = { PATH: process.env['PATH'] ?? '' };
  for (const [name, value] of Object.entries(environment.environment)) {
    if (name !== 'POWERTOOLS_DEV') childEnvironment[name] = value;
  }
  childEnvironment['POWERTOOLS_LOG_LEVEL'] = 'WARN';

  const samples = new Map<string, ColdStartSample[]>(bundles.map((bundle) => [bundle.name, []]));
  let runId = 0;
  for (let round = 0; round < repetitions; round++) {
    for (const bundle of bundles) {
      runId += 1;
      const eventFile = join(runDir, `${runId}-event.json`);
      const resultFile = join(runDir, `${runId}-result.json`);
      await writeFile(eventFile, JSON.stringify(await eventFor(bundle.name, environment, 1)));
      samples.get(bundle.name)?.push(await runChild(runner, bundle, eventFile, resultFile, childEnvironment));
    }
  }

  const results: ColdStartResult[] = [];
  for (const bundle of bundles) {
    const taken = samples.get(bundle.name) ?? [];
    const ok = taken.filter((sample) => sample.error === undefined && sample.failedRecords <= 0);
    const errors = taken
      .filter((sample) => !ok.includes(sample))
      .map((sample) => sample.error ?? `${sample.failedRecords} record(s) failed`);
    let batchOf10: ColdStartResult['batchOf10'];
    if (bundle.kind === 'function') {
      runId += 1;
      const eventFile = join(runDir, `${runId}-event.json`);
      const resultFile = join(runDir, `${runId}-result.json`);
      await writeFile(eventFile, JSON.stringify(await eventFor(bundle.name, environment, 10)));
      const sample = await runChild(runner, bundle, eventFile, resultFile, childEnvironment);
      batchOf10 = {
        maxRssMb: sample.maxRssKb / 1024,
        rssPeakMb: sample.rssPeakBytes / 1024 / 1024,
        failedRecords: sample.failedRecords,
        ...(sample.error ? { error: sample.error } : {}),
      };
    }
    results.push({
      name: bundle.name,
      kind: bundle.kind,
      bytes: bundle.bytes,
      mapBytes: bundle.mapBytes,
      topPackages: bundle.topPackages,
      samples: ok.length,
      readyMsMedian: median(ok.map((sample) => sample.readyMs)),
      initMsMedian: median(ok.map((sample) => sample.initDoneMs)),
      errors,
      ...(bundle.memorySizeMb === undefined ? {} : { memorySizeMb: bundle.memorySizeMb }),
      ...(batchOf10 ? { batchOf10 } : {}),
    });
  }
  return results;
}
