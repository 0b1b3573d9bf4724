import { DEFAULT_AREA_LOOKUP_RESOURCE, DEFAULT_LOCATION_LOOKUP_RESOURCE } from '#functions/commons/config.ts';

/**
 * The environment the local runtime gives the connector's handlers: the same variable names the
 * stack sets (see `functions/commons/config.ts`), pointed at the sandbox, dynalite and the local
 * events server. Only loopback addresses appear here, which is why plain http passes the config's
 * "https, or http to 127.0.0.1" rule.
 */

export const LOCAL_DEFAULTS = {
  region: 'us-east-1',
  tableName: 'workforce-connector-local',
  busName: 'workforce-connector-local',
  inboundSource: 'partner.app',
  outboundSource: 'workforce.connector',
  partnerName: 'acme',
  token: 'sandbox-token',
  tokenSecretId: 'workforce-connector/sandbox-token',
  trialThresholdsDays: '7,3,1',
  hourBudgetType: 'budget_StaffHour',
} as const;

/** The fixed ports of `npm start -- --serve` (ARCHITECTURE.md "Off-AWS"). */
export const SERVE_PORTS = { sandbox: 8787, dynamo: 8000, events: 4010 } as const;

export interface LocalEndpoints {
  readonly sandboxUrl: string;
  readonly dynamoEndpoint: string;
  readonly eventsEndpoint: string;
  readonly secretsEndpoint: string;
  readonly tableName: string;
  readonly busName: string;
}

export interface LocalEnvironmentOverrides {
  readonly region?: string;
  readonly partnerName?: string;
  readonly inboundSource?: string;
  readonly outboundSource?: string;
  readonly tokenSecretId?: string;
  readonly trialThresholdsDays?: string;
  readonly logLevel?: string;
  /** '' disables the lookup after a lost location create answer. @default 'Company' */
  readonly locationLookupResource?: string;
  /** '' disables the lookup after a lost area create answer. @default 'OperationalUnit' */
  readonly areaLookupResource?: string;
}

export function localEnvironment(
  endpoints: LocalEndpoints,
  overrides: LocalEnvironmentOverrides = {},
): Record<string, string> {
  const sandboxUrl = endpoints.sandboxUrl.replace(/\/+$/, '');
  const region = overrides.region ?? LOCAL_DEFAULTS.region;
  return {
    TABLE_NAME: endpoints.tableName,
    EVENT_BUS_NAME: endpoints.busName,
    INBOUND_SOURCE: overrides.inboundSource ?? LOCAL_DEFAULTS.inboundSource,
    OUTBOUND_SOURCE: overrides.outboundSource ?? LOCAL_DEFAULTS.outboundSource,
    TOKEN_SECRET_ID: overrides.tokenSecretId ?? LOCAL_DEFAULTS.tokenSecretId,
    PARTNER_NAME: overrides.partnerName ?? LOCAL_DEFAULTS.partnerName,
    // The sandbox simulates the in-development regions under /regions/{uk,au} of the same server.
    PROVISIONING_URLS: JSON.stringify({
      US: sandboxUrl,
      UK: `${sandboxUrl}/regions/uk`,
      AU: `${sandboxUrl}/regions/au`,
    }),
    INSTALL_URL_TEMPLATE: `${sandboxUrl}/installs/{hostname}`,
    ALLOWED_HOSTNAME_SUFFIXES: '.sandbox.test',
    HOUR_BUDGET_TYPE: LOCAL_DEFAULTS.hourBudgetType,
    TRIAL_THRESHOLDS_DAYS: overrides.trialThresholdsDays ?? LOCAL_DEFAULTS.trialThresholdsDays,
    HTTP_TIMEOUT_MS: '5000',
    // The sandbox answers QUERY on these resources (sandbox/README.md).
    LOCATION_LOOKUP_RESOURCE: overrides.locationLookupResource ?? DEFAULT_LOCATION_LOOKUP_RESOURCE,
    AREA_LOOKUP_RESOURCE: overrides.areaLookupResource ?? DEFAULT_AREA_LOOKUP_RESOURCE,
    POWERTOOLS_SERVICE_NAME: 'workforce-connector',
    POWERTOOLS_METRICS_NAMESPACE: 'WorkforceConnector',
    // Local runs print a progress view; handler logs would drown it unless asked for.
    POWERTOOLS_LOG_LEVEL: overrides.logLevel ?? 'WARN',
    POWERTOOLS_DEV: 'true',
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    // Fake credentials: the SDK signs every request; the local servers never check signatures.
    AWS_ACCESS_KEY_ID: 'AKIALOCALRUNTIME0000',
    AWS_SECRET_ACCESS_KEY: 'local-runtime-secret-access-key',
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamoEndpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: endpoints.eventsEndpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoints.secretsEndpoint,
  };
}
