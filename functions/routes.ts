import type { InboundDetailType } from '#functions/contracts/registry.ts';
import { MetricName } from '#functions/runtime/metric-names.ts';
import { DEFAULT_MAX_ATTEMPTS } from '#functions/runtime/retry-schedule.ts';

/**
 * The route table: which function consumes which inbound detail-type, and how its queue and
 * event source are tuned. Infrastructure (`lib/`) and the local runtime (`local/`) both read
 * this one table, so what runs on a laptop is routed exactly as what is deployed.
 *
 * Every route is EventBridge rule → intake queue → pipe → SQS FIFO queue (MessageGroupId =
 * accountId) → function; `refusalFunction` answers what no route can take.
 */
/**
 * DynamoDB actions a function may use on the connector table, granted exactly (lib/): the local
 * runtime records every call each function's role makes, and test/local/iam/grants-from-use.test.ts
 * runs every route's and watch's ways of ending and fails on a grant no call used or a call no
 * grant allows, so a grant cannot drift from the code.
 */
export type TableAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query';

export interface TableAccess {
  /** On the table itself. */
  readonly tableActions: readonly TableAction[];
  /** Queries the trial index (granted dynamodb:Query on it only). @default false */
  readonly queriesTrialIndex?: boolean;
  /** Queries the drift index (the drift watch's due list; dynamodb:Query on it only). @default false */
  readonly queriesDriftIndex?: boolean;
}

/** Key reads and writes: the store's items, idempotency records, retry budgets, replay markers. */
const ITEM_ACTIONS: readonly TableAction[] = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'];
/** ... plus queries within one partition (an install's slots or locations, a business's notices). */
const ITEM_AND_QUERY_ACTIONS: readonly TableAction[] = [...ITEM_ACTIONS, 'Query'];

export interface QueueRoute extends TableAccess {
  readonly detailType: InboundDetailType;
  /** Short name of the use case; also the handler folder under `functions/`. */
  readonly functionName: string;
  /** Repo-relative path of the handler module. */
  readonly entry: string;
  readonly handlerExport: 'handler';
  /** Records per invocation; FIFO event sources allow at most 10. */
  readonly batchSize: number;
  /** FIFO event sources do not batch over a window, so 0. */
  readonly maxBatchingWindowSeconds: number;
  /**
   * Counted failures before a record gives up (SyncFailed RETRIES_EXHAUSTED, kept in the route's
   * dead-letter queue). Waits for a token fix or a pause the service asked for are not counted;
   * the queue's maximum receives follow from this and the retention (retry-schedule.ts).
   */
  readonly maxAttempts: number;
  /**
   * How long the route queue keeps a record (SQS allows 60 s to 14 days); records waiting for a
   * token fix wait at most this long. @default ROUTE_QUEUE_RETENTION_SECONDS (14 days)
   */
  readonly retentionSeconds?: number;
  /**
   * Concurrent invocations the SQS event source may run (AWS minimum 2). The deployment
   * config may override it per route to stay inside the service's rate limits.
   */
  readonly maxConcurrency: number;
  readonly timeoutSeconds: number;
  readonly memorySizeMb: number;
  readonly description: string;
}

export interface ScheduledFunction extends TableAccess {
  readonly functionName: string;
  readonly entry: string;
  readonly handlerExport: 'handler';
  readonly timeoutSeconds: number;
  readonly memorySizeMb: number;
  /** EventBridge schedule expression; the deployment config may override it. */
  readonly defaultSchedule: string;
  readonly description: string;
  /** A metric (with the function's service dimension) counting items a run could not handle. */
  readonly failureMetric?: string;
  /** Items a run left due because the shared request budget was contended (not failures). */
  readonly throttledMetric?: string;
  /**
   * Items of the page a run stopped on (its time or the budget ran out) that it never started; the
   * next run takes them, and any later pages. A lower bound of what is left due, read for free.
   */
  readonly remainingMetric?: string;
}

