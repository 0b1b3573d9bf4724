import { GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  createServiceClient,
  type ServiceClient,
  type ServiceClientConfig,
} from '#functions/service/client.ts';
import type { SignupRequest } from '#functions/service/provisioning.ts';
import { requestBudgetKey } from '#functions/store/keys.ts';
import {
  createRequestBudget,
  LOCAL_REQUEST_BUDGET,
  type RequestBudgetSettings,
} from '#functions/store/request-budget.ts';
import { type RunningSandbox, startSandbox } from '#sandbox/server.ts';
import type { RequestLogEntry } from '#sandbox/state.ts';
import {
  createTestStore,
  type DynaliteServer,
  startDynalite,
  type TestStore,
} from '#test/support/dynalite.ts';

/**
 * Starts the sandbox on a free port, and dynalite with the connector's table for the shared
 * request budget, and builds clients pointed at the sandbox. Every client takes from the budget
 * in the table before each attempt, as the functions do (chaos and the integration tests run with
 * it), at the local runtime's settings unless the test passes others; each client has its own
 * budget object, as each Lambda does, and they meet in the table.
 */

export const SANDBOX_TOKEN = 'sandbox-token';

/** What the budgets of the harness's clients did, summed over every client. */
export interface BudgetActivity {
  /** Calls that took from the budget (one per attempt sent, or refused with THROTTLED). */
  takes: number;
  /** DynamoDB requests those takes made. */
  tableRequests: number;
  /** The waits, in ms, of the takes that waited for their slot (or for a pause). */
  waitsMs: number[];
}

export interface HarnessOptions {
  /** @default LOCAL_REQUEST_BUDGET */
  budget?: RequestBudgetSettings;
}

export interface Harness {
  sandbox: RunningSandbox;
  /** The table the request budget lives in. */
  store: TestStore;
  readonly budget: BudgetActivity;
  client(overrides?: Partial<ServiceClientConfig>): ServiceClient;
  control<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** The sandbox's request log: every answer, with its wall-clock time (`wallMs`). */
  requests(): Promise<RequestLogEntry[]>;
  /** The request budget the harness's clients take from. */
  readonly budgetSettings: RequestBudgetSettings;
  /** A bucket's `tat` as stored in the table (`root#US`, `install#<hostname>`); undefined: no bucket yet. */
  budgetTat(bucket: string): Promise<number | undefined>;
  close(): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dynamo: DynaliteServer = await startDynalite();
  const store = await createTestStore(dynamo.endpoint);
  // The clients here are given all three provisioning roots, so the sandbox runs them all (the
  // spec runs only US; a root that is not running is tested in test/sandbox/spec-readings.test.ts).
  const sandbox = await startSandbox({ port: 0, regions: ['US', 'UK', 'AU'] });
  const settings: RequestBudgetSettings = options.budget ?? { ...LOCAL_REQUEST_BUDGET };
  const budget: BudgetActivity = { takes: 0, tableRequests: 0, waitsMs: [] };
  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { 'content-type': 'application/json' };
    }
    const response = await fetch(`${sandbox.url}${path}`, init);
    if (!response.ok) throw new Error(`control ${method} ${path} answered ${response.status}`);
    return (await response.json()) as T;
  };
  return {
    sandbox,
    store,
    budget,
    client: (overrides = {}) =>
      createServiceClient({
        partnerName: 'acme',
        provisioningUrls: { US: sandbox.url },
        installUrlTemplate: `${sandbox.url}/installs/{hostname}`,
        token: async () => SANDBOX_TOKEN,
        timeoutMs: 2000,
        sleep: async () => undefined,
        budget: createRequestBudget({
          store,
          settings,
          onTake: ({ requests, waitedMs }) => {
            budget.takes += 1;
            budget.tableRequests += requests;
            if (waitedMs > 0) budget.waitsMs.push(waitedMs);
          },
        }),
        ...overrides,
      }),
    control,
    requests: () => control('GET', '/_sandbox/requests'),
    budgetSettings: settings,
    budgetTat: async (bucket) => {
      const { Item } = await store.doc.send(
        new GetCommand({ TableName: store.tableName, Key: requestBudgetKey(bucket), ConsistentRead: true }),
      );
      return Item?.['tat'] === undefined ? undefined : Number(Item['tat']);
    },
    close: async () => {
      await sandbox.close();
      store.client.destroy();
      await dynamo.close();
    },
  };
}

let counter = 0;

/** A signup whose e-mail and externalId are unique within the test run. */
export function uniqueSignup(label: string, extra: Partial<SignupRequest> = {}): SignupRequest {
  counter += 1;
  const id = `${label}-${process.pid}-${counter}`;
  return {
    userData: {
      firstName: 'Ana',
      lastName: 'Ng',
      email: `${id}@example.test`,
      mobileNumber: '+1 555 010 0001',
    },
    businessData: { externalId: `acct-${id}`, portfolioName: `Shop ${label}`, estimatedEmployeeCount: '12' },
    ...extra,
  };
}
