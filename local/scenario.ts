import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { AccessDenial } from './iam/authorizer.ts';
import type { LocalRuntime, OutboundEvent } from './runtime.ts';
import { type AccountView, accountViews, type BusinessView } from './scenario-summary.ts';

/**
 * The demo replay of `npm start`: the sample events of `events/inbound/` published in scenario
 * order with the real EventBridge client, each step waiting until the connector is idle and
 * checking that the expected result event came back. A second account stays on its trial so that
 * moving the sandbox clock gives the trial watch something to announce; at the end the service
 * deletes that (now free) business and the drift watch announces BusinessGone.
 */

const EVENTS_DIR = fileURLToPath(new URL('../events/inbound/', import.meta.url));
/** Days after signup at which the trial watch runs: inside the 7-day threshold, then past the 30-day trial. */
const TRIAL_WATCH_DAYS = [24, 31] as const;

export const TRIAL_ACCOUNT = {
  accountId: 'acct-1002',
  businessName: 'Corner Bakery',
  email: 'trial.owner@example.com',
} as const;

type Detail = Record<string, unknown>;

export interface StepReport {
  readonly title: string;
  readonly ok: boolean;
  readonly durationMs: number;
  /** Result events the step produced, by detail-type. */
  readonly results: Readonly<Record<string, number>>;
  readonly failures: readonly string[];
}

export interface ScenarioReport {
  readonly steps: readonly StepReport[];
  readonly accounts: readonly AccountView[];
  readonly inboundCounts: Readonly<Record<string, number>>;
  readonly outboundCounts: Readonly<Record<string, number>>;
  /**
   * The AWS calls the template's IAM denied during the run (local/iam/): each one is a failure too,
   * as the call would have failed on AWS.
   */
  readonly denied: readonly AccessDenial[];
  readonly failures: readonly string[];
}

export interface ScenarioOptions {
  /** Called with each progress line. */
  readonly log?: (line: string) => void;
  /** Where the sample entries live. @default events/inbound of this repository */
  readonly eventsDir?: string;
}

interface PublishStep {
  readonly kind: 'publish';
  readonly title: string;
  readonly entries: (context: StepContext) => Promise<PutEventsRequestEntry[]>;
  /** The result event expected for every published entry (causationId = the entry's event id). */
  readonly expects: string;
}

interface TrialWatchStep {
  readonly kind: 'trial-watch';
  readonly title: string;
  readonly daysAfterSignup: number;
  /** Result events expected from this run, per account. */
  readonly expects: ReadonlyArray<{ accountId: string; detailType: string }>;
}

/** The service changes a business on its own, then every schedule runs once (the drift watch). */
interface DriftStep {
  readonly kind: 'drift';
  readonly title: string;
  /** What the service does, through the sandbox's control API. */
  readonly change: (context: StepContext) => Promise<void>;
  readonly expects: ReadonlyArray<{ accountId: string; detailType: string }>;
}

type Step = PublishStep | TrialWatchStep | DriftStep;

interface StepContext {
  readonly runtime: LocalRuntime;
  readonly outbound: readonly OutboundEvent[];
}

