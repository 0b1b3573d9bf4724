import * as z from 'zod';
import { ConfigurationError } from '#functions/domain/errors.ts';
import { PARSED_ONCE, wholeNumberText } from '#functions/runtime/env-text.ts';
import { type ServiceAssumptions, serviceAssumptionsSchema } from '#functions/service/assumptions.ts';
import { type RequestBudgetSettings, requestBudgetSettingsSchema } from '#functions/store/request-budget.ts';

/**
 * Settings every function reads from its environment at cold start. `loadConfig()` is called at
 * module scope, so a missing or wrong variable kills the cold start with one message naming every
 * bad variable, instead of failing on the first message (and, worse, retrying it into the DLQ).
 * The infrastructure (`lib/`) and the local runtime (`local/`) set exactly these names.
 */

export const CONFIG_ENV_VARS = [
  'TABLE_NAME',
  'EVENT_BUS_NAME',
  'INBOUND_SOURCE',
  'OUTBOUND_SOURCE',
  'TOKEN_SECRET_ID',
  'PARTNER_NAME',
  'PROVISIONING_URLS',
  'INSTALL_URL_TEMPLATE',
  'ALLOWED_HOSTNAME_SUFFIXES',
  'HOUR_BUDGET_TYPE',
  'TRIAL_THRESHOLDS_DAYS',
  'DRIFT_CHECK_EVERY_HOURS',
  'HTTP_TIMEOUT_MS',
  'IDEMPOTENCY_TTL_SECONDS',
  'REPLAY_MARKER_TTL_SECONDS',
  'SERVICE_ASSUMPTIONS',
  'REQUEST_BUDGET',
  'METRICS_BULK_THRESHOLD',
  'REFERENCE_CACHE_MAX_AGE_SECONDS',
  'LOCATION_LOOKUP_RESOURCE',
  'AREA_LOOKUP_RESOURCE',
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'POWERTOOLS_LOG_LEVEL',
] as const;

export type ConfigEnvVar = (typeof CONFIG_ENV_VARS)[number];

export const REGIONS = ['US', 'UK', 'AU'] as const;

/**
 * How long countries and states read from an install are used before they are read again. The
 * spec lets callers cache these ids and refresh them from time to time; they change rarely.
 */
export const DEFAULT_REFERENCE_CACHE_MAX_AGE_SECONDS = 7 * 24 * 60 * 60;

/** The sandbox's resource names for locations and areas (the spec shows no path for either). */
export const DEFAULT_LOCATION_LOOKUP_RESOURCE = 'Company';
export const DEFAULT_AREA_LOOKUP_RESOURCE = 'OperationalUnit';
export type Region = (typeof REGIONS)[number];

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The token travels on every call, so plain HTTP is allowed only to the sandbox on this machine. */
function isSafeServiceUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '') return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

// Unset and empty are the same thing for an env var: infrastructure templates often emit "".
const optionalEnv = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

const requiredText = (description: string) =>
  optionalEnv.pipe(z.string({ error: `is required (${description})` }));

const positiveInt = (fallback: number, max: number) =>
  optionalEnv.pipe(
    wholeNumberText(max)
      .optional()
      .transform((value) => value ?? fallback),
  );

const serviceUrl = z.string().refine(isSafeServiceUrl, {
  error: 'must be an https URL (http only for 127.0.0.1/localhost)',
});

const provisioningUrlsSchema = z.strictObject({
  US: serviceUrl,
  UK: serviceUrl.optional(),
  AU: serviceUrl.optional(),
});

const provisioningUrls = optionalEnv.pipe(
  z
    .string({ error: 'is required (JSON object {"US": url, "UK"?: url, "AU"?: url})' })
    .transform((raw, ctx) => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
        return z.NEVER;
      }
    })
    .pipe(provisioningUrlsSchema),
);

const installUrlTemplate = optionalEnv.pipe(
  z
    .string()
    .optional()
    .transform((value) => value ?? 'https://{hostname}')
    .refine((value) => value.includes('{hostname}'), { error: 'must contain {hostname}' })
    .refine((value) => isSafeServiceUrl(value.replaceAll('{hostname}', 'install.example')), {
      error: 'must give an https URL (http only for 127.0.0.1/localhost) once {hostname} is filled in',
    }),
);

const hostnameSuffixes = optionalEnv.transform((value) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((suffix) => suffix.trim().toLowerCase())
        .filter((suffix) => suffix !== ''),
);

const trialThresholds = optionalEnv.pipe(
  z
    .string()
    .optional()
    .transform((value) => value ?? '7,3,1')
    .transform((value) => value.split(',').map((part) => part.trim()))
    .pipe(
      z
        .array(
          z
            .string()
            .regex(/^\d+$/, { error: 'must be a comma-separated list of whole days' })
            .transform(Number)
            .pipe(z.number().int().min(1, { error: 'days must be at least 1' }).max(365)),
        )
        .min(1),
    )
    // Thresholds are announced from the largest down; duplicates would announce twice.
    .transform((days) => [...new Set(days)].sort((a, b) => b - a)),
);

