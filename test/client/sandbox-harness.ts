import {
  createServiceClient,
  type ServiceClient,
  type ServiceClientConfig,
} from '#functions/commons/service/client.ts';
import type { SignupRequest } from '#functions/commons/service/provisioning.ts';
import { type RunningSandbox, startSandbox } from '#sandbox/server.ts';

/** Starts the sandbox on a free port and builds clients pointed at it. */

export const SANDBOX_TOKEN = 'sandbox-token';

export interface Harness {
  sandbox: RunningSandbox;
  client(overrides?: Partial<ServiceClientConfig>): ServiceClient;
  control<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  requests(): Promise<Array<{ method: string; path: string; status: number }>>;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const sandbox = await startSandbox({ port: 0 });
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
    client: (overrides = {}) =>
      createServiceClient({
        partnerName: 'acme',
        provisioningUrls: { US: sandbox.url },
        installUrlTemplate: `${sandbox.url}/installs/{hostname}`,
        token: async () => SANDBOX_TOKEN,
        timeoutMs: 2000,
        sleep: async () => undefined,
        ...overrides,
      }),
    control,
    requests: () => control('GET', '/_sandbox/requests'),
    close: () => sandbox.close(),
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
