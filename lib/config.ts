import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_INBOUND_SOURCE, DEFAULT_OUTBOUND_SOURCE } from '#functions/contracts/source.ts';
import { DEFAULT_AREA_LOOKUP_RESOURCE, DEFAULT_LOCATION_LOOKUP_RESOURCE } from '#functions/runtime/config.ts';
import { startWindowProblem } from '#functions/runtime/retry-schedule.ts';
import {
  DEFAULT_INSTALL_URL_TEMPLATE,
  installTemplateProblem,
  serviceRootProblem,
} from '#functions/service/addresses.ts';
import { serviceAssumptionsSchema } from '#functions/service/assumptions.ts';
import { DEFAULT_TIMEOUT_MS } from '#functions/service/http.ts';
import { requestBudgetSettingsSchema } from '#functions/store/request-budget.ts';
import { alarmsSchema } from './config-alarms.ts';
import {
  accountSchema,
  archiveRetentionSchema,
  consumersSchema,
  deploymentNameSchema,
  isNamePart,
  publishersSchema,
  regionSchema,
  stageSchema,
  stateSchema,
} from './config-deployment.ts';

/**
 * The deployment configuration of the connector app (`bin/app.ts`): one JSON file merged with
 * cdk context keys (`-c key=value`), validated as a whole so that one `cdk synth` reports every
 * missing or wrong setting at once, each with its path and what is expected.
 */

export const DEFAULT_CONFIG_FILE = 'connector.config.json';
export const EXAMPLE_CONFIG_FILE = 'connector.config.example.json';

/** The retention periods CloudWatch Logs accepts; any other number is refused by the API at deploy time. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

const lookupResource = z.string().regex(/^([A-Za-z][A-Za-z0-9_]*)?$/, {
  error: 'expected a resource name (letters, digits, "_"), or "" to disable the lookup',
});

const hostnameSuffix = z.string().regex(/^\.?[a-z0-9-]+(\.[a-z0-9-]+)*$/, {
  error: 'expected a lower-case DNS suffix such as ".example.com"',
});
const hostnameSuffixes = z
  .array(hostnameSuffix)
  .min(1, { error: 'expected at least one suffix, or leave the field out' });
const HOSTNAME_SUFFIXES_REQUIRED =
  'is required: the DNS suffixes of the service install hostnames (e.g. [".example.com"]); the bearer token is sent to every install hostname signup returns, so only these may receive it';

/** A text checked by one of the functions' own rules, which names what is wrong with it. */
const checkedBy = (problemOf: (value: string) => string | undefined) =>
  z.string().check((context) => {
    const problem = problemOf(context.value);
    if (problem !== undefined)
      context.issues.push({ code: 'custom', message: problem, input: context.value });
  });

/**
 * A service address, by the functions' own rule (functions/service/addresses.ts): https, no
 * credentials, no query; plain http only in the local runtime's config, which points at the
 * sandbox on this machine.
 */
const serviceUrl = (local: boolean) =>
  checkedBy((value) => serviceRootProblem(value, { loopbackHttp: local }));

// cdk context given on the command line is always a string ("-c logRetentionDays=14").
const wholeNumber = () =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value),
    z.number({ error: 'expected a whole number' }).int({ error: 'expected a whole number' }),
  );

/**
 * A KMS key ARN (`arn:aws:kms:<region>:<account>:key/<key id>`, a multi-Region key's id `mrk-…`
 * included). An alias is refused: the grant names the key, and an IAM statement on an alias ARN
 * does not cover the key behind it (AWS KMS developer guide, "Using aliases to control access").
 */
