import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { queueRoutes, scheduledFunctions } from '#functions/routes.ts';
import {
  BUNDLE_DIR,
  type BuiltBundle,
  buildBundle,
  buildColdStartRunner,
  functionTargets,
  REFERENCE_TARGETS,
  STACK_FLOOR,
} from './bundle.ts';
import type { ColdStartSample } from './cold-start-runner.ts';
import { type ProfileSummary, summarizeProfile } from './cpu-profile.ts';
import type { BenchEnvironment, StateMet } from './environment.ts';
import {
  buildRawReference,
  buildStackFloor,
  recordFirstInvocation,
  type StackFloorShape,
  startAwsWireRecorder,
  type WireRequest,
} from './first-invocation.ts';
import { median } from './stats.ts';
import type { ItemImage } from './table-state.ts';
import { accountCreated, flowEvent, scheduleEvent, sqsBatch, uniqueAccountId } from './workload.ts';

/**
 * Issue #9 §1 and §5 (memory), issues #17 §1 and #24: every function's deploy bundle loaded by a
 * fresh `node` and invoked once against the local services, next to the references built in the
 * same run: per function its stack floor, the required stack constructed and used as a handler
 * uses it around the same requests (the goals: module load and first invocation), and its raw
 * handler, the same requests with the same clients and nothing else (bench/first-invocation.ts);
 * and `hello`, the SDK-client `floor` and the generic `stack-floor`. Runs are interleaved (one of
 * each target per round) so drift in the shared machine's load hits all alike, and every ratio is
 * taken within a round, so its spread over the rounds is the run-to-run spread.
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
  /** Per round (NaN where that round's run failed): process start → first invocation done, and → import done. */
  readonly readyMs: readonly number[];
  readonly initMs: readonly number[];
  readonly errors: readonly string[];
  readonly memorySizeMb?: number;
  /** Peak memory of one invocation with a batch of 10 (functions only). */
  readonly batchOf10?: { peakRssMb: number; rssPeakMb: number; failedRecords: number; error?: string };
  /**
   * Functions and the stack-floor: the requests of the recorded first invocation (`system
   * operation`) their references replay. A function's stack floor: the requests it made itself
   * when recorded once the same way (its replay and its idempotency layer's own).
   */
  readonly firstInvocationRequests?: readonly string[];
  /** A function's stack floor (`stack-<function>`): that function. */
  readonly referenceOf?: string;
  /** Raw references and stack floors: over the rounds, the most requests answered otherwise than when recorded. */
  readonly answeredDifferently?: number;
  /** Raw references and stack floors: over the rounds, the fewest recorded requests the handler sent again. */
  readonly replayedRequests?: number;
  /**
   * One profiled cold start, CPU by phase and consumer: the functions and their stack floors, the
   * stack-floor and its raw reference.
   */
  readonly profile?: ProfileSummary;
}

/**
 * The event of one first invocation, from the function's place in routes.ts: a scheduled
 * function's schedule event; a route's batch of its own detail-type, for accounts created here
 * beforehand; for the references and AccountCreated, fresh AccountCreated events (no account
 * needed). A function's stack floor gets its function's kind of event, for an account it does not
 * need to exist (it replays the requests the function made).
 */
async function eventFor(
  name: string,
  environment: BenchEnvironment,
  records: number,
  { provision = true }: { provision?: boolean } = {},
): Promise<unknown> {
  if (scheduledFunctions.some((scheduled) => scheduled.functionName === name))
    return scheduleEvent(name, new Date());
  const detailType = queueRoutes.find((route) => route.functionName === name)?.detailType ?? 'AccountCreated';
  if (detailType === 'AccountCreated')
    return sqsBatch(Array.from({ length: records }, () => accountCreated()));
  const accounts = provision
    ? await environment.provisionAccounts(records)
    : Array.from({ length: records }, () => uniqueAccountId());
  return sqsBatch(accounts.map((accountId) => flowEvent(detailType, accountId, 0)));
}

