import { describe, expect, it } from 'vitest';
import { DEFAULT_OUTBOUND_SOURCE } from '#functions/contracts/source.ts';
import { ConfigurationError } from '#functions/domain/errors.ts';
import { refusalSettings } from '#functions/refuse-unroutable/settings.ts';
import { CONFIG_ENV_VARS, loadConfig } from '#functions/runtime/config.ts';
import { routeQueueSettings } from '#functions/runtime/route-queue.ts';
import { defaultServiceAssumptions, serviceAssumptionsSchema } from '#functions/service/assumptions.ts';
import {
  defaultRequestBudgetSettings,
  requestBudgetSettingsSchema,
} from '#functions/store/request-budget.ts';

const validEnv = {
  TABLE_NAME: 'connector-state',
  EVENT_BUS_NAME: 'partner-bus',
  TOKEN_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:connector/token-AbCdEf',
  PARTNER_NAME: 'acme',
  PROVISIONING_URLS: JSON.stringify({
    US: 'https://us.provisioning.example',
    UK: 'http://127.0.0.1:8787/regions/uk',
  }),
};

function errorOf(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected loadConfig to throw');
}

describe('loadConfig', () => {
  it('applies the documented defaults when only the required variables are set', () => {
    // Act
    const config = loadConfig(validEnv);

    // Assess
    expect(config).toMatchObject({
      tableName: 'connector-state',
      eventBusName: 'partner-bus',
      inboundSource: 'partner.app',
      outboundSource: 'workforce.connector',
      partnerName: 'acme',
      provisioningUrls: { US: 'https://us.provisioning.example', UK: 'http://127.0.0.1:8787/regions/uk' },
      installUrlTemplate: 'https://{hostname}',
      hourBudgetType: 'budget_StaffHour',
      trialThresholdsDays: [7, 3, 1],
      httpTimeoutMs: 5000,
      idempotencyTtlSeconds: 86_400,
      metricsBulkThreshold: 31,
      logLevel: 'INFO',
    });
    expect(config.allowedHostnameSuffixes).toBeUndefined();
  });

  it('reads every optional variable when set', () => {
    // Prepare
    const env = {
      ...validEnv,
      INBOUND_SOURCE: 'acme.app',
      OUTBOUND_SOURCE: 'acme.connector',
      INSTALL_URL_TEMPLATE: 'http://127.0.0.1:8787/installs/{hostname}',
      ALLOWED_HOSTNAME_SUFFIXES: ' .sandbox.test , .Example.com ',
      HOUR_BUDGET_TYPE: 'budget_hour',
      TRIAL_THRESHOLDS_DAYS: '1, 14, 3, 3',
      HTTP_TIMEOUT_MS: '2500',
      IDEMPOTENCY_TTL_SECONDS: '3600',
      METRICS_BULK_THRESHOLD: '60',
      POWERTOOLS_LOG_LEVEL: 'debug',
    };

    // Act
    const config = loadConfig(env);

    // Assess
    expect(config).toMatchObject({
      inboundSource: 'acme.app',
      outboundSource: 'acme.connector',
      installUrlTemplate: 'http://127.0.0.1:8787/installs/{hostname}',
      allowedHostnameSuffixes: ['.sandbox.test', '.example.com'],
      hourBudgetType: 'budget_hour',
      trialThresholdsDays: [14, 3, 1],
      httpTimeoutMs: 2500,
      idempotencyTtlSeconds: 3600,
      metricsBulkThreshold: 60,
      logLevel: 'DEBUG',
    });
  });

  it('lists every bad variable in one ConfigurationError', () => {
    // Prepare
    const env = {
      EVENT_BUS_NAME: 'partner-bus',
      PARTNER_NAME: 'acme/../evil',
      PROVISIONING_URLS: JSON.stringify({ US: 'http://provisioning.example' }),
      INSTALL_URL_TEMPLATE: 'https://install.example',
      HOUR_BUDGET_TYPE: 'budget_minutes',
      TRIAL_THRESHOLDS_DAYS: '7,soon',
      HTTP_TIMEOUT_MS: 'fast',
      IDEMPOTENCY_TTL_SECONDS: '0',
      METRICS_BULK_THRESHOLD: '1000',
    };

    // Act
    const error = errorOf(() => loadConfig(env));

    // Assess
    expect(error).toBeInstanceOf(ConfigurationError);
    for (const variable of [
      'TABLE_NAME',
      'TOKEN_SECRET_ID',
      'PARTNER_NAME',
      'PROVISIONING_URLS',
      'INSTALL_URL_TEMPLATE',
      'HOUR_BUDGET_TYPE',
      'TRIAL_THRESHOLDS_DAYS',
      'HTTP_TIMEOUT_MS',
      'IDEMPOTENCY_TTL_SECONDS',
      'METRICS_BULK_THRESHOLD',
    ]) {
      expect(error.message).toContain(`- ${variable} `);
    }
    expect(error.message).not.toContain('- EVENT_BUS_NAME');
  });

  it('treats an empty variable as missing', () => {
    // Act
    const error = errorOf(() => loadConfig({ ...validEnv, TABLE_NAME: '  ' }));

    // Assess
    expect(error.message).toContain('- TABLE_NAME is required');
  });

  it('refuses provisioning URLs that are not JSON, lack US, have unknown regions or send the token in clear', () => {
    // Prepare
    const cases = [
      ['{"US": ', 'is not valid JSON'],
      [JSON.stringify({ UK: 'https://uk.example' }), 'US'],
      [JSON.stringify({ US: 'https://us.example', NZ: 'https://nz.example' }), 'NZ'],
      [JSON.stringify({ US: 'http://10.0.0.8:8787' }), 'must be an https URL'],
      [JSON.stringify({ US: 'https://user:pass@us.example' }), 'must not carry credentials'],
    ] as const;

    for (const [value, expected] of cases) {
      // Act
      const error = errorOf(() => loadConfig({ ...validEnv, PROVISIONING_URLS: value }));

      // Assess
      expect(error.message).toContain('- PROVISIONING_URLS');
      expect(error.message).toContain(expected);
    }
  });

  it('looks locations and areas up in the sandbox resources by default and not at all when set empty', () => {
    // Act
    const byDefault = loadConfig(validEnv);
    const disabled = loadConfig({ ...validEnv, LOCATION_LOOKUP_RESOURCE: '', AREA_LOOKUP_RESOURCE: ' ' });
    const renamed = loadConfig({
      ...validEnv,
      LOCATION_LOOKUP_RESOURCE: 'Location',
      AREA_LOOKUP_RESOURCE: 'Area',
    });

    // Assess
    expect(byDefault).toMatchObject({
      locationLookupResource: 'Company',
      areaLookupResource: 'OperationalUnit',
    });
    expect(disabled).toMatchObject({ locationLookupResource: null, areaLookupResource: null });
    expect(renamed).toMatchObject({ locationLookupResource: 'Location', areaLookupResource: 'Area' });
  });

  it('refuses a lookup resource that is not a plain resource name', () => {
    // Act
    const error = errorOf(() => loadConfig({ ...validEnv, AREA_LOOKUP_RESOURCE: '../supervise/department' }));

    // Assess
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toContain('- AREA_LOOKUP_RESOURCE');
  });

  it('never echoes the value of a bad variable', () => {
    // Prepare
    const leaked = 'Bearer super-secret-token-value';

    // Act
    const error = errorOf(() =>
      loadConfig({ ...validEnv, PROVISIONING_URLS: leaked, HTTP_TIMEOUT_MS: leaked }),
    );

    // Assess
    expect(error.message).not.toContain('super-secret');
  });

  it('publishes the names of every variable it reads', () => {
    // Assess
    expect(CONFIG_ENV_VARS).toEqual(
      expect.arrayContaining([
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
        'HTTP_TIMEOUT_MS',
        'IDEMPOTENCY_TTL_SECONDS',
        'METRICS_BULK_THRESHOLD',
        'LOCATION_LOOKUP_RESOURCE',
        'AREA_LOOKUP_RESOURCE',
        'POWERTOOLS_SERVICE_NAME',
        'POWERTOOLS_METRICS_NAMESPACE',
        'POWERTOOLS_LOG_LEVEL',
      ]),
    );
  });

  it('reads the service assumptions as JSON over their defaults, naming a bad one', () => {
    // Act
    const byDefault = loadConfig(validEnv);
    const set = loadConfig({
      ...validEnv,
      SERVICE_ASSUMPTIONS: JSON.stringify({ installAuth: 'none', signupDuplicateCodes: ['DUP'] }),
    });
    const notJson = errorOf(() => loadConfig({ ...validEnv, SERVICE_ASSUMPTIONS: '{nope' }));
    const unknown = errorOf(() =>
      loadConfig({ ...validEnv, SERVICE_ASSUMPTIONS: '{"installAuth":"basic"}' }),
    );

    // Assess
    expect(byDefault.serviceAssumptions).toMatchObject({
      installAuth: 'bearer',
      signupDuplicateCodes: ['EXTERNAL_ID_NOT_UNIQUE', 'EMAIL_ALREADY_EXISTS'],
      contractResource: 'EmploymentContract',
    });
    expect(set.serviceAssumptions).toMatchObject({ installAuth: 'none', signupDuplicateCodes: ['DUP'] });
    expect(notJson.message).toMatch(/SERVICE_ASSUMPTIONS is not valid JSON/);
    expect(unknown.message).toMatch(/SERVICE_ASSUMPTIONS installAuth:/);
  });

  it('uses as defaults exactly what the JSON settings schemas make of an empty document', () => {
    // Act
    const config = loadConfig(validEnv);

    // Assess
    expect(config.serviceAssumptions).toEqual(serviceAssumptionsSchema.parse({}));
    expect(defaultServiceAssumptions).toEqual(serviceAssumptionsSchema.parse({}));
    expect(config.requestBudget).toEqual(requestBudgetSettingsSchema.parse({}));
    expect(defaultRequestBudgetSettings()).toEqual(requestBudgetSettingsSchema.parse({}));
  });

  it('reads REQUEST_BUDGET as JSON over the defaults, "off" as none, and names a bad one', () => {
    // Act
    const off = loadConfig({ ...validEnv, REQUEST_BUDGET: 'off' });
    const set = loadConfig({ ...validEnv, REQUEST_BUDGET: '{"install":{"ratePerSecond":2,"burst":4}}' });
    const bad = errorOf(() =>
      loadConfig({ ...validEnv, REQUEST_BUDGET: '{"install":{"ratePerSecond":-1}}' }),
    );

    // Assess
    expect(off.requestBudget).toBeNull();
    expect(set.requestBudget).toEqual({
      provisioning: { ratePerSecond: 5, burst: 5 },
      install: { ratePerSecond: 2, burst: 4 },
    });
    expect(bad.message).toContain('- REQUEST_BUDGET install.ratePerSecond: ');
    expect(bad.message).toContain('install.burst: ');
  });

  it('names the item of a bad trial threshold and the bound a number breaks', () => {
    // Act
    const error = errorOf(() =>
      loadConfig({ ...validEnv, TRIAL_THRESHOLDS_DAYS: '7,0,400', HTTP_TIMEOUT_MS: '900001' }),
    );

    // Assess
    expect(error.message).toContain('- TRIAL_THRESHOLDS_DAYS item 2: days must be at least 1\n');
    expect(error.message).toContain('- TRIAL_THRESHOLDS_DAYS item 3: days must be at most 365\n');
    expect(error.message).toContain('- HTTP_TIMEOUT_MS must be at most 900000');
  });

  it('names each problem on a line of its own, in its own words, and the JSON settings by their path', () => {
    // Prepare: each variable's text, and the lines the cold start's error has for it
    const cases = [
      ['REQUEST_BUDGET', '{nope', ['REQUEST_BUDGET is not valid JSON (or "off")']],
      ['REQUEST_BUDGET', '[]', ['REQUEST_BUDGET Invalid input: expected object, received array']],
      [
        'TRIAL_THRESHOLDS_DAYS',
        '7,0,x',
        [
          'TRIAL_THRESHOLDS_DAYS item 2: days must be at least 1',
          'TRIAL_THRESHOLDS_DAYS item 3: must be a whole number of days',
        ],
      ],
      ['TRIAL_THRESHOLDS_DAYS', '7,,3', ['TRIAL_THRESHOLDS_DAYS item 2: must be a whole number of days']],
      [
        'TRIAL_THRESHOLDS_DAYS',
        ',',
        [
          'TRIAL_THRESHOLDS_DAYS item 1: must be a whole number of days',
          'TRIAL_THRESHOLDS_DAYS item 2: must be a whole number of days',
        ],
      ],
      ['REPLAY_MARKER_TTL_SECONDS', '0', ['REPLAY_MARKER_TTL_SECONDS seconds must be at least 1']],
      [
        'POWERTOOLS_LOG_LEVEL',
        'loud',
        ['POWERTOOLS_LOG_LEVEL must be one of TRACE, DEBUG, INFO, WARN, ERROR, CRITICAL, SILENT'],
      ],
      ['HTTP_TIMEOUT_MS', '99999999999999999999', ['HTTP_TIMEOUT_MS must be at most 900000']],
      ['HTTP_TIMEOUT_MS', '-5', ['HTTP_TIMEOUT_MS must be a whole number']],
    ] as const;

    for (const [variable, text, lines] of cases) {
      // Act
      const error = errorOf(() => loadConfig({ ...validEnv, [variable]: text }));

      // Assess
      expect(error.message).toBe(
        `invalid function configuration, cold start aborted:\n${lines.map((line) => `  - ${line}`).join('\n')}`,
      );
    }
  });

  it('reads REQUEST_BUDGET null as none, as "off"', () => {
    // Act & Assess
    expect(loadConfig({ ...validEnv, REQUEST_BUDGET: 'null' }).requestBudget).toBeNull();
  });
});

