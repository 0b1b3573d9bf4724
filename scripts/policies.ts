import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { queueRoutes, scheduledFunctions } from '#functions/routes.ts';
import { DRIFT_INDEX_NAME } from '#functions/store/table.ts';
import { scheduleIdOf } from '#lib/connector-schedule.ts';
import { writeAlarmsDoc } from './alarms-doc.ts';
import { DEPLOY_DOC, writeOutputsDoc } from './outputs-doc.ts';
import { fillPolicy } from './policy-placeholders.ts';

/**
 * The IAM policies people need around a deployed connector, written once here and kept as JSON
 * under docs/policies/ (`npm run policies` writes them, `--check` compares, a test runs the check):
 *
 * - publisher.json: the partner's publishing role, `events:PutEvents` on the connector's bus for
 *   the inbound source only; publisher-bus-policy.json: the same allow as the bus's resource policy,
 *   for a publisher in another account.
 * - operator-<script>.json: what each operator command calls (scripts/redrive.ts, replay.ts,
 *   signups.ts, resolve-signup.ts, drift-backfill.ts), on the connector's resources only.
 * - token-secret-kms-decrypt.json: the statement resolve-signup adds when the token secret is under
 *   a customer managed key (config `tokenSecret.kmsKeyArn`).
 *
 * Resources are written with `{{Name}}` placeholders: `Region` and `Account` of the deployment, the
 * config's `InboundSource` and `TokenSecretName`, a publisher's `PublisherAccount`, the key's
 * `TokenSecretKmsKeyArn`, and the Service stack's outputs by their key (`EventBusName`, `TableName`,
 * `ArchiveName`); `{{<X>QueueName}}` is the queue name at the end of the output `<X>QueueUrl`.
 * `npm run policies -- fill <file> --outputs outputs.json --region R --account A [--set Name=Value]`
 * prints a policy filled in from `aws cloudformation describe-stacks … --query 'Stacks[0].Outputs'`.
 */

export const POLICY_DIR = 'docs/policies';
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface PolicyStatement {
  readonly Sid: string;
  readonly Effect: 'Allow' | 'Deny';
  readonly Principal?: Record<string, string | string[]>;
  readonly Action: string | string[];
  readonly Resource: string | string[];
  readonly Condition?: Record<string, Record<string, string | string[]>>;
}

export interface PolicyDocument {
  readonly Version: '2012-10-17';
  readonly Statement: readonly PolicyStatement[];
}

const ARN = {
  bus: 'arn:aws:events:{{Region}}:{{Account}}:event-bus/{{EventBusName}}',
  archive: 'arn:aws:events:{{Region}}:{{Account}}:archive/{{ArchiveName}}',
  // scripts/replay.ts names every replay connector-replay-<UTC time>[-n].
  replays: 'arn:aws:events:{{Region}}:{{Account}}:replay/connector-replay-*',
  table: 'arn:aws:dynamodb:{{Region}}:{{Account}}:table/{{TableName}}',
  // Secrets Manager appends "-" and six random characters to a secret's name in its ARN.
  tokenSecret: 'arn:aws:secretsmanager:{{Region}}:{{Account}}:secret:{{TokenSecretName}}-??????',
  queue: (output: string) => `arn:aws:sqs:{{Region}}:{{Account}}:{{${output.replace(/Url$/, 'Name')}}}`,
};

/**
 * Publishing to the bus, limited to the inbound source. events:source is multivalued for PutEvents
 * (the sources of the request's entries; Service Authorization Reference: ArrayOfString), so the
 * allow is `ForAllValues:StringEquals`, as the EventBridge user guide's example for a source-limited
 * publisher writes it ("Example policy: Send events to a custom bus in a different account"), and
 * `Null: false` keeps a request without the key from matching vacuously (IAM user guide,
 * "Multivalued context keys").
 */
function inboundSourceOnly(): PolicyStatement['Condition'] {
  return {
    'ForAllValues:StringEquals': { 'events:source': ['{{InboundSource}}'] },
    Null: { 'events:source': 'false' },
  };
}

