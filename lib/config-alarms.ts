import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The `alarms` part of the connector config (lib/config.ts): the two topics (page and ticket, each
 * an existing topic or a created one with an optional e-mail), how many datapoints an M-of-N alarm
 * needs, and where the runbooks are published (docs/deploy.md, "Alarms").
 */

const topicArn = z
  .string()
  .regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_.-]+$/, {
    error: 'expected an SNS topic ARN (arn:aws:sns:<region>:<account>:<name>)',
  })
  .optional();
const email = z.email({ error: 'expected an e-mail address' }).optional();

const count = (max: number) =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value),
    z
      .number({ error: 'expected a whole number' })
      .int({ error: 'expected a whole number' })
      .min(1, { error: `expected 1..${max}` })
      .max(max, { error: `expected 1..${max}` }),
  );

/**
 * `evaluationPeriods` × the longest alarm period (1 hour: SyncFailedPartner, the watches' failures)
 * stays within CloudWatch's one day (CloudWatch API reference, PutMetricAlarm, EvaluationPeriods:
 * "the number of periods over which data is compared ... multiplied by the period cannot exceed
 * one day" for periods of an hour and more).
 */
const MAX_EVALUATION_PERIODS = 24;

export const alarmsSchema = z
  .strictObject({
    // The page topic: an existing one (subscriptions are its owner's) or a created one.
    topicArn,
    email,
    // The ticket topic, likewise.
    ticketTopicArn: topicArn,
    ticketEmail: email,
    // SyncFailed of the partner's own data (invalid events, refusals by the service) per hour
    // before an alarm; operator-class codes alarm at the first one.
    partnerSyncFailedPerHour: count(100_000).default(10),
    // M of N for the alarms a single datapoint does not make mean loss (lib/alarm-catalog.ts).
    datapointsToAlarm: count(MAX_EVALUATION_PERIODS).default(3),
    evaluationPeriods: count(MAX_EVALUATION_PERIODS).default(5),
    // Where docs/ is published: descriptions link `<base>/deploy.md#alarms-…`.
    runbookBaseUrl: z
      .url({ protocol: /^https$/, error: 'expected an https URL of the published docs folder' })
      .transform((url) => url.replace(/\/+$/, ''))
      .optional(),
  })
  .refine((alarms) => alarms.topicArn === undefined || alarms.email === undefined, {
    error:
      'give either topicArn (an existing topic, subscriptions are its owner’s) or email (a topic is created), not both',
  })
  .refine((alarms) => alarms.ticketTopicArn === undefined || alarms.ticketEmail === undefined, {
    error: 'give either ticketTopicArn or ticketEmail, not both',
  })
  .refine((alarms) => alarms.datapointsToAlarm <= alarms.evaluationPeriods, {
    path: ['datapointsToAlarm'],
    error: 'expected at most evaluationPeriods (M of N)',
  });

/**
 * The docs URL an alarm links when `alarms.runbookBaseUrl` is not set: the `docs` folder of the
 * GitHub repository package.json names in `repository` (npm docs, package.json, "repository": a
 * URL, `{ "url": … }`, or the `github:owner/repo` / `owner/repo` shortcut), else none.
 */
export function repositoryDocsUrl(packageJson: unknown): string | undefined {
  const field = (packageJson as { repository?: unknown } | undefined)?.repository;
  const value = typeof field === 'string' ? field : (field as { url?: unknown } | undefined)?.url;
  if (typeof value !== 'string') return undefined;
  const match =
    /^(?:git\+)?https:\/\/github\.com\/([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(value) ??
    /^(?:github:)?([\w.-]+)\/([\w.-]+)$/.exec(value);
  if (!match) return undefined;
  return `https://github.com/${match[1]}/${match[2]}/blob/HEAD/docs`;
}

/** `alarms.runbookBaseUrl`, else the repository's docs (package.json), else undefined. */
export function runbookBaseUrlOf(
  alarms: { readonly runbookBaseUrl?: string | undefined },
  packageJsonUrl: URL = new URL('../package.json', import.meta.url),
): string | undefined {
  if (alarms.runbookBaseUrl) return alarms.runbookBaseUrl;
  return repositoryDocsUrl(JSON.parse(readFileSync(packageJsonUrl, 'utf8')));
}
