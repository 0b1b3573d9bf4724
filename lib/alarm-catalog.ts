/**
 * Every alarm of the connector as one list: its id, its severity and whether one datapoint already
 * means loss. `connector-alarms.ts` makes the alarms from it, `alarm-composites.ts` routes them to the
 * two topics by severity, and `npm run policies` writes it into docs/deploy.md ("Alarm list"), so the
 * docs, the template and the paging cannot drift (test/infra/alarms.test.ts).
 */

/** `page`: wake someone (a record is lost or about to be, or nothing moves); `ticket`: look today. */
export type AlarmSeverity = 'page' | 'ticket';

export interface AlarmKind {
  readonly severity: AlarmSeverity;
  /**
   * True when a single breaching datapoint already means a record ended without being applied (a
   * dead letter, a give-up): the alarm fires on it, 1 of 1. Otherwise the alarm needs
   * `alarms.datapointsToAlarm` of `alarms.evaluationPeriods` (M of N) so that a blip does not fire.
   */
  readonly lossOnFirstDatapoint: boolean;
  /** The entry of docs/deploy.md's alarm runbooks (anchor `alarms-<runbook>`). */
  readonly runbook: string;
  /** What it means, for the docs (the part, e.g. `<Route>`, is named in the id). */
  readonly means: string;
}

const kind = (
  severity: AlarmSeverity,
  lossOnFirstDatapoint: boolean,
  runbook: string,
  means: string,
): AlarmKind => ({ severity, lossOnFirstDatapoint, runbook, means });

/** A route's alarms, each id `<Route><suffix>`. */
export const ROUTE_ALARMS = {
  QueueAge: kind(
    'ticket',
    false,
    'queue-age',
    'the oldest record of the FIFO queue waits longer than 30 minutes',
  ),
  DeadLetters: kind(
    'page',
    true,
    'dead-letters',
    'a record gave up and is kept in the route DLQ for a redrive',
  ),
  DeadLetterAge: kind('page', true, 'dead-letters', 'a dead letter is older than 7 days (they expire at 14)'),
  IntakeQueueAge: kind(
    'ticket',
    false,
    'intake',
    'an intake message is older than 5 minutes (the pipe does not forward)',
  ),
  IntakeDeadLetters: kind(
    'page',
    false,
    'intake',
    'an intake dead letter is not answered for 15 minutes (no SyncFailed reaches the partner)',
  ),
  PipeFailures: kind('ticket', false, 'intake', 'intake pipe executions failed or timed out'),
  RecordsFailed: kind('ticket', false, 'records-failed', '10 or more counted retries in 15 minutes'),
  Errors: kind('ticket', false, 'function-errors', 'a whole invocation of the function failed'),
  Throttles: kind('ticket', false, 'function-errors', 'the function was throttled'),
} as const satisfies Record<string, AlarmKind>;

/** The refusal check's alarms, each id `Refusal<suffix>`. */
export const REFUSAL_ALARMS = {
  QueueAge: kind(
    'ticket',
    false,
    'refusal',
    'inbound events wait for the refusal check longer than 30 minutes',
  ),
  DeadLetters: kind('page', true, 'refusal', 'an inbound event the refusal check could not take or answer'),
  RecordsFailed: kind('ticket', false, 'refusal', 'refusal records failed 3 or more times in 15 minutes'),
  Errors: ROUTE_ALARMS.Errors,
  Throttles: ROUTE_ALARMS.Throttles,
} as const satisfies Record<string, AlarmKind>;

/** A scheduled function's alarms, each id `<Schedule><suffix>` (`TrialWatch`, `DriftWatch`). */
export const SCHEDULE_ALARMS = {
  ScheduleDeadLetters: kind(
    'ticket',
    false,
    'scheduled',
    'EventBridge could not start a run (the next run covers what was missed)',
  ),
  Failures: kind(
    'ticket',
    false,
    'scheduled',
    'a run could not check some businesses (the next run retries them)',
  ),
  Errors: ROUTE_ALARMS.Errors,
  Throttles: ROUTE_ALARMS.Throttles,
} as const satisfies Record<string, AlarmKind>;

/** Alarms of the deployment as a whole, each id as is. */
export const CONNECTOR_ALARMS = {
  SyncFailedOperator: kind(
    'page',
    true,
    'syncfailed-operator',
    'a SyncFailed the operator must act on (RETRIES_EXHAUSTED: a record given up, configuration, unreadable answers)',
  ),
  SyncFailedPartner: kind(
    'ticket',
    false,
    'syncfailed-partner',
    'SyncFailed for the events’ own content ≥ alarms.partnerSyncFailedPerHour in an hour',
  ),
  TokenProblems: kind(
    'page',
    false,
    'token',
    'the token secret is missing or empty, or the service refuses the token: every record waits',
  ),
  ConsumerDeliveryDeadLetters: kind(
    'page',
    true,
    'consumers',
    'a result event EventBridge could not deliver to a consumer bus of another account',
  ),
} as const satisfies Record<string, AlarmKind>;

/** The parts of a deployment that have alarms of their own. */
export interface AlarmShape {
  /** Detail-types of the routes. */
  readonly routes: readonly string[];
  /** `scheduleIdOf` of each scheduled function, and whether it publishes a failure metric. */
  readonly schedules: readonly { readonly id: string; readonly failures: boolean }[];
  /** Whether `consumers` is configured. */
  readonly consumers: boolean;
}

export interface CatalogAlarm extends AlarmKind {
  /** The alarm's id: its name is `WorkforceConnector-<partner>-<stage>-<id>`. */
  readonly id: string;
  /** The route it belongs to (its composite), if any. */
  readonly route?: string;
}

/** The composite alarms: one per route (any of its alarms), and the deployment's page and ticket ones. */
export const ROUTE_COMPOSITE_SUFFIX = 'Health';
export const CONNECTOR_PAGE_COMPOSITE = 'ConnectorPage';
export const CONNECTOR_TICKET_COMPOSITE = 'ConnectorTicket';

/** Every metric alarm of a deployment of this shape, in the order the template makes them. */
export function alarmCatalog(shape: AlarmShape): CatalogAlarm[] {
  const of = (kinds: Record<string, AlarmKind>, prefix: string, route?: string) =>
    Object.entries(kinds).map(([suffix, about]) => ({
      ...about,
      id: `${prefix}${suffix}`,
      ...(route ? { route } : {}),
    }));
  return [
    ...shape.routes.flatMap((route) => of(ROUTE_ALARMS, route, route)),
    ...of(REFUSAL_ALARMS, 'Refusal'),
    ...shape.schedules.flatMap(({ id, failures }) =>
      of(SCHEDULE_ALARMS, id).filter((alarm) => failures || alarm.id !== `${id}Failures`),
    ),
    ...of(CONNECTOR_ALARMS, '').filter(
      (alarm) => shape.consumers || alarm.id !== 'ConsumerDeliveryDeadLetters',
    ),
  ];
}