function publisherPolicy(): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'PublishInboundEventsToTheConnectorBus',
        Effect: 'Allow',
        Action: 'events:PutEvents',
        Resource: ARN.bus,
        Condition: inboundSourceOnly(),
      },
    ],
  };
}

function publisherBusPolicy(): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'PublisherAccountInboundEventsOnly',
        Effect: 'Allow',
        Principal: { AWS: 'arn:aws:iam::{{PublisherAccount}}:root' },
        Action: 'events:PutEvents',
        Resource: ARN.bus,
        Condition: inboundSourceOnly(),
      },
    ],
  };
}

/** The dead-letter queues `npm run redrive` moves from, each with the queue it moves back to. */
function redriveQueues(routes = queueRoutes): { deadLetters: string[]; sources: string[] } {
  return {
    deadLetters: [
      ...routes.flatMap((route) => [
        `${route.detailType}DeadLetterQueueUrl`,
        `${route.detailType}IntakeDeadLetterQueueUrl`,
      ]),
      'RefusalDeadLetterQueueUrl',
    ],
    sources: [
      ...routes.flatMap((route) => [`${route.detailType}QueueUrl`, `${route.detailType}IntakeQueueUrl`]),
      'RefusalQueueUrl',
    ],
  };
}

function redrivePolicy(): PolicyDocument {
  const { deadLetters, sources } = redriveQueues();
  const scheduleDeadLetters = scheduledFunctions.map(
    (scheduled) => `${scheduleIdOf(scheduled)}ScheduleDeadLetterQueueUrl`,
  );
  return {
    Version: '2012-10-17',
    Statement: [
      {
        // resolveQueue (GetQueueUrl for a name or ARN, GetQueueAttributes QueueArn), the message count
        // (GetQueueAttributes), the source queue (ListDeadLetterSourceQueues), --status
        // (ListMessageMoveTasks), the move (StartMessageMoveTask). A move task receives and deletes
        // on the dead-letter queue and sends to the destination with the caller's permissions (SQS
        // developer guide, "Learn how to configure a dead-letter queue redrive").
        Sid: 'MoveMessagesOutOfTheConnectorDeadLetterQueues',
        Effect: 'Allow',
        Action: [
          'sqs:GetQueueUrl',
          'sqs:GetQueueAttributes',
          'sqs:ListDeadLetterSourceQueues',
          'sqs:ListMessageMoveTasks',
          'sqs:StartMessageMoveTask',
          'sqs:ReceiveMessage',
          'sqs:DeleteMessage',
        ],
        Resource: deadLetters.map(ARN.queue),
      },
      {
        // The queue each dead-letter queue belongs to: resolved (GetQueueAttributes; GetQueueUrl for
        // --to <name>), and the move task's destination (SendMessage). No other queue.
        Sid: 'MoveThemBackToTheQueueTheyCameFrom',
        Effect: 'Allow',
        Action: ['sqs:GetQueueUrl', 'sqs:GetQueueAttributes', 'sqs:SendMessage'],
        Resource: sources.map(ARN.queue),
      },
      {
        // A schedule's dead-letter queue has no source queue: the command looks (and says to purge
        // it), nothing moves.
        Sid: 'LookAtTheScheduleDeadLetterQueues',
        Effect: 'Allow',
        Action: ['sqs:GetQueueUrl', 'sqs:GetQueueAttributes', 'sqs:ListDeadLetterSourceQueues'],
        Resource: scheduleDeadLetters.map(ARN.queue),
      },
    ],
  };
}

function replayPolicy(): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        // --archive <ArchiveName>: DescribeArchive of the connector's archive only (without --archive
        // the command describes every archive of the region to find it).
        Sid: 'ReadTheConnectorArchive',
        Effect: 'Allow',
        Action: 'events:DescribeArchive',
        Resource: ARN.archive,
      },
      {
        // ListRules takes no resource-level permission (Service Authorization Reference, EventBridge:
        // no resource type), so "*"; it only lists rule definitions.
        Sid: 'ListTheRouteRules',
        Effect: 'Allow',
        Action: 'events:ListRules',
        Resource: '*',
      },
      {
        // StartReplay is authorized on the archive, the destination bus and the replay
        // (Service Authorization Reference, EventBridge); DescribeReplay follows it.
        Sid: 'ReplayTheArchiveToTheConnectorBus',
        Effect: 'Allow',
        Action: 'events:StartReplay',
        Resource: [ARN.archive, ARN.bus, ARN.replays],
      },
      {
        Sid: 'FollowTheReplay',
        Effect: 'Allow',
        Action: 'events:DescribeReplay',
        Resource: ARN.replays,
      },
    ],
  };
}

