import * as z from 'zod';
import { DEFAULT_INBOUND_SOURCE, DEFAULT_OUTBOUND_SOURCE } from '#functions/contracts/source.ts';
import { EnvironmentReader } from '#functions/runtime/environment-reader.ts';
import { DEFAULT_METRICS_NAMESPACE, DEFAULT_SERVICE_NAME } from '#functions/runtime/metric-names.ts';
import {
  DEFAULT_INSTALL_URL_TEMPLATE,
  installTemplateProblem,
  serviceRootProblem,
} from '#functions/service/addresses.ts';
import {
  defaultServiceAssumptions,
  type ServiceAssumptions,
  serviceAssumptionsSchema,
} from '#functions/service/assumptions.ts';
import {
  defaultRequestBudgetSettings,
  type RequestBudgetSettings,
  requestBudgetSettingsSchema,
} from '#functions/store/request-budget.ts';

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

/**
 * How long countries and states read from an install are used before they are read again. The
 * spec lets callers cache these ids and refresh them from time to time; they change rarely.
 */
export const DEFAULT_REFERENCE_CACHE_MAX_AGE_SECONDS = 7 * 24 * 60 * 60;

/** The sandbox's resource names for locations and areas (the spec shows no path for either). */
export const DEFAULT_LOCATION_LOOKUP_RESOURCE = 'Company';
export const DEFAULT_AREA_LOOKUP_RESOURCE = 'OperationalUnit';

const PROVISIONING_URLS_HELP = 'JSON object {"US": url, "UK"?: url, "AU"?: url}';

/** A provisioning root, checked by the functions' one rule for service roots (service/addresses.ts). */
const serviceUrl = z.string().check((context) => {
  const problem = serviceRootProblem(context.value);
  if (problem !== undefined) context.issues.push({ code: 'custom', message: problem, input: context.value });
});

/** The provisioning roots: a small JSON document, checked by its schema. */
const provisioningUrlsSchema = z.strictObject({
  US: serviceUrl,
  UK: serviceUrl.optional(),
  AU: serviceUrl.optional(),
});

const PARTNER_NAME_SHAPE = /^[A-Za-z0-9._-]+$/;
const RESOURCE_NAME = /^([A-Za-z][A-Za-z0-9_]*)?$/;
const HOUR_BUDGET_TYPES = ['budget_StaffHour', 'budget_hour'] as const;
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;

/**
 * A JSON document in `name`, checked by `schema`; each issue is named by its path in the document.
 * undefined when it is not valid (the reader then has a problem).
 */
function jsonSetting<T extends z.ZodType>(
  reader: EnvironmentReader,
  name: string,
  text: string,
  schema: T,
  notJson = 'is not valid JSON',
): z.output<T> | undefined {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    reader.problem(name, notJson);
    return undefined;
  }
  const parsed = schema.safeParse(document);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const where = issue.path
      .map((segment) => (typeof segment === 'number' ? `item ${segment + 1}` : String(segment)))
      .join('.');
    reader.problem(name, issue.message, where === '' ? undefined : where);
  }
  return undefined;
}

const TRIAL_DAY_RULES = { max: 365, unit: 'days' };

/** TRIAL_THRESHOLDS_DAYS: whole days from 1 to 365, announced from the largest down, once each. */
function trialThresholds(reader: EnvironmentReader, name: string): number[] {
  const parts = (reader.text(name) ?? '7,3,1').split(',').map((part) => part.trim());
  const days: number[] = [];
  for (const [index, part] of parts.entries()) {
    const day = reader.wholeNumberIn(name, part, TRIAL_DAY_RULES, `item ${index + 1}`);
    if (day !== undefined) days.push(day);
  }
  // Thresholds are announced from the largest down; duplicates would announce twice.
  return [...new Set(days)].sort((a, b) => b - a);
}

/**
 * A QUERY resource used to find out whether a create whose answer was lost was applied. The spec
 * names reading locations and areas without a path, so the resource is configurable: unset → the
 * default, set to the empty string → no lookup (an unknown outcome then fails the event).
 */
function lookupResource(reader: EnvironmentReader, name: string, fallback: string): string | null {
  const value = reader.raw(name) ?? fallback;
  if (!RESOURCE_NAME.test(value)) {
    reader.problem(name, 'must be a resource name (letters, digits, "_") or empty to disable the lookup');
  }
  return value === '' ? null : value;
}

function installUrlTemplate(reader: EnvironmentReader, name: string): string {
  const template = reader.text(name) ?? DEFAULT_INSTALL_URL_TEMPLATE;
  const problem = installTemplateProblem(template);
  if (problem !== undefined) reader.problem(name, problem);
  return template;
}

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

