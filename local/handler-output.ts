import { AsyncLocalStorage } from 'node:async_hooks';
import { StringDecoder } from 'node:string_decoder';

/**
 * What the handlers print, made for a person at a terminal. Deployed, every function writes JSON
 * lines to stdout/stderr (Powertools logs, and EMF metric lines that CloudWatch turns into metrics).
 * Locally nobody reads EMF, and a JSON object per retry buries what happened, so a local run (npm
 * start, serve mode, invoke, chaos) shows each log entry as one line:
 *
 *   21:34:10.123 WARN  change-plan  record will be retried  accountId=acct-1 code=PUBLISH_FAILED attempt=1/3
 *
 * and drops EMF lines. `--json-logs` keeps the handlers' output exactly as deployed. Everything
 * that is not a handler's JSON line (the runtime's own progress lines) passes through unchanged.
 */

export type HandlerOutputFormat = 'lines' | 'json';

/** Powertools' standard keys: shown through the line's fixed parts, or noise for a reader. */
const STANDARD_KEYS = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'sampling_rate',
  'xray_trace_id',
  'correlation_id',
  'messageId',
  'attempt',
  'maxAttempts',
]);

/** One readable line for a handler's JSON output line; `undefined` to drop it; the line itself when it is not one. */
export function readableLine(line: string): string | undefined {
  if (!line.startsWith('{')) return line;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if ('_aws' in entry) return undefined; // an EMF metric line
  if (typeof entry['level'] !== 'string' || typeof entry['message'] !== 'string') return line;
  const time = typeof entry['timestamp'] === 'string' ? entry['timestamp'].slice(11, 23) : '';
  const source = functionOf(entry);
  const attempt =
    entry['attempt'] !== undefined
      ? ` attempt=${String(entry['attempt'])}${entry['maxAttempts'] !== undefined ? `/${String(entry['maxAttempts'])}` : ''}`
      : '';
  const fields = Object.entries(entry)
    .filter(([key]) => !STANDARD_KEYS.has(key))
    .map(([key, value]) => `${key}=${fieldText(value)}`)
    .join(' ');
  // One line per entry: a message with line breaks keeps them escaped.
  const message = entry['message'].replaceAll('\n', '\\n');
  return `${time} ${entry['level'].padEnd(5)} ${source}  ${message}${fields ? `  ${fields}` : ''}${attempt}`;
}

/** Deployed function name → the name a reader knows it by (its POWERTOOLS_SERVICE_NAME), set by the runtime. */
const labels = new Map<string, string>();

/**
 * The function an invocation runs, for everything it writes (local/aws/lambda.ts runs each
 * invocation in it). An entry's `function_name` says the same when each environment has its own
 * logger (local/function-host.ts); with `shared` modules one logger serves every function and
 * keeps the last invocation's name, so this is what says who wrote.
 */
export const invocationScope = new AsyncLocalStorage<string>();

export function labelFunctions(entries: Iterable<readonly [functionName: string, label: string]>): void {
  for (const [name, label] of entries) labels.set(name, label);
}

/**
 * The function that wrote the entry: the invocation it was written in, else the entry's
 * `function_name`, else its `service`.
 */
function functionOf(entry: Record<string, unknown>): string {
  const name = invocationScope.getStore() ?? entry['function_name'];
  if (typeof name === 'string' && name !== '') return labels.get(name) ?? name;
  return typeof entry['service'] === 'string' ? entry['service'] : '-';
}

function fieldText(value: unknown): string {
  if (value !== null && typeof value === 'object') {
    const error = value as { name?: unknown; message?: unknown; code?: unknown };
    if (typeof error.message === 'string') {
      return JSON.stringify(`${typeof error.code === 'string' ? `${error.code}: ` : ''}${error.message}`);
    }
    return JSON.stringify(value);
  }
  return typeof value === 'string' && /\s/.test(value) ? JSON.stringify(value) : String(value);
}

/**
 * Routes this process's stdout and stderr through `readableLine` until the returned function is
 * called. The handlers run in this process (local/function-host.ts), so their output passes here.
 */
export function showHandlerOutput(format: HandlerOutputFormat): () => void {
  if (format === 'json') return () => undefined;
  const restore: Array<() => void> = [];
  for (const stream of [process.stdout, process.stderr]) {
    const own = Object.getOwnPropertyDescriptor(stream, 'write');
    const write = stream.write.bind(stream) as (
      chunk: string,
      callback?: (error?: Error | null) => void,
    ) => boolean;
    // Chunks may split a multi-byte character: decode them as one stream.
    const decoder = new StringDecoder('utf8');
    let partial = '';
    stream.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
      partial += typeof chunk === 'string' ? chunk : decoder.write(Buffer.from(chunk as Uint8Array));
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      const shown = lines.map(readableLine).filter((line): line is string => line !== undefined);
      const done = (typeof encoding === 'function' ? encoding : callback) as
        | ((error?: Error | null) => void)
        | undefined;
      if (shown.length === 0) {
        // Nothing to write (yet): the caller's write is complete as far as it can tell.
        if (done) queueMicrotask(() => done());
        return true;
      }
      return write(`${shown.join('\n')}\n`, done);
    }) as typeof stream.write;
    restore.push(() => {
      const rest = partial + decoder.end();
      // What is left unfinished when the run ends: shown as a line would be (an EMF line is dropped).
      const shownRest = rest === '' ? undefined : readableLine(rest);
      if (shownRest !== undefined) write(shownRest);
      if (own) Object.defineProperty(stream, 'write', own);
      else delete (stream as { write?: unknown }).write;
    });
  }
  return () => {
    for (const undo of restore) undo();
  };
}