describe('routeQueueSettings', () => {
  it('names every missing or bad variable in one error', () => {
    // Act
    const error = errorOf(() =>
      routeQueueSettings({
        QUEUE_URL: 'not a url',
        MAX_RECEIVE_COUNT: '0',
        MAX_ATTEMPTS: '7',
        QUEUE_RETENTION_SECONDS: 'x',
      }),
    );

    // Assess
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toContain('- QUEUE_URL must be a queue URL');
    expect(error.message).toContain(
      '- DEAD_LETTER_QUEUE_URL is required (URL of the route dead-letter queue)',
    );
    expect(error.message).toContain('- MAX_RECEIVE_COUNT must be at least 1');
    expect(error.message).toContain('- QUEUE_RETENTION_SECONDS must be a whole number');
    expect(error.message).not.toContain('MAX_ATTEMPTS');
  });

  it('names each problem on a line of its own', () => {
    // Act
    const error = errorOf(() =>
      routeQueueSettings({
        QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/route.fifo',
        DEAD_LETTER_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/route-dlq.fifo',
        MAX_RECEIVE_COUNT: '50',
        MAX_ATTEMPTS: '99999999999999999999',
        QUEUE_RETENTION_SECONDS: '0',
      }),
    );

    // Assess
    expect(error.message).toBe(
      'invalid route queue configuration, cold start aborted:\n  - MAX_ATTEMPTS must be at most 100\n  - QUEUE_RETENTION_SECONDS must be at least 1',
    );
  });
});

