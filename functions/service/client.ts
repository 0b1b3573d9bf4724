import { ConfigurationError } from '#functions/domain/errors.ts';
import { createAddresses, type Region } from './addresses.ts';
import type { UncodedStatusReadings } from './assumptions.ts';
import {
  createHttpClient,
  type RequestBudget,
  type RequestInfo,
  type RetryPolicy,
  type ServiceLogger,
} from './http.ts';
import { createInstallClient, type InstallClient, type InstallClientOptions } from './install.ts';
import {
  createProvisioningClient,
  type ProvisioningClient,
  type SignupDuplicateRejections,
} from './provisioning.ts';
import type { HourBudgetType } from './records/metrics.ts';

/**
 * The connector's typed client of the service: one module for the external system.
 * Nobody else builds service URLs or sends the token.
 */

export interface ServiceClientConfig {
  /** Name the service assigned to the partner's integration (`{partnername}` in provisioning paths). */
  partnerName: string;
  /** Provisioning root per region; US is required (no production URL is built in). */
  provisioningUrls: Partial<Record<Region, string>>;
  /** Install base URL with `{hostname}`. @default 'https://{hostname}' */
  installUrlTemplate?: string;
  /** Only hostnames under these domains are called. @default [] (any plain DNS name) */
  allowedHostnameSuffixes?: string[];
  /** Bearer token, fetched lazily before each call (back it with Secrets Manager + a cache). */
  token: () => Promise<string>;
  /** Called when the service refuses the token: drop the cached copy. @default none */
  onTokenRejected?: () => void;
  /** Per-attempt timeout covering connect + response. @default 5000 */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Hour budget spelling sent to metrics. @default 'budget_StaffHour' */
  hourBudgetType?: HourBudgetType;
  /** Follow-up signup rejections that prove the first attempt committed. */
  signupDuplicateRejections?: SignupDuplicateRejections;
  /** How 401/403/404 without a service code are read (serviceAssumptions). @default the assumptions' defaults */
  uncodedStatusReadings?: UncodedStatusReadings;
  /** Id field names and pay-rate resolution settings of the install API. */
  install?: Omit<InstallClientOptions, 'hourBudgetType'>;
  logger?: ServiceLogger;
  onRequest?: (info: RequestInfo) => void;
  /** Test seams: deterministic jitter and instant sleeps. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** The shared request budget every attempt takes from (store/request-budget.ts). @default none */
  budget?: RequestBudget;
}

export interface ServiceClient {
  provisioning: ProvisioningClient;
  /** A client bound to one install; refuses a hostname that is not a plain DNS name. */
  install(hostname: string): InstallClient;
  /** Attempts and retries made since the client was created (for metrics). */
  readonly stats: { readonly requests: number; readonly retries: number };
}

export function createServiceClient(config: ServiceClientConfig): ServiceClient {
  if (typeof config.token !== 'function')
    throw new ConfigurationError('token must be a function returning the token');
  if (config.timeoutMs !== undefined && !(config.timeoutMs > 0)) {
    throw new ConfigurationError('timeoutMs must be a positive number of milliseconds');
  }
  if (
    config.retry?.maxAttempts !== undefined &&
    !(Number.isInteger(config.retry.maxAttempts) && config.retry.maxAttempts >= 1)
  ) {
    throw new ConfigurationError('retry.maxAttempts must be an integer >= 1');
  }
  const addresses = createAddresses({
    partnerName: config.partnerName,
    provisioningUrls: config.provisioningUrls,
    installUrlTemplate: config.installUrlTemplate,
    allowedHostnameSuffixes: config.allowedHostnameSuffixes,
  });
  const http = createHttpClient({
    token: config.token,
    ...(config.onTokenRejected ? { onTokenRejected: config.onTokenRejected } : {}),
    timeoutMs: config.timeoutMs,
    retry: config.retry,
    logger: config.logger,
    onRequest: config.onRequest,
    random: config.random,
    sleep: config.sleep,
    ...(config.budget ? { budget: config.budget } : {}),
    ...(config.uncodedStatusReadings ? { uncodedStatusReadings: config.uncodedStatusReadings } : {}),
  });
  const installOptions: InstallClientOptions = { ...config.install, hourBudgetType: config.hourBudgetType };

  return {
    provisioning: createProvisioningClient({
      http,
      addresses,
      signupDuplicateRejections: config.signupDuplicateRejections,
    }),
    install: (hostname) => createInstallClient(hostname, { http, addresses, options: installOptions }),
    get stats() {
      return { ...http.stats };
    },
  };
}
