import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { EnvironmentReader } from './environment-reader.ts';
import {
  ConnectorMetric,
  DEFAULT_METRICS_NAMESPACE,
  DEFAULT_SERVICE_NAME,
  MetricName,
  syncFailedClass,
} from './metric-names.ts';

/**
 * Module-scope Logger and Metrics shared by every handler of the connector, plus the redaction
 * rule that keeps the bearer token and personal data (owner e-mail, mobile number) out of logs
 * even when a whole request, event or error object is logged.
 */

export const REDACTED = '[REDACTED]';

/** Keys whose values are secrets or personal data whatever they hold (compared case-insensitively, without `_`/`-`). */
const SENSITIVE_KEYS = new Set([
  'authorization',
  'proxyauthorization',
  'token',
  'accesstoken',
  'bearertoken',
  'secret',
  'secretstring',
  'secretbinary',
  'password',
  'email',
  'emailaddress',
  'mobilenumber',
  'mobile',
  'phone',
  'phonenumber',
  'firstname',
  'lastname',
]);

const EMAIL_PATTERN = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
const BEARER_PATTERN = /\b(Bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi;
// International-format phone numbers ("+61 412 345 678"); bare digit strings are left alone because
// account ids, employee ids and timestamps look the same.
const PHONE_PATTERN = /\+\d[\d\s-]{6,18}\d/g;

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, '');
}

export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEYS.has(normalizeKey(key));
}

/** Masks e-mail addresses, bearer tokens and international phone numbers inside free text. */
export function redactText(text: string): string {
  return text
    .replace(BEARER_PATTERN, `$1 ${REDACTED}`)
    .replace(EMAIL_PATTERN, REDACTED)
    .replace(PHONE_PATTERN, REDACTED);
}

/**
 * JSON replacer applied by the Logger to every key of every log line (JSON.stringify walks nested
 * objects, arrays and formatted errors through it), so nothing has to be cleaned before logging.
 */
export function redactingReplacer(key: string, value: unknown): unknown {
  if (key !== '' && isSensitiveKey(key) && value !== null && value !== undefined && value !== '') {
    return REDACTED;
  }
  if (typeof value === 'string') return redactText(value);
  // Headers objects are not plain objects: JSON.stringify would print them as {}, hiding nothing
  // useful, but a Map-like with an authorization entry must never be expanded by a future formatter.
  if (value instanceof Headers) {
    const safe: Record<string, string> = {};
    value.forEach((headerValue, name) => {
      safe[name] = isSensitiveKey(name) ? REDACTED : redactText(headerValue);
    });
    return safe;
  }
  return value;
}

function envOrUndefined(name: string): string | undefined {
  return new EnvironmentReader(process.env).text(name);
}

/** Powertools reads POWERTOOLS_SERVICE_NAME / POWERTOOLS_LOG_LEVEL itself; the defaults only fill gaps. */
export function createLogger(): Logger {
  return new Logger({
    ...(envOrUndefined('POWERTOOLS_SERVICE_NAME') ? {} : { serviceName: DEFAULT_SERVICE_NAME }),
    jsonReplacerFn: redactingReplacer,
  });
}

/**
 * Powertools Metrics warns "No application metrics to publish" after every invocation that recorded
 * none (a refusal check of a routable event, a watch run with nothing due): normal here, so that one
 * notice is dropped; anything else Metrics has to say goes to the connector's logger.
 */
const NO_METRICS_NOTICE = 'No application metrics to publish';

function metricsNotices(to: Logger) {
  const forward =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...content: unknown[]): void => {
      const [first, ...rest] = content;
      const message = String(first ?? '');
      if (level === 'warn' && message.startsWith(NO_METRICS_NOTICE)) return;
      if (rest.length === 0) to[level](message);
      else to[level](message, { details: rest });
    };
  return { debug: forward('debug'), info: forward('info'), warn: forward('warn'), error: forward('error') };
}

export function createMetrics(notices: Logger): Metrics {
  return new Metrics({
    ...(envOrUndefined('POWERTOOLS_SERVICE_NAME') ? {} : { serviceName: DEFAULT_SERVICE_NAME }),
    ...(envOrUndefined('POWERTOOLS_METRICS_NAMESPACE') ? {} : { namespace: DEFAULT_METRICS_NAMESPACE }),
    logger: metricsNotices(notices),
  });
}

export const logger = createLogger();
export const metrics = createMetrics(logger);

/**
 * Publishes a connector-wide metric at once, with `dimension` as its only dimension (no
 * `service`): the alarms on it then watch every function (metric-names.ts, ConnectorMetric).
 */
export function addConnectorMetric(
  name: (typeof ConnectorMetric)[keyof typeof ConnectorMetric],
  dimension: readonly [string, string],
  value = 1,
): void {
  const single = metrics.singleMetric();
  single.clearDefaultDimensions();
  single.addDimension(dimension[0], dimension[1]);
  single.addMetric(name, MetricUnit.Count, value);
}

/** Counts one SyncFailed: by code for the function's dashboard, by class for the alarms. */
export function countSyncFailed(code: string): void {
  const single = metrics.singleMetric();
  single.addDimension('code', code);
  single.addMetric(MetricName.SyncFailed, MetricUnit.Count, 1);
  addConnectorMetric(ConnectorMetric.SyncFailedByClass, ['class', syncFailedClass(code)]);
}