const KMS_KEY_ARN =
  /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/(mrk-[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

const tokenSecretSchema = z.union(
  [
    z.strictObject({
      create: z.literal(true),
      name: z.string().min(1).max(512).optional(),
      // Refused with the union's message below: a created secret is encrypted with the AWS managed
      // key aws/secretsmanager.
      kmsKeyArn: z.never().optional(),
    }),
    z.strictObject({
      existingSecretName: z.string().min(1, { error: 'expected the name of an existing secret' }).max(512),
      // The customer managed key the existing secret is encrypted with: the functions that read the
      // token are granted kms:Decrypt on it, through Secrets Manager only.
      kmsKeyArn: z
        .string()
        .regex(KMS_KEY_ARN, {
          error:
            'expected a KMS key ARN (arn:aws:kms:<region>:<account>:key/<key id>), not an alias or key id: the functions are granted kms:Decrypt on the key itself',
        })
        .optional(),
    }),
  ],
  {
    error: (issue) => {
      const input = issue.input as Record<string, unknown> | undefined;
      return typeof input === 'object' && input !== null && 'create' in input && 'kmsKeyArn' in input
        ? 'kmsKeyArn is for an existing secret encrypted with a customer managed key: {"existingSecretName": name, "kmsKeyArn": arn}'
        : 'expected {"create": true, "name"?: string} or {"existingSecretName": string, "kmsKeyArn"?: KMS key ARN}';
    },
  },
);

const eventBusSchema = z.union(
  [
    z.strictObject({
      create: z.literal(true),
      name: z
        .string()
        .regex(/^[A-Za-z0-9._-]{1,256}$/, { error: 'expected letters, digits, ".", "_" or "-" (1-256)' })
        .optional(),
    }),
    z.strictObject({
      existingBusName: z.string().min(1, { error: 'expected the name of an existing event bus' }).max(256),
    }),
  ],
  { error: 'expected {"create": true, "name"?: string} or {"existingBusName": string}' },
);

const routeOverrideSchema = z.strictObject({
  // Lambda's SQS event source accepts 2..1000; 2 is also what keeps one slow account from
  // starving every other message group of the FIFO queue.
  maxConcurrency: wholeNumber()
    .pipe(z.number().min(2, { error: 'expected 2..1000' }).max(1000, { error: 'expected 2..1000' }))
    .optional(),
  // FIFO event sources take at most 10 messages per batch.
  batchSize: wholeNumber()
    .pipe(z.number().min(1, { error: 'expected 1..10' }).max(10, { error: 'expected 1..10' }))
    .optional(),
  // Lambda allows up to 900 s; the queue's visibility timeout follows (six times this).
  timeoutSeconds: wholeNumber()
    .pipe(z.number().min(10, { error: 'expected 10..900' }).max(900, { error: 'expected 10..900' }))
    .optional(),
});

/** What the config check needs to know of a route: its name and default function timeout. */
export interface KnownRoute {
  readonly detailType: string;
  readonly timeoutSeconds: number;
}

function connectorConfigSchema(knownRoutes: readonly KnownRoute[], local = false) {
  const url = serviceUrl(local);
  const routeNames = knownRoutes.map((route) => route.detailType);
  return z
    .strictObject({
      partnerName: z
        .string({
          error: 'is required: the partner name assigned by the service (used in the provisioning path)',
        })
        // The service assigns it; a path segment's unreserved characters (RFC 3986).
        .regex(/^[A-Za-z0-9][A-Za-z0-9._~-]{0,63}$/, {
          error: 'expected letters, digits, ".", "_", "~" or "-" (1-64 chars)',
        }),
      // What physical names carry with the stage (lib/deployment-names.ts); default partnerName.
      deploymentName: deploymentNameSchema,
      stage: stageSchema,
      // The target: synth refuses other credentials' account or region (config-deployment.ts).
      account: local ? accountSchema.optional() : accountSchema,
      region: local ? regionSchema.optional() : regionSchema,
      publishers: publishersSchema.optional(),
      consumers: consumersSchema.default([]),
      state: stateSchema.default({}),
      provisioningUrls: z.strictObject(
        { US: url, UK: url.optional(), AU: url.optional() },
        {
          error: (issue) =>
            issue.code === 'invalid_type'
              ? 'is required: {"US": https URL, "UK"?: https URL, "AU"?: https URL}'
              : undefined,
        },
      ),
      installUrlTemplate: checkedBy((value) =>
        installTemplateProblem(value, { loopbackHttp: local }),
      ).default(DEFAULT_INSTALL_URL_TEMPLATE),
      // The token goes to every install hostname signup returns: outside the local runtime the
      // domains the service's installs live under must be named.
      allowedHostnameSuffixes: local
        ? hostnameSuffixes.optional()
        : z.array(hostnameSuffix, { error: HOSTNAME_SUFFIXES_REQUIRED }).min(1, {
            error: HOSTNAME_SUFFIXES_REQUIRED,
          }),
      tokenSecret: tokenSecretSchema.default({ create: true }),
      eventBus: eventBusSchema.default({ create: true }),
      inboundSource: z.string().min(1).max(256).default(DEFAULT_INBOUND_SOURCE),
      outboundSource: z.string().min(1).max(256).default(DEFAULT_OUTBOUND_SOURCE),
      trialThresholdsDays: z
        .array(wholeNumber().pipe(z.number().min(1, { error: 'expected 1..365' }).max(365)))
        .min(1, { error: 'expected at least one threshold' })
        .default([7, 3, 1]),
      trialWatchSchedule: z
        .string()
        .regex(/^(rate\(\d+ (minute|minutes|hour|hours|day|days)\)|cron\(.+\))$/, {
          error: 'expected an EventBridge schedule expression: "rate(1 hour)" or "cron(...)"',
        })
        .default('rate(1 hour)'),
      // The drift watch: every tracked business is compared with the service once per
      // `everyHours`, spread over that period; `schedule` is how often the watch runs.
      driftWatch: z
        .strictObject({
          everyHours: wholeNumber()
            .pipe(z.number().min(1, { error: 'expected 1..744' }).max(744, { error: 'expected 1..744' }))
            .default(24),
          schedule: z
            .string()
            .regex(/^(rate\(\d+ (minute|minutes|hour|hours|day|days)\)|cron\(.+\))$/, {
              error: 'expected an EventBridge schedule expression: "rate(1 hour)" or "cron(...)"',
            })
            .default('rate(1 hour)'),
        })
        .default({ everyHours: 24, schedule: 'rate(1 hour)' }),
      routes: z
        .record(z.string(), routeOverrideSchema)
        .superRefine((routes, ctx) => {
          for (const detailType of Object.keys(routes)) {
            if (!routeNames.includes(detailType)) {
              ctx.addIssue({
                code: 'custom',
                path: [detailType],
                message: `unknown route; expected one of ${routeNames.join(', ')}`,
              });
            }
          }
        })
        .default({}),
      hourBudgetType: z
        .enum(['budget_StaffHour', 'budget_hour'], { error: 'expected "budget_StaffHour" or "budget_hour"' })
        .default('budget_StaffHour'),
      alarms: alarmsSchema.default({
        partnerSyncFailedPerHour: 10,
        datapointsToAlarm: 3,
        evaluationPeriods: 5,
      }),
      logRetentionDays: wholeNumber()
        .refine((days) => (LOG_RETENTION_DAYS as readonly number[]).includes(days), {
          error: `expected one of the CloudWatch Logs retention periods: ${LOG_RETENTION_DAYS.join(', ')}`,
        })
        .default(30),
      removalPolicy: z
        .enum(['retain', 'destroy'], { error: 'expected "retain" or "destroy"' })
        .default('retain'),
      logLevel: z
        .enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL'], {
          error: 'expected TRACE, DEBUG, INFO, WARN, ERROR or CRITICAL',
        })
        .default('INFO'),
      // Left out, the functions' own defaults (functions/runtime/config.ts) apply.
      httpTimeoutMs: wholeNumber().pipe(z.number().min(100).max(60_000)).optional(),
      // What the client assumes where the spec is silent (docs/internals.md, "Open behaviours").
      serviceAssumptions: serviceAssumptionsSchema.optional(),
      // The shared request budget (docs/performance.md); "off" sends calls unmetered.
      requestBudget: z.union([z.literal('off'), requestBudgetSettingsSchema]).optional(),
      // How long the EventBridge archive keeps inbound events for a replay (npm run replay).
      archiveRetentionDays: wholeNumber()
        .pipe(z.number().min(1, { error: 'expected 1..3650' }).max(3650, { error: 'expected 1..3650' }))
        .default(30),
      // How long the outbound archive keeps the connector's result events (docs/deploy.md, "Outbound archive").
      outboundArchiveRetentionDays: archiveRetentionSchema(30),
      idempotencyTtlSeconds: wholeNumber().pipe(z.number().min(60).max(31_536_000)).optional(),
      metricsBulkThreshold: wholeNumber().pipe(z.number().min(1).max(366)).optional(),
      // How long countries and states of an install are cached before they are read again.
      referenceCacheMaxAgeSeconds: wholeNumber().pipe(z.number().min(60).max(31_536_000)).optional(),
      // QUERY resources that find a location / area whose create answer was lost; "" disables.
      locationLookupResource: lookupResource.default(DEFAULT_LOCATION_LOOKUP_RESOURCE),
      areaLookupResource: lookupResource.default(DEFAULT_AREA_LOOKUP_RESOURCE),
    })
    .superRefine((config, ctx) => {
      // A record starts only with one service call's worst case left (retry-schedule.ts): the
      // HTTP timeout × attempts must leave every route time to start its records.
      for (const route of knownRoutes) {
        const timeoutSeconds = config.routes[route.detailType]?.timeoutSeconds ?? route.timeoutSeconds;
        const problem = startWindowProblem(config.httpTimeoutMs ?? DEFAULT_TIMEOUT_MS, {
          detailType: route.detailType,
          timeoutSeconds,
        });
        if (problem) {
          ctx.addIssue({
            code: 'custom',
            path: config.httpTimeoutMs === undefined ? ['routes', route.detailType] : ['httpTimeoutMs'],
            message: problem,
          });
        }
      }
      // Outbound detail-types differ from inbound ones today, but one shared source would let a
      // future outbound type with an inbound name loop back into the connector.
      if (config.deploymentName === undefined && !isNamePart(config.partnerName)) {
        ctx.addIssue({
          code: 'custom',
          path: ['deploymentName'],
          message:
            'is required when partnerName is not 1-40 letters, digits and "-": it names the stacks, bus, table and alarms',
        });
      }
      if (
        config.state.existingTableDescription !== undefined &&
        config.state.existingTableName === undefined
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['state', 'existingTableDescription'],
          message: 'describes the table of state.existingTableName, which is not set',
        });
      }
      if (config.inboundSource === config.outboundSource) {
        ctx.addIssue({
          code: 'custom',
          path: ['outboundSource'],
          message: 'expected a source different from inboundSource',
        });
      }
    });
}