describe('refusalSettings', () => {
  const refusalEnv = {
    TABLE_NAME: 'table',
    EVENT_BUS_NAME: 'bus',
    ROUTED_DETAIL_TYPES: 'AccountCreated, PlanChosen',
    REFUSAL_QUEUE_ARN: 'arn:aws:sqs:us-east-1:1:refusal',
    ROUTE_DEAD_LETTER_QUEUE_URLS:
      'AccountCreated=https://sqs.us-east-1.amazonaws.com/1/a-dlq.fifo,PlanChosen=https://sqs.us-east-1.amazonaws.com/1/p-dlq.fifo',
  };

  it('reads the lists and the defaults as every function reads its environment', () => {
    // Act
    const settings = refusalSettings(refusalEnv);

    // Assess
    expect(settings.routedDetailTypes).toEqual(['AccountCreated', 'PlanChosen']);
    expect(settings.outboundSource).toBe(DEFAULT_OUTBOUND_SOURCE);
    expect(settings.idempotencyTtlSeconds).toBe(86_400);
    expect(settings.routeDeadLetterQueueUrls.get('PlanChosen')).toBe(
      'https://sqs.us-east-1.amazonaws.com/1/p-dlq.fifo',
    );
  });

  it('names every bad variable in one error, a line each', () => {
    // Act
    const error = errorOf(() =>
      refusalSettings({
        ...refusalEnv,
        TABLE_NAME: '',
        ROUTED_DETAIL_TYPES: ' , ',
        IDEMPOTENCY_TTL_SECONDS: 'soon',
        REFUSAL_QUEUE_ARN: 'refusal',
        ROUTE_DEAD_LETTER_QUEUE_URLS: 'AccountCreated=https://sqs/a,=https://sqs/b,PlanChosen=not a url',
      }),
    );

    // Assess
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toBe(
      [
        'invalid refusal function configuration, cold start aborted:',
        '  - TABLE_NAME is required (DynamoDB table name)',
        '  - ROUTED_DETAIL_TYPES is required (comma-separated detail-types the routes take)',
        '  - IDEMPOTENCY_TTL_SECONDS must be a whole number',
        '  - REFUSAL_QUEUE_ARN must be an ARN',
        '  - ROUTE_DEAD_LETTER_QUEUE_URLS item 2: must be <DetailType>=<queue URL>',
        '  - ROUTE_DEAD_LETTER_QUEUE_URLS item 3: must be <DetailType>=<queue URL>',
      ].join('\n'),
    );
  });
});