/** SQS FIFO event sources accept at most 10 records per batch. */
export const FIFO_MAX_BATCH_SIZE = 10;
/** The lowest maximum concurrency an SQS event source accepts. */
export const MIN_EVENT_SOURCE_CONCURRENCY = 2;

const queueDefaults = {
  handlerExport: 'handler',
  batchSize: FIFO_MAX_BATCH_SIZE,
  maxBatchingWindowSeconds: 0,
  maxAttempts: DEFAULT_MAX_ATTEMPTS,
  maxConcurrency: 5,
  tableActions: ITEM_ACTIONS,
  // One service call may take 36 s at worst (3 × (3 s budget wait + 5 s timeout) + 2 × 5 s
  // Retry-After + 2 s wrap-up; retry-schedule.ts recordTimeReserveMs): 60 s leaves room to start
  // records after it.
  timeoutSeconds: 60,
  memorySizeMb: 256,
} as const;

function queueRoute(
  detailType: InboundDetailType,
  functionName: string,
  description: string,
  overrides: Partial<Omit<QueueRoute, 'detailType' | 'functionName' | 'entry' | 'description'>> = {},
): QueueRoute {
  return {
    ...queueDefaults,
    ...overrides,
    detailType,
    functionName,
    entry: `functions/${functionName}/handler.ts`,
    description,
  };
}

export const queueRoutes: readonly QueueRoute[] = [
  queueRoute(
    'AccountCreated',
    'provision-business',
    'Provisions a business (signup) for a new partner account.',
  ),
  // The plan is one thing: its position is one GetItem (store/positions.ts queries only for several).
  queueRoute('PlanChosen', 'change-plan', 'Converts or cancels the subscription of a business.'),
  queueRoute(
    'SubscriptionStatusRequested',
    'subscription-status',
    'Reads the subscription from the service and answers with SubscriptionStatus.',
  ),
  queueRoute(
    'EmployeeChanged',
    'sync-employee',
    'Applies custom fields, regular hours, pay rate and leave balances to an employee.',
    // Up to four parts, each several service calls (award lookup, slot scan), per record.
    { timeoutSeconds: 90, tableActions: ITEM_AND_QUERY_ACTIONS },
  ),
  queueRoute('LocationCreated', 'provision-location', 'Creates a location and its areas in the install.', {
    timeoutSeconds: 90,
    tableActions: ITEM_AND_QUERY_ACTIONS,
  }),
  queueRoute('BudgetSet', 'save-budget', 'Saves daily wage or hour budgets as metrics.', {
    // The positions of a budget's days: one Query over their range (store/positions.ts).
    tableActions: ITEM_AND_QUERY_ACTIONS,
  }),
  queueRoute('PayReturnsRequested', 'pay-returns', 'Reads and normalizes timesheet pay returns.', {
    // Up to 100 timesheets per record (by id, or found in a period: a query per month), one
    // joined query each.
    timeoutSeconds: 120,
    memorySizeMb: 512,
  }),
  queueRoute(
    'PayRatesRequested',
    'pay-rates',
    "Reports each employee agreement's effective hourly rate and where it comes from.",
    // One QUERY per employee asked for (up to 100), then each contract and pay rule once.
    { timeoutSeconds: 120, memorySizeMb: 512 },
  ),
  queueRoute(
    'ReferenceDataRequested',
    'reference-data',
    "Reports the install's countries, states, leave rules, award library and agreed hours.",
  ),
  queueRoute('RecordsRequested', 'read-records', "Reports one page of an install resource's records.", {
    // One QUERY whose whole answer is held to filter and sort it (up to the service's maximum).
    memorySizeMb: 512,
  }),
  queueRoute(
    'TimesheetFieldsDefined',
    'define-timesheet-fields',
    'Creates the timesheet custom field definitions the install does not have yet.',
    // Up to 128 creates per record, after one read; the install's markers are one Query.
    { timeoutSeconds: 120, tableActions: ITEM_AND_QUERY_ACTIONS },
  ),
  queueRoute(
    'PayRateAssigned',
    'assign-pay-rate',
    'Sets one pay rate from the award library and assigns its agreement to more employees in bulk.',
    // The pay rates' positions (store/positions.ts) of up to 200 employees.
    { timeoutSeconds: 90, tableActions: ITEM_AND_QUERY_ACTIONS },
  ),
];