export type ConnectorConfig = z.output<ReturnType<typeof connectorConfigSchema>>;
export type ConnectorConfigInput = z.input<ReturnType<typeof connectorConfigSchema>>;

export class ConnectorConfigError extends Error {
  constructor(
    readonly origin: string,
    readonly problems: readonly string[],
  ) {
    super(`Invalid connector configuration (${origin}):\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConnectorConfigError';
  }
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.') || '(root)';
  // Zod's own wording for an absent key ("expected string, received undefined") hides the point.
  const message = /received undefined$/.test(issue.message)
    ? `is required (${issue.message})`
    : issue.message;
  return `${path}: ${message}`;
}

/** Validates raw settings; throws a `ConnectorConfigError` naming every bad field. */
export function parseConnectorConfig(
  raw: unknown,
  options: {
    knownRoutes: readonly KnownRoute[];
    origin?: string;
    /** The local runtime's config: http to 127.0.0.1 (the sandbox) is allowed. @default false */
    local?: boolean;
  },
): ConnectorConfig {
  const parsed = connectorConfigSchema(options.knownRoutes, options.local).safeParse(raw);
  if (!parsed.success) {
    throw new ConnectorConfigError(
      options.origin ?? 'connector config',
      parsed.error.issues.map(describeIssue),
    );
  }
  return parsed.data;
}

/** The part of a CDK `App`/`Node` the loader needs, so tests can pass plain context. */
export interface ContextSource {
  tryGetContext(key: string): unknown;
}

export const CONFIG_FIELDS = [
  'partnerName',
  'deploymentName',
  'stage',
  'account',
  'region',
  'publishers',
  'consumers',
  'state',
  'outboundArchiveRetentionDays',
  'provisioningUrls',
  'installUrlTemplate',
  'allowedHostnameSuffixes',
  'tokenSecret',
  'eventBus',
  'inboundSource',
  'outboundSource',
  'trialThresholdsDays',
  'trialWatchSchedule',
  'driftWatch',
  'routes',
  'hourBudgetType',
  'alarms',
  'logRetentionDays',
  'removalPolicy',
  'logLevel',
  'httpTimeoutMs',
  'archiveRetentionDays',
  'serviceAssumptions',
  'requestBudget',
  'idempotencyTtlSeconds',
  'metricsBulkThreshold',
  'referenceCacheMaxAgeSeconds',
  'locationLookupResource',
  'areaLookupResource',
] as const satisfies readonly (keyof ConnectorConfigInput)[];

// Objects and arrays given with -c arrive as JSON text.
function fromContext(value: unknown): unknown {
  if (typeof value !== 'string' || !/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * Picks the config file: `-c config=path`, else `connector.config.json`. There is no fallback to
 * the example: a deploy must never go out with its placeholder partner, URLs and e-mail.
 */
export function resolveConfigFile(context: ContextSource, cwd: string): string {
  const requested = context.tryGetContext('config');
  if (typeof requested === 'string' && requested !== '') {
    return isAbsolute(requested) ? requested : resolve(cwd, requested);
  }
  const own = resolve(cwd, DEFAULT_CONFIG_FILE);
  if (!existsSync(own)) {
    throw new ConnectorConfigError(own, [
      `no ${DEFAULT_CONFIG_FILE}: create it with \`cp ${EXAMPLE_CONFIG_FILE} ${DEFAULT_CONFIG_FILE}\` and set your partner name, provisioning URLs, install hostname suffixes and alarm e-mail (docs/deploy.md, step 2), or name a file with -c config=<path>`,
    ]);
  }
  return own;
}

