import { DEFAULT_INBOUND_SOURCE, DEFAULT_OUTBOUND_SOURCE } from '#functions/contracts/source.ts';
import { DEFAULT_AREA_LOOKUP_RESOURCE, DEFAULT_LOCATION_LOOKUP_RESOURCE } from '#functions/runtime/config.ts';
import { DEFAULT_METRICS_NAMESPACE } from '#functions/runtime/metric-names.ts';
import { serviceAssumptionsSchema } from '#functions/service/assumptions.ts';
import { requestBudgetSettingsSchema } from '#functions/store/request-budget.ts';
import type { WorkforceConnectorProps } from './workforce-connector.ts';

/**
 * The functions' settings as env vars, in the formats `functions/runtime/config.ts` parses.
 * Resource names (table, bus, secret) are added by the binders.
 */
export function connectorEnvironment(
  props: Omit<WorkforceConnectorProps, 'runbookBaseUrl'>,
): Record<string, string> {
  const env: Record<string, string> = {
    PARTNER_NAME: props.partnerName,
    PROVISIONING_URLS: JSON.stringify(props.provisioningUrls),
    INSTALL_URL_TEMPLATE: props.installUrlTemplate ?? 'https://{hostname}',
    INBOUND_SOURCE: props.inboundSource ?? DEFAULT_INBOUND_SOURCE,
    OUTBOUND_SOURCE: props.outboundSource ?? DEFAULT_OUTBOUND_SOURCE,
    TRIAL_THRESHOLDS_DAYS: (props.trialThresholdsDays ?? [7, 3, 1]).join(','),
    DRIFT_CHECK_EVERY_HOURS: String(props.driftCheckEveryHours ?? 24),
    POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE,
    POWERTOOLS_LOG_LEVEL: props.logLevel ?? 'INFO',
    // Always set: the empty string (lookup disabled) must reach the function as such.
    LOCATION_LOOKUP_RESOURCE: props.locationLookupResource ?? DEFAULT_LOCATION_LOOKUP_RESOURCE,
    AREA_LOOKUP_RESOURCE: props.areaLookupResource ?? DEFAULT_AREA_LOOKUP_RESOURCE,
  };
  if (props.allowedHostnameSuffixes.length === 0) {
    throw new Error('WorkforceConnector: allowedHostnameSuffixes needs at least one DNS suffix');
  }
  env.ALLOWED_HOSTNAME_SUFFIXES = props.allowedHostnameSuffixes.join(',');
  if (props.hourBudgetType) env.HOUR_BUDGET_TYPE = props.hourBudgetType;
  if (props.httpTimeoutMs !== undefined) env.HTTP_TIMEOUT_MS = String(props.httpTimeoutMs);
  if (props.serviceAssumptions !== undefined) {
    // Checked here too, so a construct user's mistake fails the synth, not a cold start. Only the
    // fields that differ from their defaults are passed; the function fills in the defaults, so the
    // variable stays small inside Lambda's 4 KB of environment ("Lambda quotas").
    const parsed: Record<string, unknown> = serviceAssumptionsSchema.parse(props.serviceAssumptions);
    const defaults: Record<string, unknown> = serviceAssumptionsSchema.parse({});
    const changed = Object.entries(parsed).filter(
      ([key, value]) => JSON.stringify(value) !== JSON.stringify(defaults[key]),
    );
    env.SERVICE_ASSUMPTIONS = JSON.stringify(Object.fromEntries(changed));
  }
  if (props.requestBudget !== undefined) {
    // Checked here too, so a construct user's mistake fails the synth, not a cold start.
    env.REQUEST_BUDGET =
      props.requestBudget === 'off'
        ? 'off'
        : JSON.stringify(requestBudgetSettingsSchema.parse(props.requestBudget));
  }
  if (props.idempotencyTtlSeconds !== undefined)
    env.IDEMPOTENCY_TTL_SECONDS = String(props.idempotencyTtlSeconds);
  if (props.metricsBulkThreshold !== undefined)
    env.METRICS_BULK_THRESHOLD = String(props.metricsBulkThreshold);
  if (props.referenceCacheMaxAgeSeconds !== undefined)
    env.REFERENCE_CACHE_MAX_AGE_SECONDS = String(props.referenceCacheMaxAgeSeconds);
  return env;
}