/** Whether a function's stack floor takes a queue route's batch (with idempotency) or a schedule. */
function stackFloorShape(functionName: string): StackFloorShape {
  const route = queueRoutes.find((candidate) => candidate.functionName === functionName);
  return route ? { kind: 'queue', detailType: route.detailType } : { kind: 'scheduled' };
}

function runChild(
  runner: string,
  bundle: BuiltBundle,
  eventFile: string,
  resultFile: string,
  environment: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<ColdStartSample> {
  const memory = String(bundle.memorySizeMb ?? 256);
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [...nodeArgs, runner, bundle.file, eventFile, resultFile, bundle.name, '60', memory],
      {
        stdio: 'ignore',
        env: {
          ...environment,
          AWS_LAMBDA_FUNCTION_NAME: bundle.name,
          AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
          AWS_LAMBDA_FUNCTION_MEMORY_SIZE: memory,
          AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
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
          peakRssKb: 0,
          failedRecords: -1,
          error: 'the child wrote no result',
        });
      }
    });
  });
}

const AWS_ENDPOINT_VARIABLES = [
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_EVENTBRIDGE',
  'AWS_ENDPOINT_URL_SECRETS_MANAGER',
  'AWS_ENDPOINT_URL_SQS',
] as const;

export async function measureColdStarts(
  environment: BenchEnvironment,
  {
    repetitions,
    functions,
    outDir = BUNDLE_DIR,
    profile = true,
  }: {
    repetitions: number;
    /** Function names to measure. @default every function of the route table */
    functions?: readonly string[];
    /** Where bundles and run files go; separate runs need separate directories. */
    outDir?: string;
    /** One extra profiled cold start per function and per raw reference (bench/cpu-profile.ts). @default true */
    profile?: boolean;
  },
): Promise<ColdStartResult[]> {
  const runDir = join(outDir, 'runs');
  await rm(runDir, { recursive: true, force: true });
  await mkdir(runDir, { recursive: true });
  const runner = await buildColdStartRunner(outDir);
  const selected = functionTargets().filter((target) => !functions || functions.includes(target.name));
  const built = await Promise.all(
    [...REFERENCE_TARGETS, ...selected].map((target) => buildBundle(target, outDir)),
  );

  // Children run without the local runtime's developer conveniences, as Lambda would.
  const childEnvironment: Record<string, string> = { PATH: process.env['PATH'] ?? '' };
  for (const [name, value] of Object.entries(environment.environment)) {
    if (name !== 'POWERTOOLS_DEV') childEnvironment[name] = value;
  }
  childEnvironment['POWERTOOLS_LOG_LEVEL'] = 'WARN';
  childEnvironment['BENCH_SERVICE_URL'] = environment.serviceProxy.url;

  let runId = 0;
  const nextFiles = () => {
    runId += 1;
    return {
      eventFile: join(runDir, `${runId}-event.json`),
      resultFile: join(runDir, `${runId}-result.json`),
    };
  };
  const runOnce = async (
    bundle: BuiltBundle,
    records: number,
    env = childEnvironment,
    nodeArgs: string[] = [],
  ) => {
    const { eventFile, resultFile } = nextFiles();
    const event = bundle.referenceOf
      ? await eventFor(bundle.referenceOf, environment, records, { provision: false })
      : await eventFor(bundle.name, environment, records);
    await writeFile(eventFile, JSON.stringify(event));
    const run = () => runChild(runner, bundle, eventFile, resultFile, env, nodeArgs);
    // A raw reference or a stack floor runs from the table and service state its function's
    // recorded invocation met.
    const met = metStates.get(bundle.name);
    return met ? met.state.replayFrom(met.images, met.requests, run) : run();
  };
  const metStates = new Map<string, { state: StateMet; images: ItemImage[]; requests: WireRequest[] }>();

  // Each function's first invocation on the wire, and its raw reference built from it.
  const wire = await startAwsWireRecorder(
    AWS_ENDPOINT_VARIABLES.map((name) => childEnvironment[name] ?? '').filter((url) => url !== ''),
  );
  const recordingEnvironment = { ...childEnvironment };
  for (const name of AWS_ENDPOINT_VARIABLES) {
    const upstream = childEnvironment[name];
    if (upstream) recordingEnvironment[name] = wire.endpointFor(upstream);
  }
  const recordedRequests = new Map<string, string[]>();
  const raws = new Map<string, BuiltBundle>();
  const stackFloors = new Map<string, BuiltBundle>();
  const wireNames = (requests: readonly WireRequest[]) =>
    requests.map((request) => `${request.system} ${request.operation}`);
  try {
    // The functions, and the required stack alone (stack-floor): its own ratio to a raw handler
    // making its requests is how much of the functions' goal the stack takes before any connector code.
    for (const bundle of built.filter(
      (candidate) => candidate.kind === 'function' || candidate.name === STACK_FLOOR,
    )) {
      const { eventFile, resultFile } = nextFiles();
      await writeFile(eventFile, JSON.stringify(await eventFor(bundle.name, environment, 1)));
      const state = await environment.readStateMet();
      const requests = await recordFirstInvocation(wire, environment.recorder, async () => {
        const recorded = await runChild(runner, bundle, eventFile, resultFile, recordingEnvironment);
        // A reference built from a first invocation that failed would replay the wrong work.
        if (recorded.error !== undefined || recorded.failedRecords > 0) {
          throw new Error(
            `${bundle.name}: the recorded first invocation failed (${recorded.error ?? `${recorded.failedRecords} record(s) failed`})`,
          );
        }
      });
      recordedRequests.set(bundle.name, wireNames(requests));
      const raw = await buildRawReference(bundle.name, requests, outDir);
      raws.set(bundle.name, raw);
      const images = state.table.imagesOf(state.table.keysWrittenBy(requests));
      const met = { state, images, requests };
      metStates.set(raw.name, met);
      if (bundle.kind !== 'function') continue;
      // The function's stack floor, recorded once the same way: what it sends itself is what the
      // row compares (the same requests as the function, its idempotency layer's included).
      const floor = await buildStackFloor(
        bundle.name,
        stackFloorShape(bundle.name),
        requests,
        outDir,
        bundle.memorySizeMb,
      );
      stackFloors.set(bundle.name, floor);
      metStates.set(floor.name, met);
      const floorRequests = await recordFirstInvocation(wire, environment.recorder, async () => {
        const sample = await runOnce(floor, 1, recordingEnvironment);
        if (sample.error !== undefined || sample.failedRecords > 0) {
          throw new Error(
            `${floor.name}: its recorded first invocation failed (${sample.error ?? `${sample.failedRecords} record(s) failed`})`,
          );
        }
      });
      recordedRequests.set(floor.name, wireNames(floorRequests));
    }
  } finally {
    await wire.close();
  }

  // Rounds: every reference, and each function next to its stack floor and its raw reference.
  const order = built.flatMap((bundle) => {
    const raw = raws.get(bundle.name);
    const floor = stackFloors.get(bundle.name);
    return [bundle, ...(floor ? [floor] : []), ...(raw ? [raw] : [])];
  });
  const samples = new Map<string, ColdStartSample[]>(order.map((bundle) => [bundle.name, []]));
  for (let round = 0; round < repetitions; round++) {
    for (const bundle of order) samples.get(bundle.name)?.push(await runOnce(bundle, 1));
  }

  // Profiled: each function and the reference its goals are judged against (its stack floor), and
  // the stack-floor with its raw reference (its info rows).
  const profiled = new Set([
    ...stackFloors.keys(),
    ...[...stackFloors.values()].map((floor) => floor.name),
    ...(raws.has(STACK_FLOOR) ? [STACK_FLOOR, raws.get(STACK_FLOOR)?.name ?? ''] : []),
  ]);
  const profileDir = join(outDir, 'profiles');
  await rm(profileDir, { recursive: true, force: true });
  const results: ColdStartResult[] = [];
  for (const bundle of order) {
    const taken = samples.get(bundle.name) ?? [];
    const succeeded = (sample: ColdStartSample) => sample.error === undefined && sample.failedRecords <= 0;
    const ok = taken.filter(succeeded);
    const errors = taken
      .filter((sample) => !succeeded(sample))
      .map((sample) => sample.error ?? `${sample.failedRecords} record(s) failed`);
    let batchOf10: ColdStartResult['batchOf10'];
    let profileSummary: ProfileSummary | undefined;
    if (bundle.kind === 'function') {
      const sample = await runOnce(bundle, 10);
      batchOf10 = {
        peakRssMb: sample.peakRssKb / 1024,
        rssPeakMb: sample.rssPeakBytes / 1024 / 1024,
        failedRecords: sample.failedRecords,
        ...(sample.error ? { error: sample.error } : {}),
      };
    }
    // A function's stack floor is profiled too, so the profile tells what the function spends
    // beyond it (the connector's own share); the stack-floor's beyond its raw reference.
    if (profile && profiled.has(bundle.name)) {
      profileSummary = await profiledColdStart(bundle, profileDir, runOnce);
    }
    const recorded = recordedRequests.get(bundle.name);
    results.push({
      name: bundle.name,
      kind: bundle.kind,
      bytes: bundle.bytes,
      mapBytes: bundle.mapBytes,
      topPackages: bundle.topPackages,
      samples: ok.length,
      readyMsMedian: median(ok.map((sample) => sample.readyMs)),
      initMsMedian: median(ok.map((sample) => sample.initDoneMs)),
      readyMs: taken.map((sample) => (succeeded(sample) ? sample.readyMs : Number.NaN)),
      initMs: taken.map((sample) => (succeeded(sample) ? sample.initDoneMs : Number.NaN)),
      errors,
      ...(bundle.memorySizeMb === undefined ? {} : { memorySizeMb: bundle.memorySizeMb }),
      ...(batchOf10 ? { batchOf10 } : {}),
      ...(recorded ? { firstInvocationRequests: recorded } : {}),
      ...(bundle.referenceOf ? { referenceOf: bundle.referenceOf } : {}),
      ...(bundle.name.startsWith('raw-') || bundle.referenceOf
        ? {
            answeredDifferently: Math.max(0, ...taken.map((sample) => sample.answeredDifferently ?? 0)),
            // What every successful run sent at least (0 when none succeeded).
            replayedRequests: ok.length > 0 ? Math.min(...ok.map((sample) => sample.sent ?? 0)) : 0,
          }
        : {}),
      ...(profileSummary ? { profile: profileSummary } : {}),
    });
  }
  return results;
}

/** One more cold start of `bundle` under `node --cpu-prof`, summarized by phase and consumer. */
async function profiledColdStart(
  bundle: BuiltBundle,
  profileDir: string,
  runOnce: (
    bundle: BuiltBundle,
    records: number,
    env?: Record<string, string>,
    nodeArgs?: string[],
  ) => Promise<ColdStartSample>,
): Promise<ProfileSummary | undefined> {
  const dir = join(profileDir, bundle.name);
  await mkdir(dir, { recursive: true });
  const sample = await runOnce(bundle, 1, undefined, [
    '--cpu-prof',
    '--cpu-prof-interval',
    '100',
    '--cpu-prof-dir',
    dir,
    '--cpu-prof-name',
    `${bundle.name}.cpuprofile`,
  ]);
  if (sample.error) return undefined;
  return summarizeProfile(join(dir, `${bundle.name}.cpuprofile`), bundle.file, sample.initDoneAtUs);
}