/**
 * Reads the config file, overlays the cdk context keys that name config fields (top level only:
 * a context value replaces the whole field), and validates the result.
 */
export function loadConnectorConfig(
  context: ContextSource,
  options: { cwd: string; knownRoutes: readonly KnownRoute[] },
): ConnectorConfig {
  const file = resolveConfigFile(context, options.cwd);
  if (!existsSync(file)) {
    throw new ConnectorConfigError(file, [
      `config file not found; create it (see ${EXAMPLE_CONFIG_FILE}) or pass -c config=<path>`,
    ]);
  }
  let fromFile: unknown;
  try {
    fromFile = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConnectorConfigError(file, [`not valid JSON: ${(error as Error).message}`]);
  }
  if (typeof fromFile !== 'object' || fromFile === null || Array.isArray(fromFile)) {
    throw new ConnectorConfigError(file, ['expected a JSON object at the top level']);
  }
  const merged: Record<string, unknown> = { ...(fromFile as Record<string, unknown>) };
  const overridden: string[] = [];
  for (const field of CONFIG_FIELDS) {
    const value = context.tryGetContext(field);
    if (value !== undefined) {
      merged[field] = fromContext(value);
      overridden.push(field);
    }
  }
  const origin = overridden.length > 0 ? `${file} + cdk context ${overridden.join(', ')}` : file;
  return parseConnectorConfig(merged, { knownRoutes: options.knownRoutes, origin });
}