function signupsPolicy(): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        // listUnconfirmedSignups: one Query of the drift index's UNCONFIRMED partition.
        Sid: 'ListTheUnconfirmedSignups',
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: `${ARN.table}/index/${DRIFT_INDEX_NAME}`,
      },
      {
        // readUnconfirmedSignups: each business record (GetItem, consistent).
        Sid: 'ReadTheirBusinessRecords',
        Effect: 'Allow',
        Action: 'dynamodb:GetItem',
        Resource: ARN.table,
      },
    ],
  };
}

function resolveSignupPolicy(): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        // getBusiness, getAccountByHostname (GetItem); the shared request budget the service call
        // takes from (UpdateItem, GetItem on its bucket items); recordProvisioned's transaction
        // (an Update and a Put: DynamoDB authorizes each item action of TransactWriteItems as
        // UpdateItem and PutItem, DynamoDB developer guide, "Using IAM with DynamoDB transactions").
        Sid: 'ReadAndRecordTheBusiness',
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
        Resource: ARN.table,
      },
      {
        // The bearer token for subscription-status, read as the functions read it.
        Sid: 'ReadTheToken',
        Effect: 'Allow',
        Action: 'secretsmanager:GetSecretValue',
        Resource: ARN.tokenSecret,
      },
    ],
  };
}

/** Added to resolve-signup's policy when the token secret is under a customer managed key. */
function tokenSecretKmsPolicy(): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        // As the functions are granted it (lib/connector-function.ts, bindSecret).
        Sid: 'DecryptTheTokenThroughSecretsManager',
        Effect: 'Allow',
        Action: 'kms:Decrypt',
        Resource: '{{TokenSecretKmsKeyArn}}',
        Condition: { StringEquals: { 'kms:ViaService': 'secretsmanager.{{Region}}.amazonaws.com' } },
      },
    ],
  };
}

function driftBackfillPolicy(): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        // One paginated Scan for ACTIVE businesses without a drift due time, then one conditional
        // UpdateItem each. No function is granted Scan.
        Sid: 'ScheduleTheFirstDriftChecks',
        Effect: 'Allow',
        Action: ['dynamodb:Scan', 'dynamodb:UpdateItem'],
        Resource: ARN.table,
      },
    ],
  };
}

/** Every policy file of docs/policies/, by file name. */
export function connectorPolicies(): Map<string, PolicyDocument> {
  return new Map<string, PolicyDocument>([
    ['publisher.json', publisherPolicy()],
    ['publisher-bus-policy.json', publisherBusPolicy()],
    ['operator-redrive.json', redrivePolicy()],
    ['operator-replay.json', replayPolicy()],
    ['operator-signups.json', signupsPolicy()],
    ['operator-resolve-signup.json', resolveSignupPolicy()],
    ['token-secret-kms-decrypt.json', tokenSecretKmsPolicy()],
    ['operator-drift-backfill.json', driftBackfillPolicy()],
  ]);
}

/** Each policy file as written: 2-space JSON and a trailing newline. */
export function policyFiles(): Map<string, string> {
  return new Map(
    [...connectorPolicies()].map(([name, policy]) => [
      join(POLICY_DIR, name),
      `${JSON.stringify(policy, null, 2)}\n`,
    ]),
  );
}