export const scheduledFunctions: readonly ScheduledFunction[] = [
  {
    functionName: 'trial-watch',
    entry: 'functions/trial-watch/handler.ts',
    handlerExport: 'handler',
    // Walks every due business and asks the service about each one.
    timeoutSeconds: 300,
    memorySizeMb: 256,
    defaultSchedule: 'rate(1 hour)',
    description: 'Polls trials ending soon and announces TrialExpiring / TrialEnded.',
    // Its due list is a Query of the trial index; on the table, key reads and writes only (the
    // request budget, the business's edition, its threshold announcements and their release).
    tableActions: ITEM_ACTIONS,
    queriesTrialIndex: true,
    failureMetric: MetricName.TrialWatchFailed,
    throttledMetric: MetricName.TrialWatchThrottled,
    remainingMetric: MetricName.TrialWatchRemaining,
  },
  {
    functionName: 'drift-watch',
    entry: 'functions/drift-watch/handler.ts',
    handlerExport: 'handler',
    // Checks the businesses due this run (1/24 of them per hourly run with the 24-hour cadence).
    timeoutSeconds: 300,
    memorySizeMb: 256,
    defaultSchedule: 'rate(1 hour)',
    description:
      'Compares the businesses due a check with the service and announces BusinessEditionChanged / BusinessGone.',
    // Its due list and the unconfirmed signups are Queries of the drift index; on the table, key
    // reads and writes only (the business, its next check, its notices and their release).
    tableActions: ITEM_ACTIONS,
    queriesDriftIndex: true,
    // The scheduled watches' metric of items a run could not handle (per function dimension).
    failureMetric: MetricName.TrialWatchFailed,
    throttledMetric: MetricName.DriftWatchThrottled,
    remainingMetric: MetricName.DriftWatchRemaining,
  },
];

/**
 * The refusal function behind the refusal rule: every event of the inbound source reaches it
 * (rule → standard queue → function), and it answers those no route can take (unknown
 * detail-type, no usable accountId) with one SyncFailed each, ignoring the rest. It also reads
 * every route's intake dead-letter queue (same batch size and maximum concurrency), so that
 * nothing stays parked there unanswered (functions/refuse-unroutable/handler.ts).
 */
export interface RefusalFunction extends TableAccess {
  readonly functionName: string;
  readonly entry: string;
  readonly handlerExport: 'handler';
  readonly batchSize: number;
  readonly maxConcurrency: number;
  readonly maxReceiveCount: number;
  readonly timeoutSeconds: number;
  readonly memorySizeMb: number;
  readonly description: string;
}

export const refusalFunction: RefusalFunction = {
  functionName: 'refuse-unroutable',
  entry: 'functions/refuse-unroutable/handler.ts',
  handlerExport: 'handler',
  batchSize: 10,
  maxConcurrency: MIN_EVENT_SOURCE_CONCURRENCY,
  maxReceiveCount: 5,
  timeoutSeconds: 30,
  memorySizeMb: 256,
  description:
    'Answers inbound events that no route can take, and the intake dead letters of every route, with SyncFailed.',
  // Its idempotency records only (refusals, intake dead letters kept for a redrive): Powertools
  // writes them conditionally and reads an existing one from the refused write
  // (ReturnValuesOnConditionCheckFailure ALL_OLD), so it never needs GetItem; DeleteItem removes the
  // record of a refusal whose publish failed, so that its redelivery publishes it.
  tableActions: ['PutItem', 'UpdateItem', 'DeleteItem'],
};

export function routeFor(detailType: InboundDetailType): QueueRoute;
export function routeFor(detailType: string): QueueRoute | undefined;
export function routeFor(detailType: string): QueueRoute | undefined {
  return queueRoutes.find((route) => route.detailType === detailType);
}

export function routeForFunction(functionName: string): QueueRoute | undefined {
  return queueRoutes.find((route) => route.functionName === functionName);
}
