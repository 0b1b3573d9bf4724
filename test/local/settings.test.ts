import { describe, expect, it } from 'vitest';
import { loadConfig } from '#functions/commons/config.ts';
import { connectorEnvironment } from '#lib/workforce-connector.ts';
import { localEnvironment } from '#local/settings.ts';

describe('localEnvironment', () => {
  it('passes the connector config validation and points every service at the local servers', () => {
    // Prepare
    const environment = localEnvironment({
      sandboxUrl: 'http://127.0.0.1:8787/',
      dynamoEndpoint: 'http://127.0.0.1:8000',
      eventsEndpoint: 'http://127.0.0.1:4010',
      secretsEndpoint: 'http://127.0.0.1:4010',
      tableName: 'state',
      busName: 'bus',
    });

    // Act
    const config = loadConfig(environment);

    // Assess
    expect(config.provisioningUrls).toEqual({
      US: 'http://127.0.0.1:8787',
      UK: 'http://127.0.0.1:8787/regions/uk',
      AU: 'http://127.0.0.1:8787/regions/au',
    });
    expect(config.installUrlTemplate).toBe('http://127.0.0.1:8787/installs/{hostname}');
    expect(config.allowedHostnameSuffixes).toEqual(['.sandbox.test']);
    expect(config.tableName).toBe('state');
    expect(config.eventBusName).toBe('bus');
    // The sandbox answers QUERY on Company and OperationalUnit (sandbox/README.md).
    expect(config.locationLookupResource).toBe('Company');
    expect(config.areaLookupResource).toBe('OperationalUnit');
    expect(environment['AWS_ENDPOINT_URL_EVENTBRIDGE']).toBe('http://127.0.0.1:4010');
    expect(environment['AWS_ENDPOINT_URL_SECRETS_MANAGER']).toBe('http://127.0.0.1:4010');
    expect(environment['AWS_ENDPOINT_URL_DYNAMODB']).toBe('http://127.0.0.1:8000');
  });

  it('never carries the token itself, only the secret name', () => {
    // Act
    const environment = localEnvironment({
      sandboxUrl: 'http://127.0.0.1:1',
      dynamoEndpoint: 'http://127.0.0.1:2',
      eventsEndpoint: 'http://127.0.0.1:3',
      secretsEndpoint: 'http://127.0.0.1:3',
      tableName: 't',
      busName: 'b',
    });

    // Assess
    expect(Object.values(environment)).not.toContain('sandbox-token');
    expect(environment['TOKEN_SECRET_ID']).toBe('workforce-connector/sandbox-token');
  });

  it('sets every variable the deployed stack gives the functions', () => {
    // Prepare: everything optional set, so the stack emits every variable it knows.
    const deployed = connectorEnvironment({
      partnerName: 'acme',
      provisioningUrls: { US: 'https://provisioning.example.com' },
      allowedHostnameSuffixes: ['.example.com'],
      hourBudgetType: 'budget_StaffHour',
      httpTimeoutMs: 5000,
      idempotencyTtlSeconds: 3600,
      metricsBulkThreshold: 31,
    });
    // The binders add the resource names (lib/connector-function.ts).
    const bound = ['TABLE_NAME', 'EVENT_BUS_NAME', 'TOKEN_SECRET_ID'];

    // Act
    const local = localEnvironment({
      sandboxUrl: 'http://127.0.0.1:8787',
      dynamoEndpoint: 'http://127.0.0.1:8000',
      eventsEndpoint: 'http://127.0.0.1:4010',
      secretsEndpoint: 'http://127.0.0.1:4010',
      tableName: 'state',
      busName: 'bus',
    });

    // Assess: optional tuning knobs may fall back to the functions' defaults locally.
    const optional = ['IDEMPOTENCY_TTL_SECONDS', 'METRICS_BULK_THRESHOLD'];
    const missing = [...Object.keys(deployed), ...bound].filter(
      (name) => !(name in local) && !optional.includes(name),
    );
    expect(missing).toEqual([]);
  });
});
