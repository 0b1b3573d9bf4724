/**
 * `npm run schemas`: writes everything under `events/` from the zod contracts and the demo
 * samples, so the published JSON Schemas and sample events can never drift from the code.
 * `npm run schemas -- --check` only reports files that differ (exit 1), for CI.
 *
 * Output is deterministic (fixed ids, times and key order) so regenerating is a no-op
 * unless a contract or sample changed, and a test compares the files on disk with it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { PIPE_EVENT_KEY, PIPE_INPUT_TEMPLATE } from '#functions/contracts/envelope.ts';
import {
  type InboundDetailType,
  inboundContracts,
  inboundDetailTypes,
  type OutboundDetailType,
  outboundContracts,
  outboundDetailTypes,
} from '#functions/contracts/registry.ts';
import { MESSAGE_GROUP_ID_RULE } from '#functions/contracts/routing.ts';
import { demoAccount, inboundSamples } from '#functions/contracts/samples.ts';
import { DEFAULT_INBOUND_SOURCE } from '#functions/contracts/source.ts';
import { queueRoutes, routeFor } from '#functions/routes.ts';
import { parseConnectorConfig } from '#lib/config.ts';
import { stateNamesOf } from '#lib/deployment-names.ts';
import { compileInputTemplate, withImplicitBodyParsing } from '#local/aws/input-template.ts';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** Folders whose every file the generator owns; anything else found there is stale. */
export const generatedFolders = ['events/inbound', 'events/schemas'] as const;

const SAMPLE_ACCOUNT = '123456789012';
const SAMPLE_REGION = 'us-east-1';
/** The demo scenario starts here; each inbound sample is one minute after the previous one. */
const SCENARIO_START_MS = Date.parse('2025-03-03T09:00:00Z');
const SCHEMA_ID_BASE = 'urn:workforce-connector:events';