/**
 * A QUERY resource used to find out whether a create whose answer was lost was applied. The spec
 * names reading locations and areas without a path, so the resource is configurable: unset → the
 * default, set to the empty string → no lookup (an unknown outcome then fails the event).
 */
const lookupResource = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((value) => (value === undefined ? fallback : value.trim()))
    .pipe(
      z
        .string()
        .regex(/^([A-Za-z][A-Za-z0-9_]*)?$/, {
          error: 'must be a resource name (letters, digits, "_") or empty to disable the lookup',
        })
        .transform((value) => (value === '' ? null : value)),
    );

const logLevel = optionalEnv.pipe(
  z
    .string()
    .optional()
    .transform((value) => (value ?? 'INFO').toUpperCase())
    .pipe(z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'])),
);

const envSchema = z.object({
  TABLE_NAME: requiredText('DynamoDB table name'),
  EVENT_BUS_NAME: requiredText('EventBridge bus name or ARN'),
  INBOUND_SOURCE: optionalEnv.transform((value) => value ?? 'partner.app'),
  OUTBOUND_SOURCE: optionalEnv.transform((value) => value ?? 'workforce.connector'),
  TOKEN_SECRET_ID: requiredText('Secrets Manager secret name or ARN holding the bearer token'),
  PARTNER_NAME: optionalEnv.pipe(
    z
      .string({ error: 'is required (the partner name assigned by the service)' })
      .regex(/^[A-Za-z0-9._-]+$/, { error: 'may hold only letters, digits, ".", "_" and "-"' }),
  ),
  PROVISIONING_URLS: provisioningUrls,
  INSTALL_URL_TEMPLATE: installUrlTemplate,
  ALLOWED_HOSTNAME_SUFFIXES: hostnameSuffixes,
  HOUR_BUDGET_TYPE: optionalEnv.pipe(
    z
      .enum(['budget_StaffHour', 'budget_hour'], { error: 'must be budget_StaffHour or budget_hour' })
      .optional()
      .transform((value) => value ?? 'budget_StaffHour'),
  ),
  TRIAL_THRESHOLDS_DAYS: trialThresholds,
  // How often the drift watch compares every tracked business with the service (store/drift-schedule.ts).
  DRIFT_CHECK_EVERY_HOURS: positiveInt(24, 24 * 31),
  HTTP_TIMEOUT_MS: positiveInt(5000, 900_000),
  IDEMPOTENCY_TTL_SECONDS: positiveInt(86_400, 31_536_000),
  // JSON of the shared request budget (store/request-budget.ts); unset: the defaults; "off": none.
  REQUEST_BUDGET: optionalEnv.pipe(
    z
      .string()
      .optional()
      .transform((raw, ctx) => {
        if (raw === undefined) return {};
        if (raw === 'off') return null;
        try {
          return JSON.parse(raw) as unknown;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'is not valid JSON (or "off")' });
          return z.NEVER;
        }
      })
      .pipe(requestBudgetSettingsSchema.nullable()),
  ),
  // JSON of the open behaviours the client assumes (service/assumptions.ts); unset: the defaults.
  SERVICE_ASSUMPTIONS: optionalEnv.pipe(
    z
      .string()
      .optional()
      .transform((raw, ctx) => {
        if (raw === undefined) return {};
        try {
          return JSON.parse(raw) as unknown;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
          return z.NEVER;
        }
      })
      .pipe(serviceAssumptionsSchema),
  ),
  // Unset: no archive to replay from, so no markers (store/applied-events.ts).
  REPLAY_MARKER_TTL_SECONDS: optionalEnv.pipe(
    z
      .string()
      .regex(/^\d+$/, { error: 'must be a whole number of seconds' })
      .transform(Number)
      .pipe(z.number().int().min(1).max(315_360_000, { error: 'must be at most 10 years' }))
      .optional(),
  ),
  METRICS_BULK_THRESHOLD: positiveInt(31, 366),
  REFERENCE_CACHE_MAX_AGE_SECONDS: positiveInt(DEFAULT_REFERENCE_CACHE_MAX_AGE_SECONDS, 31_536_000),
  LOCATION_LOOKUP_RESOURCE: lookupResource(DEFAULT_LOCATION_LOOKUP_RESOURCE),
  AREA_LOOKUP_RESOURCE: lookupResource(DEFAULT_AREA_LOOKUP_RESOURCE),
  POWERTOOLS_SERVICE_NAME: optionalEnv.transform((value) => value ?? 'workforce-connector'),
  POWERTOOLS_METRICS_NAMESPACE: optionalEnv.transform((value) => value ?? 'WorkforceConnector'),
  POWERTOOLS_LOG_LEVEL: logLevel,
});