export async function runScenario(
  runtime: LocalRuntime,
  options: ScenarioOptions = {},
): Promise<ScenarioReport> {
  const log = options.log ?? (() => undefined);
  const eventsDir = options.eventsDir ?? EVENTS_DIR;
  // The samples name the example's bus and inbound source; a cloud assembly of another config
  // (`--assembly`) has its own, which the entries are given (the same for the example).
  const sample = (detailType: string, patch: (detail: Detail) => Detail = (detail) => detail) =>
    readSampleEntry(eventsDir, detailType, patch, { bus: runtime.busName, source: runtime.inboundSource });
  const steps = scenarioSteps(sample);
  const eventBridge = new EventBridgeClient({
    region: runtime.region,
    endpoint: runtime.eventsEndpoint,
    credentials: { accessKeyId: 'AKIALOCALSCENARIO000', secretAccessKey: 'local' },
  });
  const reports: StepReport[] = [];
  let clockDays = 0;
  try {
    for (const [index, step] of steps.entries()) {
      const started = Date.now();
      const label = `[${index + 1}/${steps.length}] ${step.title}`;
      const outboundBefore = runtime.outbound().length;
      const dlqBefore = runtime.dlq().length;
      const failures: string[] = [];
      const ids: string[] = [];
      try {
        if (step.kind === 'publish') {
          const entries = await step.entries({ runtime, outbound: runtime.outbound() });
          const answer = await eventBridge.send(new PutEventsCommand({ Entries: entries }));
          for (const [n, result] of (answer.Entries ?? []).entries()) {
            if (result.EventId) ids.push(result.EventId);
            else
              failures.push(`PutEvents refused entry ${n + 1}: ${result.ErrorCode} ${result.ErrorMessage}`);
          }
          await runtime.waitForIdle();
          failures.push(...checkResults(runtime, ids, step.expects));
        } else {
          if (step.kind === 'trial-watch') {
            await moveSandboxClock(runtime.sandboxUrl, step.daysAfterSignup - clockDays);
            clockDays = step.daysAfterSignup;
            await runtime.runTrialWatch();
          } else {
            await step.change({ runtime, outbound: runtime.outbound() });
            // Every schedule once, as POST /_local/scheduled does: the drift watch among them.
            await runtime.runSchedules();
          }
          await runtime.waitForIdle();
          const produced = runtime.outbound().slice(outboundBefore);
          for (const expected of step.expects) {
            const found = produced.some(
              (event) =>
                event['detail-type'] === expected.detailType &&
                event.detail['accountId'] === expected.accountId,
            );
            if (!found)
              failures.push(`${step.kind} announced no ${expected.detailType} for ${expected.accountId}`);
          }
        }
      } catch (error) {
        // One broken step must not hide what the others did: record it and go on to the summary.
        failures.push(error instanceof Error ? error.message : String(error));
        await runtime.waitForIdle().catch(() => undefined);
      }
      for (const dead of runtime.dlq().slice(dlqBefore)) {
        if (ids.some((id) => dead.body.includes(id))) continue; // already named by checkResults
        failures.push(
          `dead-lettered from ${dead.queue} after ${dead.attempts} attempts (${dead.lastErrorCode}): ${dead.reason}`,
        );
      }
      const results = countBy(runtime.outbound().slice(outboundBefore), (event) => event['detail-type']);
      const report: StepReport = {
        title: step.title,
        ok: failures.length === 0,
        durationMs: Date.now() - started,
        results,
        failures: [...new Set(failures)],
      };
      reports.push(report);
      const produced = Object.entries(results)
        .map(([type, count]) => (count > 1 ? `${type} ×${count}` : type))
        .join(', ');
      log(
        `${label} ${report.ok ? 'ok' : 'FAILED'} → ${produced || 'no result events'} (${report.durationMs} ms)`,
      );
      for (const failure of report.failures) log(`    ✗ ${failure}`);
    }
  } finally {
    eventBridge.destroy();
  }

  const inbound = runtime.published().filter((event) => event.source === runtime.inboundSource);
  const outbound = runtime.outbound();
  const denied = runtime.denied();
  return {
    steps: reports,
    accounts: accountViews(outbound, await listBusinesses(runtime.sandboxUrl)),
    inboundCounts: countBy(inbound, (event) => event['detail-type']),
    outboundCounts: countBy(outbound, (event) => event['detail-type']),
    denied,
    failures: [
      ...reports.flatMap((report) => report.failures.map((failure) => `${report.title}: ${failure}`)),
      ...[...new Set(denied.map((denial) => `AccessDenied: ${denial.message}`))],
    ],
  };
}

