import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { queueRoutes, scheduledFunctions } from '#functions/routes.ts';
import {
  type AlarmKind,
  type AlarmShape,
  alarmCatalog,
  CONNECTOR_ALARMS,
  CONNECTOR_PAGE_COMPOSITE,
  CONNECTOR_TICKET_COMPOSITE,
  REFUSAL_ALARMS,
  ROUTE_ALARMS,
  ROUTE_COMPOSITE_SUFFIX,
  SCHEDULE_ALARMS,
} from '#lib/alarm-catalog.ts';
import { scheduleIdOf } from '#lib/connector-schedule.ts';

/**
 * The "Alarm list" of docs/deploy.md, written from lib/alarm-catalog.ts between two markers (as
 * scripts/outputs-doc.ts writes the outputs); `npm run policies` writes it, `--check` compares, and
 * test/infra/alarms.test.ts checks that the ids listed are the template's alarms.
 */

const DEPLOY_DOC = 'docs/deploy.md';
const BEGIN = '<!-- alarms:begin (written by npm run policies from lib/alarm-catalog.ts) -->';
const END = '<!-- alarms:end -->';
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The alarm shape of the route table and scheduled functions of `functions/routes.ts`. */
export function documentedAlarmShape(consumers: boolean): AlarmShape {
  return {
    routes: queueRoutes.map((route) => route.detailType),
    schedules: scheduledFunctions.map((scheduled) => ({
      id: scheduleIdOf(scheduled),
      failures: scheduled.failureMetric !== undefined,
    })),
    consumers,
  };
}

/** The composite alarm ids of a shape. */
export function compositeIds(shape: AlarmShape): string[] {
  return [
    ...shape.routes.map((route) => `${route}${ROUTE_COMPOSITE_SUFFIX}`),
    CONNECTOR_PAGE_COMPOSITE,
    CONNECTOR_TICKET_COMPOSITE,
  ];
}

function row(id: string, kind: AlarmKind): string {
  const datapoints = kind.lossOnFirstDatapoint ? '1 of 1 (one means loss)' : 'M of N';
  return `| \`${id}\` | ${kind.severity} | ${datapoints} | ${kind.means} | [${kind.runbook}](#alarms-${kind.runbook}) |`;
}

export function alarmsTables(): string {
  const shape = documentedAlarmShape(false);
  const withConsumers = alarmCatalog(documentedAlarmShape(true)).length;
  const metric = alarmCatalog(shape).length;
  const composites = compositeIds(shape).length;
  const scheduleRows = shape.schedules.flatMap(({ id, failures }) =>
    Object.entries(SCHEDULE_ALARMS)
      .filter(([suffix]) => failures || suffix !== 'Failures')
      .map(([suffix, kind]) => row(`${id}${suffix}`, kind)),
  );
  return [
    BEGIN,
    '',
    `With the route table of \`functions/routes.ts\` (${shape.routes.length} routes): **${metric} metric alarms** (${withConsumers} with \`consumers\`) and **${composites} composite alarms**. Only the composites notify. "M of N" is \`alarms.datapointsToAlarm\` of \`alarms.evaluationPeriods\` (default 3 of 5).`,
    '',
    '| alarm | severity | datapoints | means | entry |',
    '| --- | --- | --- | --- | --- |',
    ...Object.entries(ROUTE_ALARMS).map(([suffix, kind]) => row(`<Route>${suffix}`, kind)),
    ...Object.entries(REFUSAL_ALARMS).map(([suffix, kind]) => row(`Refusal${suffix}`, kind)),
    ...scheduleRows,
    ...Object.entries(CONNECTOR_ALARMS).map(([id, kind]) =>
      row(id, kind).replace(
        /^\| `ConsumerDeliveryDeadLetters` \|/,
        '| `ConsumerDeliveryDeadLetters` (with `consumers`) |',
      ),
    ),
    '',
    `\`<Route>\` is each of: ${shape.routes.join(', ')}.`,
    '',
    '| composite alarm | notifies | fires when |',
    '| --- | --- | --- |',
    `| \`<Route>${ROUTE_COMPOSITE_SUFFIX}\` | ticket topic | any alarm of the route (quiet while \`TokenProblems\` is in ALARM, and 30 minutes after) |`,
    `| \`${CONNECTOR_PAGE_COMPOSITE}\` | page topic | any alarm of severity page |`,
    `| \`${CONNECTOR_TICKET_COMPOSITE}\` | ticket topic | any alarm of severity ticket outside the routes (quiet while \`TokenProblems\` is in ALARM, and 30 minutes after) |`,
    '',
    END,
  ].join('\n');
}

function deployDocWithAlarms(): { current: string; next: string } {
  const current = readFileSync(join(REPO_ROOT, DEPLOY_DOC), 'utf8');
  const begin = current.indexOf(BEGIN);
  const end = current.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`${DEPLOY_DOC} has no alarm markers (${BEGIN} … ${END})`);
  return { current, next: `${current.slice(0, begin)}${alarmsTables()}${current.slice(end + END.length)}` };
}

/** Writes the alarm list when it differs; whether it did. */
export function writeAlarmsDoc(check: boolean): boolean {
  const { current, next } = deployDocWithAlarms();
  if (current === next) return false;
  if (!check) writeFileSync(join(REPO_ROOT, DEPLOY_DOC), next);
  return true;
}

/** The alarm ids the docs list, `<Route>` expanded for each route of `functions/routes.ts`. */
export function alarmIdsIn(doc: string): string[] {
  const section = doc.slice(doc.indexOf(BEGIN), doc.indexOf(END));
  const ids = [...section.matchAll(/^\| `([A-Za-z0-9<>]+)`/gm)].map((match) => match[1]!);
  return ids.flatMap((id) =>
    id.startsWith('<Route>')
      ? queueRoutes.map((route) => `${route.detailType}${id.slice('<Route>'.length)}`)
      : [id],
  );
}