export type ConnectorConfig = {
  tableName: string;
  eventBusName: string;
  inboundSource: string;
  outboundSource: string;
  tokenSecretId: string;
  partnerName: string;
  provisioningUrls: { US: string; UK?: string; AU?: string };
  installUrlTemplate: string;
  allowedHostnameSuffixes?: string[];
  hourBudgetType: 'budget_StaffHour' | 'budget_hour';
  trialThresholdsDays: number[];
  /** Every tracked business is compared with the service this often (the drift watch). */
  driftCheckEveryHours: number;
  httpTimeoutMs: number;
  idempotencyTtlSeconds: number;
  /** What the client assumes where the spec is silent (service/assumptions.ts). */
  serviceAssumptions: ServiceAssumptions;
  /** The shared request budget every service call takes from; null: none (calls go unmetered). */
  requestBudget: RequestBudgetSettings | null;
  /** How long a marker of an applied event stays (the archive's retention); unset: no markers. */
  replayMarkerTtlSeconds?: number;
  metricsBulkThreshold: number;
  /** Age after which cached countries and states of an install are read from the service again. */
  referenceCacheMaxAgeSeconds: number;
  /** QUERY resource holding locations, matched on CompanyName (+ Code); null: no lookup. */
  locationLookupResource: string | null;
  /** QUERY resource holding areas, matched on Company + OperationalUnitName; null: no lookup. */
  areaLookupResource: string | null;
  serviceName: string;
  metricsNamespace: string;
  logLevel: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'CRITICAL' | 'SILENT';
};

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const byVariable = new Map<string, string[]>();
  for (const issue of issues) {
    const [variable, ...rest] = issue.path.map((segment) =>
      typeof segment === 'number' ? `item ${segment + 1}` : String(segment),
    );
    const name = variable ?? '(environment)';
    const where = rest.length > 0 ? `${rest.join('.')}: ` : '';
    const messages = byVariable.get(name) ?? [];
    messages.push(where + issue.message);
    byVariable.set(name, messages);
  }
  return [...byVariable.entries()].map(([name, messages]) => `${name} ${messages.join('; ')}`).join('\n  - ');
}

/**
 * Reads and checks every setting. Throws a `ConfigurationError` listing each bad variable; values
 * are never echoed, since a misplaced secret in the wrong variable must not reach the logs.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ConnectorConfig {
  const picked = Object.fromEntries(CONFIG_ENV_VARS.map((name) => [name, env[name]]));
  const parsed = envSchema.safeParse(picked, PARSED_ONCE);
  if (!parsed.success) {
    throw new ConfigurationError(
      `invalid function configuration, cold start aborted:\n  - ${describeIssues(parsed.error.issues)}`,
    );
  }
  const vars = parsed.data;
  const provisioning: ConnectorConfig['provisioningUrls'] = { US: vars.PROVISIONING_URLS.US };
  if (vars.PROVISIONING_URLS.UK !== undefined) provisioning.UK = vars.PROVISIONING_URLS.UK;
  if (vars.PROVISIONING_URLS.AU !== undefined) provisioning.AU = vars.PROVISIONING_URLS.AU;
  const config: ConnectorConfig = {
    tableName: vars.TABLE_NAME,
    eventBusName: vars.EVENT_BUS_NAME,
    inboundSource: vars.INBOUND_SOURCE,
    outboundSource: vars.OUTBOUND_SOURCE,
    tokenSecretId: vars.TOKEN_SECRET_ID,
    partnerName: vars.PARTNER_NAME,
    provisioningUrls: provisioning,
    installUrlTemplate: vars.INSTALL_URL_TEMPLATE,
    hourBudgetType: vars.HOUR_BUDGET_TYPE,
    trialThresholdsDays: vars.TRIAL_THRESHOLDS_DAYS,
    driftCheckEveryHours: vars.DRIFT_CHECK_EVERY_HOURS,
    httpTimeoutMs: vars.HTTP_TIMEOUT_MS,
    idempotencyTtlSeconds: vars.IDEMPOTENCY_TTL_SECONDS,
    serviceAssumptions: vars.SERVICE_ASSUMPTIONS,
    requestBudget: vars.REQUEST_BUDGET,
    metricsBulkThreshold: vars.METRICS_BULK_THRESHOLD,
    referenceCacheMaxAgeSeconds: vars.REFERENCE_CACHE_MAX_AGE_SECONDS,
    locationLookupResource: vars.LOCATION_LOOKUP_RESOURCE,
    areaLookupResource: vars.AREA_LOOKUP_RESOURCE,
    serviceName: vars.POWERTOOLS_SERVICE_NAME,
    metricsNamespace: vars.POWERTOOLS_METRICS_NAMESPACE,
    logLevel: vars.POWERTOOLS_LOG_LEVEL,
  };
  if (vars.REPLAY_MARKER_TTL_SECONDS !== undefined)
    config.replayMarkerTtlSeconds = vars.REPLAY_MARKER_TTL_SECONDS;
  if (vars.ALLOWED_HOSTNAME_SUFFIXES !== undefined && vars.ALLOWED_HOSTNAME_SUFFIXES.length > 0) {
    config.allowedHostnameSuffixes = vars.ALLOWED_HOSTNAME_SUFFIXES;
  }
  return Object.freeze(config);
}