function scenarioSteps(
  sample: (detailType: string, patch?: (detail: Detail) => Detail) => Promise<PutEventsRequestEntry>,
): Step[] {
  return [
    {
      kind: 'publish',
      title: 'AccountCreated: provision the demo business and a trial business',
      expects: 'BusinessProvisioned',
      entries: async () => [
        await sample('AccountCreated'),
        await sample('AccountCreated', (detail) => ({
          ...detail,
          accountId: TRIAL_ACCOUNT.accountId,
          businessName: TRIAL_ACCOUNT.businessName,
          owner: { ...(detail['owner'] as Detail), email: TRIAL_ACCOUNT.email },
        })),
      ],
    },
    {
      kind: 'publish',
      title: 'PlanChosen: convert the demo business to premium',
      expects: 'PlanChanged',
      entries: async () => [await sample('PlanChosen')],
    },
    {
      kind: 'publish',
      title: 'SubscriptionStatusRequested: read the subscription back',
      expects: 'SubscriptionStatus',
      entries: async () => [await sample('SubscriptionStatusRequested')],
    },
    {
      kind: 'publish',
      title: 'EmployeeChanged: custom fields, hours, pay rate and leave',
      expects: 'EmployeeSynced',
      entries: async () => [await sample('EmployeeChanged')],
    },
    {
      kind: 'publish',
      title: 'LocationCreated: a location with two areas',
      expects: 'LocationProvisioned',
      entries: async () => [await sample('LocationCreated')],
    },
    {
      kind: 'publish',
      title: 'BudgetSet: a week of wage budgets for the new location',
      expects: 'BudgetSaved',
      // Budget the location the previous step created, when it did; the sample names a seeded one.
      entries: async ({ outbound }) => {
        const created = outbound.find((event) => event['detail-type'] === 'LocationProvisioned');
        const locationId = created?.detail['locationId'];
        return [
          await sample('BudgetSet', (detail) =>
            typeof locationId === 'number' ? { ...detail, locationId } : detail,
          ),
        ];
      },
    },
    {
      kind: 'publish',
      title: 'PayReturnsRequested: pay returns of two timesheets',
      expects: 'PayReturnsReady',
      entries: async () => [await sample('PayReturnsRequested')],
    },
    {
      kind: 'publish',
      title: "PayRatesRequested: each agreement's hourly rate and where it comes from",
      expects: 'PayRatesReported',
      entries: async () => [await sample('PayRatesRequested')],
    },
    {
      kind: 'publish',
      title: 'ReferenceDataRequested: countries, states, leave rules, awards, agreed hours',
      expects: 'ReferenceData',
      entries: async () => [await sample('ReferenceDataRequested')],
    },
    {
      kind: 'publish',
      title: 'RecordsRequested: the employees whose last name starts with "Le"',
      expects: 'RecordsReported',
      entries: async () => [await sample('RecordsRequested')],
    },
    {
      kind: 'publish',
      title: 'TimesheetFieldsDefined: the approval questions the install does not have yet',
      expects: 'TimesheetFieldsSynced',
      entries: async () => [await sample('TimesheetFieldsDefined')],
    },
    {
      kind: 'publish',
      title: 'PayRateAssigned: one library assignment, its agreement to the others in bulk',
      expects: 'PayRatesAssigned',
      entries: async () => [await sample('PayRateAssigned')],
    },
    {
      kind: 'trial-watch',
      title: `trial watch ${TRIAL_WATCH_DAYS[0]} days after signup`,
      daysAfterSignup: TRIAL_WATCH_DAYS[0],
      expects: [{ accountId: TRIAL_ACCOUNT.accountId, detailType: 'TrialExpiring' }],
    },
    {
      kind: 'trial-watch',
      title: `trial watch ${TRIAL_WATCH_DAYS[1]} days after signup`,
      daysAfterSignup: TRIAL_WATCH_DAYS[1],
      expects: [{ accountId: TRIAL_ACCOUNT.accountId, detailType: 'TrialEnded' }],
    },
    {
      kind: 'drift',
      title: 'the service deletes the lapsed free business; the drift watch notices',
      change: async ({ runtime, outbound }) => {
        const provisioned = outbound.find(
          (event) =>
            event['detail-type'] === 'BusinessProvisioned' &&
            event.detail['accountId'] === TRIAL_ACCOUNT.accountId,
        );
        const hostname = provisioned?.detail['hostname'];
        if (typeof hostname !== 'string') throw new Error(`${TRIAL_ACCOUNT.accountId} was never provisioned`);
        const response = await fetch(`${runtime.sandboxUrl}/_sandbox/businesses/${hostname}`, {
          method: 'DELETE',
        });
        if (!response.ok) throw new Error(`the sandbox did not delete ${hostname}: ${response.status}`);
      },
      expects: [{ accountId: TRIAL_ACCOUNT.accountId, detailType: 'BusinessGone' }],
    },
  ];
}

function checkResults(runtime: LocalRuntime, eventIds: readonly string[], expected: string): string[] {
  const failures: string[] = [];
  const outbound = runtime.outbound();
  for (const id of eventIds) {
    const caused = outbound.filter((event) => event.detail['causationId'] === id);
    for (const failed of caused.filter((event) => event['detail-type'] === 'SyncFailed')) {
      failures.push(`SyncFailed ${String(failed.detail['code'])}: ${String(failed.detail['message'])}`);
    }
    if (!caused.some((event) => event['detail-type'] === expected)) {
      const dead = runtime.dlq().find((entry) => entry.body.includes(id));
      failures.push(
        dead
          ? `event ${id} ended in the DLQ after ${dead.attempts} attempts: ${dead.reason}`
          : `no ${expected} for event ${id}`,
      );
    }
  }
  return failures;
}

async function readSampleEntry(
  eventsDir: string,
  detailType: string,
  patch: (detail: Detail) => Detail,
  target: { readonly bus: string; readonly source: string },
): Promise<PutEventsRequestEntry> {
  const path = resolve(eventsDir, detailType, 'eventbridge-entry.json');
  const entry = JSON.parse(await readFile(path, 'utf8')) as PutEventsRequestEntry;
  if (typeof entry.Detail !== 'string') throw new Error(`${path} has no Detail string`);
  return {
    ...entry,
    EventBusName: target.bus,
    Source: target.source,
    Detail: JSON.stringify(patch(JSON.parse(entry.Detail) as Detail)),
  };
}

async function moveSandboxClock(sandboxUrl: string, advanceDays: number): Promise<void> {
  const response = await fetch(`${sandboxUrl}/_sandbox/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advanceDays }),
  });
  if (!response.ok)
    throw new Error(`moving the sandbox clock failed: ${response.status} ${await response.text()}`);
}

async function listBusinesses(sandboxUrl: string): Promise<BusinessView[]> {
  const response = await fetch(`${sandboxUrl}/_sandbox/businesses`);
  if (!response.ok) throw new Error(`listing sandbox businesses failed: ${response.status}`);
  return (await response.json()) as BusinessView[];
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}
