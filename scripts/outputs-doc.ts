import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { queueRoutes, scheduledFunctions } from '#functions/routes.ts';
import { connectorOutputs } from '#lib/connector-outputs.ts';
import { scheduleIdOf } from '#lib/connector-schedule.ts';

/**
 * The "Stack outputs" tables of docs/deploy.md, written from the one list the stacks make their
 * outputs from (lib/connector-outputs.ts, `connectorOutputs`) between two markers; `npm run
 * policies` writes them with the policy files, `--check` compares, and test/infra/outputs.test.ts
 * checks that the keys listed are the template's.
 */

export const DEPLOY_DOC = 'docs/deploy.md';
const BEGIN = '<!-- outputs:begin (written by npm run policies from lib/connector-outputs.ts) -->';
const END = '<!-- outputs:end -->';
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The output list for the route table and scheduled functions of `functions/routes.ts`. */
export function documentedOutputs() {
  return connectorOutputs({
    routes: queueRoutes.map((route) => route.detailType),
    schedules: scheduledFunctions.map(scheduleIdOf),
    consumers: true,
  });
}

export function outputsTables(): string {
  const outputs = documentedOutputs();
  const perRoute = new Set(
    queueRoutes.flatMap((route) =>
      ['QueueUrl', 'DeadLetterQueueUrl', 'IntakeQueueUrl', 'IntakeDeadLetterQueueUrl'].map(
        (suffix) => `${route.detailType}${suffix}`,
      ),
    ),
  );
  const lines = [
    BEGIN,
    '',
    '| output key | stack | what | exists |',
    '| --- | --- | --- | --- |',
    ...outputs
      .filter((output) => !perRoute.has(output.key))
      .map(
        (output) =>
          `| \`${output.key}\` | ${output.stack} | ${output.description} | ${output.when ? `with ${output.when}` : 'always'} |`,
      ),
    '',
    'Per route (Service stack, always):',
    '',
    '| route | FIFO queue | its dead letters | intake queue | intake dead letters |',
    '| --- | --- | --- | --- | --- |',
    ...queueRoutes.map(
      ({ detailType: id }) =>
        `| ${id} | \`${id}QueueUrl\` | \`${id}DeadLetterQueueUrl\` | \`${id}IntakeQueueUrl\` | \`${id}IntakeDeadLetterQueueUrl\` |`,
    ),
    '',
    END,
  ];
  return lines.join('\n');
}

/** docs/deploy.md with the tables as the code makes them, or the problem with its markers. */
export async function deployDocWithOutputs(): Promise<{ current: string; next: string }> {
  const current = await readFile(join(REPO_ROOT, DEPLOY_DOC), 'utf8');
  const begin = current.indexOf(BEGIN);
  const end = current.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`${DEPLOY_DOC} has no outputs markers (${BEGIN} … ${END})`);
  return { current, next: `${current.slice(0, begin)}${outputsTables()}${current.slice(end + END.length)}` };
}

/** Writes the tables when they differ; whether they did. */
export async function writeOutputsDoc(check: boolean): Promise<boolean> {
  const { current, next } = await deployDocWithOutputs();
  if (current === next) return false;
  if (!check) await writeFile(join(REPO_ROOT, DEPLOY_DOC), next);
  return true;
}

/** The output keys the docs list (backticked in the tables). */
export function outputKeysIn(doc: string): string[] {
  const section = doc.slice(doc.indexOf(BEGIN), doc.indexOf(END));
  return [...section.matchAll(/`([A-Za-z0-9]+)`/g)].map((match) => match[1]!);
}
