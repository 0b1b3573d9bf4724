import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { createLambdaContext, type LambdaHandler } from '#local/aws/lambda.ts';
import { ownPeakRssKb } from './peak-rss.ts';

/**
 * Runs in a fresh `node` process (bundled by bench/bundle.ts, no tsx): imports one deploy bundle
 * and invokes its handler once, as Lambda's first invocation of a new execution environment does.
 *
 * argv: bundle file, event JSON file, result JSON file, function name, timeout seconds, memory MB.
 * The result goes to a file because handlers own stdout (Powertools logs and EMF metrics).
 */

export interface ColdStartSample {
  /** ms from process start (performance.timeOrigin) to the end of the bundle import (init). */
  initDoneMs: number;
  /** ms the first invocation took. */
  invokeMs: number;
  /** ms from process start to the end of the first invocation: the cold start as a caller sees it. */
  readyMs: number;
  /** The end of the import on the monotonic clock in µs (CPU profiles use it): load vs first invocation. */
  initDoneAtUs?: number;
  /** Highest resident set size sampled during the run, bytes. */
  rssPeakBytes: number;
  /** The process's own peak resident set size, kilobytes (bench/peak-rss.ts; the sampled peak where Linux's figure is missing). */
  peakRssKb: number;
  /** Records the handler reported as failed (batchItemFailures), -1 when not a batch response. */
  failedRecords: number;
  /** Raw references: requests answered otherwise than when they were recorded (bench/first-invocation.ts). */
  answeredDifferently?: number;
  /** Raw references: requests the handler sent again. */
  sent?: number;
  error?: string;
}

const [bundleFile, eventFile, resultFile, functionName, timeoutSeconds, memoryMb] = process.argv.slice(2);

let rssPeakBytes = process.memoryUsage.rss();
const sampler = setInterval(() => {
  rssPeakBytes = Math.max(rssPeakBytes, process.memoryUsage.rss());
}, 2);
sampler.unref();

/** What a raw reference's handler answers: how many requests it sent, and how many came back otherwise. */
function rawOutcomeOf(response: unknown): Pick<ColdStartSample, 'answeredDifferently' | 'sent'> {
  const outcome = (response ?? {}) as { different?: unknown; sent?: unknown };
  return typeof outcome.different === 'number' && typeof outcome.sent === 'number'
    ? { answeredDifferently: outcome.different, sent: outcome.sent }
    : {};
}

function failedRecordsOf(response: unknown): number {
  if (typeof response !== 'object' || response === null || !('batchItemFailures' in response)) return -1;
  const failures = (response as { batchItemFailures: unknown }).batchItemFailures;
  return Array.isArray(failures) ? failures.length : -1;
}

async function main(): Promise<ColdStartSample> {
  if (!bundleFile || !eventFile || !resultFile) throw new Error('usage: runner <bundle> <event> <result>');
  const event: unknown = JSON.parse(await readFile(eventFile, 'utf8'));
  const module = (await import(pathToFileURL(bundleFile).href)) as { handler?: LambdaHandler };
  const initDoneMs = performance.now();
  const initDoneAtUs = Number(process.hrtime.bigint() / 1000n);
  if (typeof module.handler !== 'function') throw new Error(`${bundleFile} exports no handler`);
  const context = createLambdaContext({
    functionName: functionName ?? 'bench',
    region: process.env['AWS_REGION'] ?? 'us-east-1',
    timeoutMs: Number(timeoutSeconds ?? 30) * 1000,
    memoryMb: Number(memoryMb ?? 256),
  });
  const response = await module.handler(event, context);
  const readyMs = performance.now();
  rssPeakBytes = Math.max(rssPeakBytes, process.memoryUsage.rss());
  return {
    initDoneMs,
    initDoneAtUs,
    invokeMs: readyMs - initDoneMs,
    readyMs,
    rssPeakBytes,
    peakRssKb: ownPeakRssKb() ?? rssPeakBytes / 1024,
    failedRecords: failedRecordsOf(response),
    ...rawOutcomeOf(response),
  };
}

main().then(
  (sample) => {
    writeFileSync(resultFile ?? '/dev/null', JSON.stringify(sample));
    // Keep-alive sockets would hold the process open; the sample is taken, so leave now.
    process.exit(0);
  },
  (error: unknown) => {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    writeFileSync(resultFile ?? '/dev/null', JSON.stringify({ error: message }));
    process.exit(1);
  },
);
