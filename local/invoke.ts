import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { queueRoutes, refusalFunction, scheduledFunctions } from '#functions/routes.ts';
import { deliverySeedLine, parseSeed } from './aws/delivery-model.ts';
import { showHandlerOutput } from './handler-output.ts';
import { type InvocationReport, SERVE_PORTS, startLocalRuntime } from './runtime.ts';

/**
 * `npm run invoke -- <function> [event.json] [--fresh]`: one function of the template, one event,
 * once — the local counterpart of a Lambda console test invocation. When `npm start -- --serve` is
 * running, the served connector runs it (so it sees the businesses it created); otherwise, or with
 * --fresh, a local runtime started for this run does. The event may be the SQS batch the function
 * receives, an EventBridge event or a PutEvents entry (wrapped as the template's rule, pipe and
 * event source mapping would wrap it).
 */

/** Every function of the route table (`functions/routes.ts`, from which the template is built), by name. */
const FUNCTION_NAMES = [
  ...queueRoutes.map((route) => route.functionName),
  ...scheduledFunctions.map((scheduled) => scheduled.functionName),
  refusalFunction.functionName,
];

const USAGE = `usage: npm run invoke -- <function> [event.json] [--fresh] [--seed <n>] [--ordered-delivery]

  <function>   a function of the template by its name in functions/:
${wrap(FUNCTION_NAMES.join(', '), 80, '               ')}
  event.json   events/inbound/<DetailType>/sqs-fifo-batch.json, or eventbridge-entry.json (wrapped
               as the deployed pipe would); optional for scheduled functions (a Scheduled Event)
  --fresh      do not use a running \`npm start -- --serve\`; start a local runtime for this run
  --seed <n>   the delivery seed of a runtime started for this run (default: a random one, printed)
  --ordered-delivery
               a runtime started for this run delivers in send order and nothing twice: for
               debugging only, AWS gives no such order (docs/local.md)`;

function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(indent + line);
  return lines.join('\n');
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      fresh: { type: 'boolean', default: false },
      seed: { type: 'string' },
      'ordered-delivery': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [functionName, eventPath] = positionals;
  const seed = values.seed === undefined ? undefined : parseSeed(values.seed);
  if (values.help || !functionName) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  let event: unknown;
  if (eventPath) {
    const text = await readFile(eventPath, 'utf8');
    try {
      event = JSON.parse(text);
    } catch {
      throw new Error(`${eventPath} is not JSON`);
    }
  }

  showHandlerOutput('lines');
  const served = values.fresh ? undefined : await invokeServed(functionName, event);
  let report: InvocationReport;
  if (served) {
    console.log(`Invoked ${functionName} in the running serve mode (${served.url}), ${served.deliveryLine}`);
    if (seed !== undefined || values['ordered-delivery']) {
      console.log('(--seed and --ordered-delivery apply to a runtime started for this run: add --fresh)');
    }
    report = served.report;
  } else {
    const runtime = await startLocalRuntime({
      logLevel: 'WARN',
      ...(seed === undefined ? {} : { seed }),
      ...(values['ordered-delivery'] ? { orderedDelivery: true } : {}),
      announce: (line) => console.log(line),
    });
    try {
      console.log(
        `Invoking ${functionName} in a local runtime started for this run (sandbox ${runtime.sandboxUrl})`,
      );
      report = await runtime.invoke(functionName, event);
    } finally {
      await runtime.close();
    }
  }
  if (report.error !== undefined)
    console.error(`\nThe handler failed (${report.durationMs} ms): ${report.error}`);
  else console.log(`\nResult (${report.durationMs} ms):\n${JSON.stringify(report.result ?? null, null, 2)}`);
  console.log(`\nEvents published (${report.published.length}):`);
  for (const item of report.published) console.log(JSON.stringify(item, null, 2));
  for (const line of retriedLines(report)) console.log(line);
  return report.error === undefined ? 0 : 1;
}

/**
 * Records the function did not finish: on AWS the event source mapping leaves them on the queue
 * and they come back; this command runs once and says so instead of retrying.
 */
function retriedLines(report: Pick<InvocationReport, 'retried'>): string[] {
  const retried = report.retried ?? [];
  if (retried.length === 0) return [];
  return [
    `\n${retried.length} record(s) not finished: on AWS they stay on the queue and are received again (npm run invoke runs once and retries nothing):`,
    ...retried.map(
      ({ messageId, visibleAgainInSeconds }) =>
        `  ${messageId}: visible again after ${visibleAgainInSeconds} s (the visibility the function set, or the queue's timeout)`,
    ),
  ];
}

/** Asks a running `npm start -- --serve` to run the function; undefined when none answers. */
async function invokeServed(
  functionName: string,
  event: unknown,
): Promise<{ url: string; report: InvocationReport; deliveryLine: string } | undefined> {
  const url = `http://127.0.0.1:${SERVE_PORTS.events}`;
  let deliveryLine: string;
  try {
    const health = await fetch(`${url}/_local/health`, { signal: AbortSignal.timeout(1000) });
    if (!health.ok) return undefined;
    const { delivery } = (await health.json()) as { delivery?: { seed: number; ordered: boolean } };
    deliveryLine = delivery ? deliverySeedLine(delivery) : 'delivery seed unknown';
  } catch {
    return undefined;
  }
  const response = await fetch(`${url}/_local/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ function: functionName, ...(event === undefined ? {} : { event }) }),
  });
  const answer = (await response.json()) as InvocationReport & { message?: string };
  if (!response.ok) throw new Error(answer.message ?? `serve mode answered ${response.status}`);
  return { url, report: answer, deliveryLine };
}

// Exit explicitly: SDK keep-alive sockets of the handler must not hold the process open.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(
      `npm run invoke failed: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`,
    );
    process.exit(1);
  },
);