/** A UUID (v4 layout) derived from a name, so sample ids stay the same on every run. */
export function stableUuid(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  const variant = ((Number.parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function sampleTime(detailType: InboundDetailType): Date {
  return new Date(SCENARIO_START_MS + inboundDetailTypes.indexOf(detailType) * 60_000);
}

/** The EventBridge event a rule delivers for the sample detail (what an SQS body holds). */
export function sampleEventBridgeEvent(detailType: InboundDetailType) {
  return {
    version: '0',
    id: stableUuid(`event:${detailType}`),
    'detail-type': detailType,
    source: DEFAULT_INBOUND_SOURCE,
    account: SAMPLE_ACCOUNT,
    // EventBridge writes event times to the second.
    time: sampleTime(detailType)
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z'),
    region: SAMPLE_REGION,
    resources: [] as string[],
    detail: inboundSamples[detailType],
  };
}

/**
 * The bus the samples name: the one the example config creates (connector.config.example.json),
 * which is also the bus of the local runtime. A deployment names its own (stack output EventBusName).
 */
export const SAMPLE_BUS_NAME = stateNamesOf(
  parseConnectorConfig(JSON.parse(readFileSync(join(repoRoot, 'connector.config.example.json'), 'utf8')), {
    knownRoutes: queueRoutes,
  }),
).eventBusName;

/** A PutEvents request entry, as a partner publishes the sample. */
export function samplePutEventsEntry(detailType: InboundDetailType) {
  return {
    Source: DEFAULT_INBOUND_SOURCE,
    DetailType: detailType,
    Detail: JSON.stringify(inboundSamples[detailType]),
    EventBusName: SAMPLE_BUS_NAME,
  };
}

/**
 * The SQS FIFO batch of one record the route's function receives for the sample: the body is
 * what the intake pipe's input template makes of the intake message (the same template the stack
 * gives the pipe, evaluated as the local runtime evaluates it).
 */
export function sampleSqsFifoBatch(detailType: InboundDetailType) {
  const event = sampleEventBridgeEvent(detailType);
  const body = compileInputTemplate(PIPE_INPUT_TEMPLATE).evaluate(
    withImplicitBodyParsing({ body: JSON.stringify(event) }),
    {
      pipeArn: `arn:aws:pipes:${SAMPLE_REGION}:${SAMPLE_ACCOUNT}:pipe/${detailType}Pipe`,
      pipeName: `${detailType}Pipe`,
      sourceArn: `arn:aws:sqs:${SAMPLE_REGION}:${SAMPLE_ACCOUNT}:${detailType}IntakeQueue`,
      targetArn: `arn:aws:sqs:${SAMPLE_REGION}:${SAMPLE_ACCOUNT}:${detailType}Queue.fifo`,
      ingestionTime: sampleTime(detailType).toISOString(),
    },
  );
  const sentAt = sampleTime(detailType).getTime() + 120;
  const position = inboundDetailTypes.indexOf(detailType) + 1;
  return {
    Records: [
      {
        messageId: stableUuid(`message:${detailType}`),
        receiptHandle: `AQEB${createHash('sha256').update(`receipt:${detailType}`).digest('base64')}`,
        body,
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(sentAt),
          SequenceNumber: String(18_849_496_460_467_696_000n + BigInt(position)),
          MessageGroupId: demoAccount.accountId,
          SenderId: 'AROAEXAMPLEPIPEROLE:pipe',
          MessageDeduplicationId: event.id,
          ApproximateFirstReceiveTimestamp: String(sentAt + 15),
        },
        messageAttributes: {},
        md5OfBody: createHash('md5').update(body).digest('hex'),
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:${SAMPLE_REGION}:${SAMPLE_ACCOUNT}:${detailType}Queue.fifo`,
        awsRegion: SAMPLE_REGION,
      },
    ],
  };
}

type Direction = 'inbound' | 'outbound';

function detailJsonSchema(
  direction: Direction,
  detailType: string,
  contract: { schema: z.ZodType; description: string },
) {
  // Inbound as partners may send it (defaults optional, unknown fields refused); outbound as
  // input too, so consumers do not reject fields that a later minor change adds.
  const generated = z.toJSONSchema(contract.schema, { io: 'input', unrepresentable: 'throw' }) as Record<
    string,
    unknown
  >;
  const { $schema, ...body } = generated;
  return {
    $schema,
    $id: `${SCHEMA_ID_BASE}:${direction}:${detailType}:v1`,
    title: `${detailType} detail (${direction}, version 1)`,
    description: contract.description,
    ...body,
  };
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export const inboundSamplePath = (
  detailType: InboundDetailType,
  file: 'eventbridge-entry' | 'sqs-fifo-batch',
) => `events/inbound/${detailType}/${file}.json`;
export const schemaPath = (direction: Direction, detailType: string) =>
  `events/schemas/${direction}/${detailType}.schema.json`;

function catalog(): string {
  const link = (path: string, label: string) => `[${label}](${relative('events', path)})`;
  const inboundRows = inboundDetailTypes.map((detailType) => {
    const contract = inboundContracts[detailType];
    return `| \`${detailType}\` | ${contract.description} | \`${routeFor(detailType).functionName}\` | ${link(
      inboundSamplePath(detailType, 'eventbridge-entry'),
      'PutEvents entry',
    )} · ${link(inboundSamplePath(detailType, 'sqs-fifo-batch'), 'SQS batch')} | ${link(
      schemaPath('inbound', detailType),
      'schema',
    )} |`;
  });
  const orderingRows = inboundDetailTypes.map((detailType: InboundDetailType) => {
    const { ordering } = inboundContracts[detailType];
    if (ordering === undefined) throw new Error(`the ${detailType} contract says nothing about its ordering`);
    return `| \`${detailType}\` | ${ordering} |`;
  });
  const outboundRows = outboundDetailTypes.map((detailType: OutboundDetailType) => {
    const contract = outboundContracts[detailType];
    return `| \`${detailType}\` | ${contract.description} | ${link(schemaPath('outbound', detailType), 'schema')} |`;
  });
  return [
    '# Event catalog',
    '',
    'Generated by `npm run schemas` from `functions/contracts/` — do not edit by hand;',
    'a test fails when these files and the contracts disagree.',
    '',
    'Every contract is version 1. Inbound events come from the configured partner source',
    `(default \`${DEFAULT_INBOUND_SOURCE}\`), every detail carries \`accountId\`, and unknown fields are refused.`,
    `\`accountId\` is also the SQS message group id of the account's FIFO queue, so it takes ${MESSAGE_GROUP_ID_RULE}.`,
    'An inbound event without a usable `accountId`, or of a detail-type no route handles, is answered with one',
    '`SyncFailed` (`MISSING_ACCOUNT_ID`, `INVALID_ACCOUNT_ID`, `UNKNOWN_DETAIL_TYPE`; `sourceEventId` = its event id, no `accountId`',
    'when it had none usable), and is kept nowhere: an `accountId` that exists but is no message group id also',
    "reaches its route's intake, which cannot forward it; its intake dead letter is answered with that same",
    '`SyncFailed` (the partner hears once) and removed.',
    'A valid event the intake could not deliver to its route (a deployment problem) is answered with',
    '`SyncFailed` `INTAKE_UNDELIVERABLE` and kept for the operator to redrive once the cause is fixed.',
    'Outbound details carry `accountId`, `hostname` (where known) and `causationId`.',
    'Date-times are ISO 8601 with `Z` (or a `±hh:mm` offset where a field allows one). The schemas say `format: date-time`, which is RFC 3339 and has seconds; the connector also accepts a time to the minute (`2026-03-01T09:00Z`), so send seconds and either reading holds.',
    'A `maxLength` counts characters (Unicode code points), as JSON Schema defines it, not UTF-16 units or bytes.',
    '',
    `The samples describe one demo account (\`${demoAccount.accountId}\`, owner \`${demoAccount.ownerEmail}\`,`,
    `employee ${demoAccount.employeeId}, timesheets ${demoAccount.timesheetIds.join(' and ')}), one minute apart in scenario order.`,
    '',
    `- \`eventbridge-entry.json\`: one PutEvents entry for the bus \`${SAMPLE_BUS_NAME}\` (the example config's, and the`,
    "  local runtime's). Publish it with",
    '  `aws events put-events --entries "[$(cat events/inbound/AccountCreated/eventbridge-entry.json)]"`;',
    '  against a deployment, put your bus name (stack output `EventBusName`) in `EventBusName` first.',
    '- `sqs-fifo-batch.json`: the SQS FIFO batch the function receives (a Lambda console test event,',
    '  or `npm run invoke -- <function> <file>`). The body is what the intake pipe writes:',
    `  \`{"${PIPE_EVENT_KEY}": <the EventBridge event>}\`.`,
    '',
    '## Inbound (partner → connector)',
    '',
    '| detail-type | meaning | function | samples | JSON Schema |',
    '|---|---|---|---|---|',
    ...inboundRows,
    '',
    '## Order per thing (`occurredAt`)',
    '',
    "Every inbound detail may carry `occurredAt`: when the partner's system made the change, from the partner's own clock and increasing per thing (RFC 3339: seconds, `Z` or a `±hh:mm` offset, up to nine fractional digits). Without it the EventBridge event `time` stands in (a publisher may set it with PutEvents `Time`); that time has whole seconds, so two events on one thing in the same second are then ordered by event id, not by publish order: send `occurredAt`.",
    "For each thing an event sets, the final state in the service is what the newest event on that thing asks for (newest by `occurredAt`, then by event id), whatever order and however often the events arrive: AWS delivers an account's events at least once and not in publish order ([docs/reliability.md](../docs/reliability.md)). An event older than the one already applied to a thing changes nothing for that thing and is answered by one `SyncSkipped` `SUPERSEDED` that lists each such thing and the event that superseded it; its other things still apply and their usual result event is published. A repeat of the applied event (same `occurredAt` and event id) is that event again, never superseded. A refused event (`SyncFailed`) applied nothing and moves nothing.",
    '',
    '| detail-type | what it sets, and what an older event arriving after a newer one does |',
    '|---|---|',
    ...orderingRows,
    '',
    '## Outbound (connector → partner)',
    '',
    '| detail-type | meaning | JSON Schema |',
    '|---|---|---|',
    ...outboundRows,
    '',
  ].join('\n');
}

/** Every generated file, repo-relative path → exact content, in a stable order. */
export function generateEventFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const detailType of inboundDetailTypes) {
    files.set(inboundSamplePath(detailType, 'eventbridge-entry'), json(samplePutEventsEntry(detailType)));
    files.set(inboundSamplePath(detailType, 'sqs-fifo-batch'), json(sampleSqsFifoBatch(detailType)));
  }
  for (const detailType of inboundDetailTypes) {
    files.set(
      schemaPath('inbound', detailType),
      json(detailJsonSchema('inbound', detailType, inboundContracts[detailType])),
    );
  }
  for (const detailType of outboundDetailTypes) {
    files.set(
      schemaPath('outbound', detailType),
      json(detailJsonSchema('outbound', detailType, outboundContracts[detailType])),
    );
  }
  files.set('events/README.md', catalog());
  return files;
}

async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

export interface EventFilesDrift {
  /** Generated files missing on disk or with other content. */
  changed: string[];
  /** Files in the generated folders that the generator no longer produces. */
  stale: string[];
}

export async function compareEventFiles(root = repoRoot): Promise<EventFilesDrift> {
  const expected = generateEventFiles();
  const changed: string[] = [];
  for (const [path, content] of expected) {
    const actual = await readFile(join(root, path), 'utf8').catch(() => undefined);
    if (actual !== content) changed.push(path);
  }
  const stale: string[] = [];
  for (const folder of generatedFolders) {
    for (const file of await listFiles(join(root, folder))) {
      const path = relative(root, file).split('\\').join('/');
      if (!expected.has(path)) stale.push(path);
    }
  }
  return { changed, stale };
}

export async function writeEventFiles(root = repoRoot): Promise<EventFilesDrift> {
  const drift = await compareEventFiles(root);
  const files = generateEventFiles();
  for (const path of drift.changed) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, files.get(path) ?? '');
  }
  for (const path of drift.stale) await rm(join(root, path));
  return drift;
}

async function main(): Promise<void> {
  const checkOnly = process.argv.includes('--check');
  const drift = checkOnly ? await compareEventFiles() : await writeEventFiles();
  const touched = drift.changed.length + drift.stale.length;
  for (const path of drift.changed) console.log(`${checkOnly ? 'differs' : 'wrote'}   ${path}`);
  for (const path of drift.stale) console.log(`${checkOnly ? 'stale' : 'removed'} ${path}`);
  if (checkOnly && touched > 0) {
    console.error('events/ is out of date: run npm run schemas');
    process.exitCode = 1;
  } else {
    console.log(touched === 0 ? 'events/ is up to date' : `events/: ${touched} file(s) updated`);
  }
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedDirectly) await main();
