import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { queueRoutes } from '#functions/routes.ts';
import { loadConfig } from '#functions/runtime/config.ts';
import { createTableInput } from '#functions/store/table.ts';
import { adoptedTableProblems } from '#lib/adopted-table.ts';
import {
  ConnectorConfigError,
  EXAMPLE_CONFIG_FILE,
  loadConnectorConfig,
  parseConnectorConfig,
} from '#lib/config.ts';
import { targetProblems } from '#lib/config-deployment.ts';
import { connectorEnvironment } from '#lib/connector-environment.ts';
import { PROJECT_ROOT } from '#lib/connector-function.ts';

const knownRoutes = queueRoutes;

function context(values: Record<string, unknown> = {}) {
  return { tryGetContext: (key: string) => values[key] };
}

function problemsOf(action: () => unknown): readonly string[] {
  try {
    action();
  } catch (error) {
    if (error instanceof ConnectorConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConnectorConfigError');
}

function configDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'connector-config-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/** What every deployment config needs besides the partner name. */
const TARGETED = {
  account: '123456789012',
  region: 'us-east-1',
  provisioningUrls: { US: 'https://provisioning.example.com' },
  allowedHostnameSuffixes: ['.example.com'],
};

describe('connector config', () => {
  it('fills every default from a minimal config', () => {
    // Act
    const config = parseConnectorConfig(
      {
        partnerName: 'acme',
        account: '123456789012',
        region: 'us-east-1',
        provisioningUrls: { US: 'https://provisioning.example.com' },
        allowedHostnameSuffixes: ['.example.com'],
      },
      { knownRoutes },
    );

    // Assess
    expect(config).toMatchObject({
      installUrlTemplate: 'https://{hostname}',
      tokenSecret: { create: true },
      eventBus: { create: true },
      inboundSource: 'partner.app',
      outboundSource: 'workforce.connector',
      trialThresholdsDays: [7, 3, 1],
      trialWatchSchedule: 'rate(1 hour)',
      routes: {},
      alarms: {},
      logRetentionDays: 30,
      removalPolicy: 'retain',
    });
  });

  it('names every bad field with its path and what is expected, all at once', () => {
    // Act
    const problems = problemsOf(() =>
      parseConnectorConfig(
        {
          provisioningUrls: { US: 'http://provisioning.example.com' },
          tokenSecret: {},
          routes: { AccountCreated: { batchSize: 11 }, Unknown: {} },
          alarms: { topicArn: 'arn:aws:sns:us-east-1:123456789012:ops', email: 'ops@example.com' },
          logRetentionDays: 13,
          installUrlTemplate: 'https://fixed.example.com',
        },
        { knownRoutes },
      ),
    );

    // Assess
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^partnerName: is required/),
        'provisioningUrls.US: must be an https URL',
        expect.stringMatching(/^tokenSecret: expected \{"create": true/),
        'routes.AccountCreated.batchSize: expected 1..10',
        expect.stringMatching(/^routes\.Unknown: unknown route; expected one of AccountCreated, /),
        expect.stringMatching(/^alarms: give either topicArn .* or email/),
        expect.stringMatching(/^logRetentionDays: expected one of the CloudWatch Logs retention periods/),
        'installUrlTemplate: must contain {hostname}',
      ]),
    );
  });

  it('looks lost creates up in the sandbox resource names by default and takes "" to disable it', () => {
    // Prepare
    const base = { ...TARGETED, partnerName: 'acme' };

    // Act
    const byDefault = parseConnectorConfig(base, { knownRoutes });
    const disabled = parseConnectorConfig(
      { ...base, locationLookupResource: '', areaLookupResource: '' },
      { knownRoutes },
    );
    const problems = problemsOf(() =>
      parseConnectorConfig({ ...base, locationLookupResource: 'Company/QUERY' }, { knownRoutes }),
    );

    // Assess
    expect(byDefault).toMatchObject({
      locationLookupResource: 'Company',
      areaLookupResource: 'OperationalUnit',
    });
    expect(disabled).toMatchObject({ locationLookupResource: '', areaLookupResource: '' });
    expect(problems).toEqual([expect.stringMatching(/^locationLookupResource: expected a resource name/)]);
  });

  it('hands a disabled lookup to the functions as an empty variable their cold start reads as "no lookup"', () => {
    // Prepare
    const environment = connectorEnvironment({
      partnerName: 'acme',
      provisioningUrls: { US: 'https://provisioning.example.com' },
      allowedHostnameSuffixes: ['.example.com'],
      locationLookupResource: '',
    });

    // Act
    const config = loadConfig({
      ...environment,
      TABLE_NAME: 'state',
      EVENT_BUS_NAME: 'bus',
      TOKEN_SECRET_ID: 'secret',
    });

    // Assess
    expect(environment).toMatchObject({
      LOCATION_LOOKUP_RESOURCE: '',
      AREA_LOOKUP_RESOURCE: 'OperationalUnit',
    });
    expect(config).toMatchObject({ locationLookupResource: null, areaLookupResource: 'OperationalUnit' });
  });

  it('takes the customer managed key of an existing token secret as a key ARN, and says why anything else is refused', () => {
    // Prepare
    const base = { ...TARGETED, partnerName: 'acme' };
    const keyArn = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    const multiRegionKeyArn = 'arn:aws:kms:eu-west-1:123456789012:key/mrk-1234abcd12ab34cd56ef1234567890ab';
    const parse = (tokenSecret: unknown) =>
      parseConnectorConfig({ ...base, tokenSecret }, { knownRoutes }).tokenSecret;

    // Act
    const accepted = [keyArn, multiRegionKeyArn].map((kmsKeyArn) =>
      parse({ existingSecretName: 'partner/token', kmsKeyArn }),
    );
    const notKeyArns = [
      'alias/partner-token',
      'arn:aws:kms:eu-west-1:123456789012:alias/partner-token',
      '1234abcd-12ab-34cd-56ef-1234567890ab',
    ].map((kmsKeyArn) => problemsOf(() => parse({ existingSecretName: 'partner/token', kmsKeyArn })));
    const onCreated = problemsOf(() => parse({ create: true, kmsKeyArn: keyArn }));

    // Assess
    expect(accepted).toEqual([
      { existingSecretName: 'partner/token', kmsKeyArn: keyArn },
      { existingSecretName: 'partner/token', kmsKeyArn: multiRegionKeyArn },
    ]);
    for (const problems of notKeyArns) {
      expect(problems).toEqual([
        expect.stringMatching(
          /^tokenSecret\.kmsKeyArn: expected a KMS key ARN \(arn:aws:kms:<region>:<account>:key\/<key id>\), not an alias/,
        ),
      ]);
    }
    expect(onCreated).toEqual([
      expect.stringMatching(
        /^tokenSecret: kmsKeyArn is for an existing secret encrypted with a customer managed key/,
      ),
    ]);
  });

  it('refuses one source for inbound and outbound events', () => {
    // Act
    const problems = problemsOf(() =>
      parseConnectorConfig(
        {
          partnerName: 'acme',
          account: '123456789012',
          region: 'us-east-1',
          provisioningUrls: { US: 'https://provisioning.example.com' },
          allowedHostnameSuffixes: ['.example.com'],
          inboundSource: 'same',
          outboundSource: 'same',
        },
        { knownRoutes },
      ),
    );

    // Assess
    expect(problems).toEqual(['outboundSource: expected a source different from inboundSource']);
  });

  it('accepts the shipped example file as it is', () => {
    // Act
    const config = loadConnectorConfig(context({ config: EXAMPLE_CONFIG_FILE }), {
      cwd: PROJECT_ROOT,
      knownRoutes,
    });

    // Assess
    expect(config.partnerName).toBe('acme');
    expect(config.provisioningUrls.US).toBe('https://provisioning.example.com');
  });

  it('prefers connector.config.json over the example and lets cdk context override its fields', () => {
    // Prepare
    const dir = configDir({
      'connector.config.json': JSON.stringify({
        partnerName: 'from-file',
        account: '123456789012',
        region: 'us-east-1',
        provisioningUrls: { US: 'https://provisioning.example.com' },
        allowedHostnameSuffixes: ['.example.com'],
      }),
      [EXAMPLE_CONFIG_FILE]: '{}',
    });

    // Act
    const config = loadConnectorConfig(
      context({
        partnerName: 'from-context',
        stage: 'dev',
        trialThresholdsDays: '[10,2]',
        logRetentionDays: '14',
      }),
      { cwd: dir, knownRoutes },
    );

    // Assess
    expect(config).toMatchObject({
      partnerName: 'from-context',
      stage: 'dev',
      trialThresholdsDays: [10, 2],
      logRetentionDays: 14,
    });
  });

  it('says which file is missing or not JSON', () => {
    // Prepare
    const dir = configDir({ 'broken.json': '{ nope' });

    // Act
    const missing = problemsOf(() =>
      loadConnectorConfig(context({ config: 'absent.json' }), { cwd: dir, knownRoutes }),
    );
    const broken = problemsOf(() =>
      loadConnectorConfig(context({ config: 'broken.json' }), { cwd: dir, knownRoutes }),
    );

    // Assess
    expect(missing[0]).toMatch(/config file not found/);
    expect(broken[0]).toMatch(/not valid JSON/);
  });

  it('never falls back to the example: without connector.config.json it says how to create one', () => {
    // Prepare: the example is there, the partner's own file is not.
    const dir = configDir({
      [EXAMPLE_CONFIG_FILE]: readFileSync(join(PROJECT_ROOT, EXAMPLE_CONFIG_FILE), 'utf8'),
    });

    // Act
    const problems = problemsOf(() => loadConnectorConfig(context({}), { cwd: dir, knownRoutes }));

    // Assess
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`cp ${EXAMPLE_CONFIG_FILE} connector.config.json`);
    expect(problems[0]).toContain('-c config=<path>');
  });

  it('requires the install hostname suffixes outside the local runtime', () => {
    // Prepare
    const raw = {
      partnerName: 'acme',
      account: '123456789012',
      region: 'us-east-1',
      provisioningUrls: { US: 'https://provisioning.example.com' },
    };

    // Act
    const deployed = problemsOf(() => parseConnectorConfig(raw, { knownRoutes }));
    const local = parseConnectorConfig(raw, { knownRoutes, local: true });

    // Assess
    expect(deployed).toEqual([
      expect.stringMatching(/^allowedHostnameSuffixes: is required: the DNS suffixes/),
    ]);
    expect(local.allowedHostnameSuffixes).toBeUndefined();
  });

  it('refuses an HTTP timeout whose three attempts do not fit a route function timeout, naming the fix', () => {
    // Prepare
    const base = { ...TARGETED, partnerName: 'acme' };

    // Act: 3 × 15 s + 2 × 5 s of pauses + wrap-up leaves 60-second routes no time to start records.
    const tooSlow = problemsOf(() =>
      parseConnectorConfig({ ...base, httpTimeoutMs: 15_000 }, { knownRoutes }),
    );
    const raised = parseConnectorConfig(
      {
        ...base,
        httpTimeoutMs: 15_000,
        routes: Object.fromEntries(knownRoutes.map((route) => [route.detailType, { timeoutSeconds: 90 }])),
      },
      { knownRoutes },
    );

    // Assess
    const sixtySecondRoutes = knownRoutes.filter((route) => route.timeoutSeconds === 60);
    expect(sixtySecondRoutes.length).toBeGreaterThan(0);
    expect(tooSlow).toHaveLength(sixtySecondRoutes.length);
    expect(tooSlow[0]).toMatch(/^httpTimeoutMs: one service call may take 66000 ms .* at least 71$/);
    expect(raised.httpTimeoutMs).toBe(15_000);
  });

  it('deploys stage prod by default, and needs a deployment name when the partner name cannot name the stacks', () => {
    // Prepare
    const base = TARGETED;

    // Act
    const plain = parseConnectorConfig({ ...base, partnerName: 'acme' }, { knownRoutes });
    const dotted = problemsOf(() =>
      parseConnectorConfig({ ...base, partnerName: 'acme.eu' }, { knownRoutes }),
    );
    const named = parseConnectorConfig(
      { ...base, partnerName: 'acme.eu', deploymentName: 'acme-eu', stage: 'dev' },
      { knownRoutes },
    );
    const badStage = problemsOf(() =>
      parseConnectorConfig({ ...base, partnerName: 'acme', stage: 'Prod' }, { knownRoutes }),
    );
    const noTarget = problemsOf(() =>
      parseConnectorConfig(
        { ...base, account: undefined, region: 'us-east-1x', partnerName: 'acme' },
        { knownRoutes },
      ),
    );

    // Assess
    expect(plain).toMatchObject({
      stage: 'prod',
      consumers: [],
      state: {},
      outboundArchiveRetentionDays: 30,
    });
    expect(dotted).toEqual([expect.stringMatching(/^deploymentName: is required when partnerName/)]);
    expect(named).toMatchObject({ partnerName: 'acme.eu', deploymentName: 'acme-eu', stage: 'dev' });
    expect(badStage).toEqual([expect.stringMatching(/^stage: expected a lower-case letter/)]);
    expect(noTarget).toEqual([
      expect.stringMatching(/^account: is required/),
      expect.stringMatching(/^region: expected an AWS region/),
    ]);
  });

  it('checks publishers, consumers and the adopted table settings', () => {
    // Prepare
    const base = { ...TARGETED, partnerName: 'acme' };

    // Act
    const problems = problemsOf(() =>
      parseConnectorConfig(
        {
          ...base,
          publishers: {},
          consumers: [
            { busArn: 'results' },
            { busArn: 'arn:aws:events:us-east-1:777788889999:event-bus/r', detailTypes: ['AccountCreated'] },
          ],
          state: { existingTableDescription: 'table.json' },
        },
        { knownRoutes },
      ),
    );

    // Assess
    expect(problems).toEqual([
      expect.stringMatching(/^publishers: expected "accounts", "organizationId" or both/),
      expect.stringMatching(/^consumers\.0\.busArn: expected an event bus ARN/),
      expect.stringMatching(
        /^consumers\.1\.detailTypes\.0: expected outbound detail-types: BusinessProvisioned/,
      ),
    ]);
    expect(
      problemsOf(() =>
        parseConnectorConfig({ ...base, state: { existingTableDescription: 'table.json' } }, { knownRoutes }),
      ),
    ).toEqual([
      expect.stringMatching(
        /^state\.existingTableDescription: describes the table of state\.existingTableName/,
      ),
    ]);
  });

  it('refuses credentials or a profile of another account or region, and goes ahead without them', () => {
    // Act + Assess
    const configured = { account: '123456789012', region: 'us-east-1' };
    expect(
      targetProblems(configured, { CDK_DEFAULT_ACCOUNT: '123456789012', CDK_DEFAULT_REGION: 'us-east-1' }),
    ).toEqual([]);
    expect(targetProblems(configured, {})).toEqual([]);
    // Without credentials the CLI still passes a region, its own fallback: not a target.
    expect(targetProblems(configured, { CDK_DEFAULT_REGION: 'eu-west-1' })).toEqual([]);
    expect(
      targetProblems(configured, { CDK_DEFAULT_ACCOUNT: '210987654321', CDK_DEFAULT_REGION: 'eu-west-1' }),
    ).toEqual([
      expect.stringMatching(
        /^account: the config deploys to 123456789012, but the AWS credentials are of account 210987654321/,
      ),
      expect.stringMatching(
        /^region: the config deploys to us-east-1, but the AWS profile's region is eu-west-1/,
      ),
    ]);
  });

  it('compares an adopted table’s description with the keys and indexes the code needs', () => {
    // Prepare: what describe-table answers for a table made from the connector's definition.
    const input = createTableInput('restored');
    const described = {
      Table: { ...input, TableArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/restored' },
    };
    const expected = { tableName: 'restored', account: '123456789012', region: 'us-east-1' };
    const withoutDriftIndex = {
      Table: {
        ...described.Table,
        GlobalSecondaryIndexes: input.GlobalSecondaryIndexes?.filter(
          (index) => index.IndexName !== 'driftIndex',
        ),
      },
    };
    const keysOnly = {
      Table: {
        ...described.Table,
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        GlobalSecondaryIndexes: input.GlobalSecondaryIndexes?.map((index) => ({
          ...index,
          Projection: { ProjectionType: 'KEYS_ONLY' },
        })),
      },
    };

    // Act + Assess
    expect(adoptedTableProblems(described, expected)).toEqual([]);
    expect(adoptedTableProblems(described.Table, expected)).toEqual([]);
    expect(adoptedTableProblems(withoutDriftIndex, expected)).toEqual([
      'index driftIndex is missing (the connector queries it)',
    ]);
    expect(adoptedTableProblems(keysOnly, { ...expected, account: '210987654321' })).toEqual([
      'the table is in account 123456789012, the deployment in 210987654321',
      'table: keys id/undefined, the connector needs pk (HASH) / sk (RANGE)',
      'index trialIndex does not project accountId, hostname, trialEndDate, region (KEYS_ONLY)',
      'index driftIndex does not project accountId (KEYS_ONLY)',
    ]);
    expect(adoptedTableProblems({}, expected)).toEqual([
      expect.stringMatching(/^not a describe-table answer/),
    ]);
  });
});