/**
 * Reads and checks every setting. Throws a `ConfigurationError` listing each bad variable; values
 * are never echoed, since a misplaced secret in the wrong variable must not reach the logs.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ConnectorConfig {
  const reader = new EnvironmentReader(env);
  const tableName = reader.required('TABLE_NAME', 'DynamoDB table name');
  const eventBusName = reader.required('EVENT_BUS_NAME', 'EventBridge bus name or ARN');
  const inboundSource = reader.text('INBOUND_SOURCE') ?? DEFAULT_INBOUND_SOURCE;
  const outboundSource = reader.text('OUTBOUND_SOURCE') ?? DEFAULT_OUTBOUND_SOURCE;
  const tokenSecretId = reader.required(
    'TOKEN_SECRET_ID',
    'Secrets Manager secret name or ARN holding the bearer token',
  );
  const partnerName = reader.required('PARTNER_NAME', 'the partner name assigned by the service');
  if (partnerName !== '' && !PARTNER_NAME_SHAPE.test(partnerName)) {
    reader.problem('PARTNER_NAME', 'may hold only letters, digits, ".", "_" and "-"');
  }
  const provisioningText = reader.required('PROVISIONING_URLS', PROVISIONING_URLS_HELP);
  const provisioningUrls =
    provisioningText === ''
      ? undefined
      : jsonSetting(reader, 'PROVISIONING_URLS', provisioningText, provisioningUrlsSchema);
  const installUrl = installUrlTemplate(reader, 'INSTALL_URL_TEMPLATE');
  const allowedHostnameSuffixes = reader
    .list('ALLOWED_HOSTNAME_SUFFIXES')
    .map((suffix) => suffix.toLowerCase());
  const hourBudgetType = reader.oneOf(
    'HOUR_BUDGET_TYPE',
    HOUR_BUDGET_TYPES,
    reader.text('HOUR_BUDGET_TYPE') ?? 'budget_StaffHour',
  );
  const trialThresholdsDays = trialThresholds(reader, 'TRIAL_THRESHOLDS_DAYS');
  // How often the drift watch compares every tracked business with the service (store/drift-schedule.ts).
  const driftCheckEveryHours = reader.wholeNumber('DRIFT_CHECK_EVERY_HOURS', 24, 24 * 31);
  const httpTimeoutMs = reader.wholeNumber('HTTP_TIMEOUT_MS', 5000, 900_000);
  const idempotencyTtlSeconds = reader.wholeNumber('IDEMPOTENCY_TTL_SECONDS', 86_400, 31_536_000);
  // JSON of the shared request budget (store/request-budget.ts); unset: the defaults; "off": none.
  const budgetText = reader.text('REQUEST_BUDGET');
  const requestBudget: RequestBudgetSettings | null | undefined =
    budgetText === undefined
      ? defaultRequestBudgetSettings()
      : budgetText === 'off'
        ? null
        : // JSON null is "none" too, as "off" is.
          jsonSetting(
            reader,
            'REQUEST_BUDGET',
            budgetText,
            requestBudgetSettingsSchema.nullable(),
            'is not valid JSON (or "off")',
          );
  // JSON of the open behaviours the client assumes (service/assumptions.ts); unset: the defaults.
  const assumptionsText = reader.text('SERVICE_ASSUMPTIONS');
  const serviceAssumptions =
    assumptionsText === undefined
      ? defaultServiceAssumptions
      : jsonSetting(reader, 'SERVICE_ASSUMPTIONS', assumptionsText, serviceAssumptionsSchema);
  // Unset: no archive to replay from, so no markers (store/applied-events.ts).
  const markerText = reader.text('REPLAY_MARKER_TTL_SECONDS');
  const replayMarkerTtlSeconds =
    markerText === undefined
      ? undefined
      : // At most 10 years.
        reader.wholeNumberIn('REPLAY_MARKER_TTL_SECONDS', markerText, { max: 315_360_000, unit: 'seconds' });
  const metricsBulkThreshold = reader.wholeNumber('METRICS_BULK_THRESHOLD', 31, 366);
  const referenceCacheMaxAgeSeconds = reader.wholeNumber(
    'REFERENCE_CACHE_MAX_AGE_SECONDS',
    DEFAULT_REFERENCE_CACHE_MAX_AGE_SECONDS,
    31_536_000,
  );
  const locationLookupResource = lookupResource(
    reader,
    'LOCATION_LOOKUP_RESOURCE',
    DEFAULT_LOCATION_LOOKUP_RESOURCE,
  );
  const areaLookupResource = lookupResource(reader, 'AREA_LOOKUP_RESOURCE', DEFAULT_AREA_LOOKUP_RESOURCE);
  const serviceName = reader.text('POWERTOOLS_SERVICE_NAME') ?? DEFAULT_SERVICE_NAME;
  const metricsNamespace = reader.text('POWERTOOLS_METRICS_NAMESPACE') ?? DEFAULT_METRICS_NAMESPACE;
  const logLevel = reader.oneOf(
    'POWERTOOLS_LOG_LEVEL',
    LOG_LEVELS,
    (reader.text('POWERTOOLS_LOG_LEVEL') ?? 'INFO').toUpperCase(),
  );

  reader.throwIfBad('function configuration');
  // Each undefined below came with a problem, so throwIfBad has thrown; this narrows the types.
  if (
    provisioningUrls === undefined ||
    requestBudget === undefined ||
    serviceAssumptions === undefined ||
    hourBudgetType === undefined ||
    logLevel === undefined
  ) {
    throw new Error('unreachable: a setting without a value had no problem recorded');
  }
  const provisioning: ConnectorConfig['provisioningUrls'] = { US: provisioningUrls.US };
  if (provisioningUrls.UK !== undefined) provisioning.UK = provisioningUrls.UK;
  if (provisioningUrls.AU !== undefined) provisioning.AU = provisioningUrls.AU;
  const config: ConnectorConfig = {
    tableName,
    eventBusName,
    inboundSource,
    outboundSource,
    tokenSecretId,
    partnerName,
    provisioningUrls: provisioning,
    installUrlTemplate: installUrl,
    hourBudgetType,
    trialThresholdsDays,
    driftCheckEveryHours,
    httpTimeoutMs,
    idempotencyTtlSeconds,
    serviceAssumptions,
    requestBudget,
    metricsBulkThreshold,
    referenceCacheMaxAgeSeconds,
    locationLookupResource,
    areaLookupResource,
    serviceName,
    metricsNamespace,
    logLevel,
  };
  if (replayMarkerTtlSeconds !== undefined) config.replayMarkerTtlSeconds = replayMarkerTtlSeconds;
  if (allowedHostnameSuffixes.length > 0) {
    config.allowedHostnameSuffixes = allowedHostnameSuffixes;
  }
  return Object.freeze(config);
}