/** Files of docs/policies/ that differ from the generator, and JSON files it does not make. */
export async function comparePolicyFiles(): Promise<{ changed: string[]; stale: string[] }> {
  const files = policyFiles();
  const changed: string[] = [];
  for (const [path, content] of files) {
    const current = await readFile(join(REPO_ROOT, path), 'utf8').catch(() => undefined);
    if (current !== content) changed.push(path);
  }
  const present = await readdir(join(REPO_ROOT, POLICY_DIR)).catch(() => [] as string[]);
  const stale = present
    .filter((name) => name.endsWith('.json'))
    .map((name) => join(POLICY_DIR, name))
    .filter((path) => !files.has(path));
  return { changed, stale };
}

async function writePolicyFiles(): Promise<{ changed: string[]; stale: string[] }> {
  const drift = await comparePolicyFiles();
  await mkdir(join(REPO_ROOT, POLICY_DIR), { recursive: true });
  for (const path of drift.changed) await writeFile(join(REPO_ROOT, path), policyFiles().get(path)!);
  for (const path of drift.stale) await rm(join(REPO_ROOT, path));
  return drift;
}

/** `aws cloudformation describe-stacks … --query 'Stacks[0].Outputs'` as {key: value}. */
export function outputsOf(describeStacksOutputs: unknown): Record<string, string> {
  if (!Array.isArray(describeStacksOutputs)) {
    throw new Error('expected the Outputs array of describe-stacks ([{"OutputKey", "OutputValue"}, …])');
  }
  return Object.fromEntries(
    describeStacksOutputs.map((output: { OutputKey?: unknown; OutputValue?: unknown }) => [
      String(output.OutputKey),
      String(output.OutputValue),
    ]),
  );
}

const USAGE = `usage: npm run policies [-- --check]
       npm run policies -- fill <policy file> --outputs <outputs.json> --region R --account A [--set Name=Value …]

  (no argument)  write docs/policies/*.json from scripts/policies.ts, and the stack outputs
                 tables of docs/deploy.md from lib/connector-outputs.ts (scripts/outputs-doc.ts)
                 and its alarm list from lib/alarm-catalog.ts (scripts/alarms-doc.ts)
  --check        only list the files that differ (exit 1 when any does)
  fill           print one policy with its {{placeholders}} filled in: outputs.json is the Service
                 stack's outputs (aws cloudformation describe-stacks --stack-name
                 WorkforceConnector-<partner>-<stage>-Service --query 'Stacks[0].Outputs' > outputs.json);
                 --set gives the others (InboundSource, TokenSecretName, PublisherAccount,
                 TokenSecretKmsKeyArn)`;

async function main(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      check: { type: 'boolean', default: false },
      outputs: { type: 'string' },
      region: { type: 'string' },
      account: { type: 'string' },
      set: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals[0] === 'fill') {
    const file = positionals[1];
    if (!file || !values.outputs || !values.region || !values.account) {
      console.error(USAGE);
      return 2;
    }
    const settings: Record<string, string> = { Region: values.region, Account: values.account };
    for (const pair of values.set ?? []) {
      const at = pair.indexOf('=');
      if (at < 1) {
        console.error(`--set takes Name=Value, not ${pair}`);
        return 2;
      }
      settings[pair.slice(0, at)] = pair.slice(at + 1);
    }
    const policy = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    const outputs = outputsOf(JSON.parse(readFileSync(values.outputs, 'utf8')));
    console.log(JSON.stringify(fillPolicy(policy, outputs, settings), null, 2));
    return 0;
  }
  if (positionals.length > 0) {
    console.error(USAGE);
    return 2;
  }
  const drift = values.check ? await comparePolicyFiles() : await writePolicyFiles();
  if (await writeOutputsDoc(values.check)) drift.changed.push(`${DEPLOY_DOC} (stack outputs)`);
  if (writeAlarmsDoc(values.check)) drift.changed.push(`${DEPLOY_DOC} (alarm list)`);
  for (const path of drift.changed) console.log(`${values.check ? 'differs' : 'wrote'}   ${path}`);
  for (const path of drift.stale) console.log(`${values.check ? 'stale' : 'removed'} ${path}`);
  if (values.check && drift.changed.length + drift.stale.length > 0) {
    console.error(
      'docs/policies/ or the outputs or alarm list of docs/deploy.md are out of date: run npm run policies',
    );
    return 1;
  }
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exitCode = 1;
    },
  );
}
