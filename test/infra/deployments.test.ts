import { readFileSync } from 'node:fs';
import { runSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_INBOUND_SOURCE, DEFAULT_OUTBOUND_SOURCE } from '#functions/contracts/source.ts';
import { TemplateModel } from '#local/cloudformation.ts';
import { readTemplateIam } from '#local/iam/template-iam.ts';
import type { CfnTemplate } from '#local/template.ts';
import { outputKeysIn, writeOutputsDoc } from '#scripts/outputs-doc.ts';
import { fillPolicy } from '#scripts/policy-placeholders.ts';
import { connectorConfig, type SynthesizedConnector, synthesizeConnector } from './synthesize.ts';

/**
 * Issue 28, points 1-3: three deployments in one account and region — one partner's `dev` and
 * `prod` stages and a second partner — synthesized once each and shared by the tests below.
 *
 * - nothing they name collides: stacks, physical names, exports, metric namespaces and dimensions;
 * - no stack imports another's export (names pass by configuration);
 * - `publishers.accounts` makes a bus policy the local IAM evaluator (local/iam/) reads as allowing
 *   PutEvents from that account with the inbound source, and nothing with the outbound source;
 * - `state.existingTableName` makes no table: the functions use the adopted one.
 */

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';
const PUBLISHER = '444455556666';
const OTHER_ACCOUNT = '999988887777';
const ADOPTED_TABLE = 'restored-connector-table';

type Resource = { Type: string; Properties?: Record<string, unknown> };
type Json = { Resources: Record<string, Resource>; Outputs?: Record<string, { Export?: { Name: unknown } }> };

/** The name property of each type the connector names (CloudFormation's "Name type" properties). */
const NAME_PROPERTY: Record<string, string> = {
  'AWS::Events::EventBus': 'Name',
  'AWS::Events::Archive': 'ArchiveName',
  'AWS::Events::Rule': 'Name',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::CloudWatch::Alarm': 'AlarmName',
  'AWS::CloudWatch::CompositeAlarm': 'AlarmName',
  'AWS::CloudWatch::Dashboard': 'DashboardName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::Pipes::Pipe': 'Name',
};

/** Everything of one deployment that another in the same account and region must not share. */
function namesOf(deployment: SynthesizedConnector): Set<string> {
  const names = new Set<string>([deployment.stacks.stateful.stackName, deployment.stacks.service.stackName]);
  for (const template of [deployment.stateful.toJSON(), deployment.service.toJSON()] as Json[]) {
    for (const resource of Object.values(template.Resources)) {
      const property = NAME_PROPERTY[resource.Type];
      const name = property ? resource.Properties?.[property] : undefined;
      if (typeof name === 'string') names.add(`${resource.Type} ${name}`);
      // The functions' metric namespace (Powertools reads POWERTOOLS_METRICS_NAMESPACE).
      const variables = (resource.Properties?.['Environment'] as { Variables?: Record<string, unknown> })
        ?.Variables;
      const namespace = variables?.['POWERTOOLS_METRICS_NAMESPACE'];
      if (typeof namespace === 'string') names.add(`namespace ${namespace}`);
    }
    for (const output of Object.values(template.Outputs ?? {})) {
      if (output.Export) names.add(`export ${JSON.stringify(output.Export.Name)}`);
    }
  }
  for (const metric of customMetricsOf(deployment)) names.add(`metric ${metric}`);
  return names;
}

/** The connector's own metrics the alarms read: namespace, name and dimensions (AWS/* ones name resources). */
function customMetricsOf(deployment: SynthesizedConnector): string[] {
  const alarms = Object.values((deployment.service.toJSON() as Json).Resources).filter(
    (resource) => resource.Type === 'AWS::CloudWatch::Alarm',
  );
  const metrics: Array<{ Namespace?: unknown; MetricName?: unknown; Dimensions?: unknown }> = alarms.flatMap(
    (alarm) => [
      alarm.Properties ?? {},
      ...(
        (alarm.Properties?.['Metrics'] as Array<{ MetricStat?: { Metric: Record<string, unknown> } }>) ?? []
      )
        .map((query) => query.MetricStat?.Metric)
        .filter((metric) => metric !== undefined),
    ],
  );
  return metrics
    .filter((metric) => typeof metric.Namespace === 'string' && !metric.Namespace.startsWith('AWS/'))
    .map((metric) => JSON.stringify([metric.Namespace, metric.MetricName, metric.Dimensions]));
}

function importsOf(template: unknown): string[] {
  return [...JSON.stringify(template).matchAll(/"Fn::ImportValue":(\{[^}]*\}|"[^"]*")/g)].map(
    (match) => match[1]!,
  );
}

describe('three deployments in one account and region', () => {
  let acmeDev: SynthesizedConnector;
  let acmeProd: SynthesizedConnector;
  let globexProd: SynthesizedConnector;

  beforeAll(() => {
    acmeDev = synthesizeConnector(
      connectorConfig({
        stage: 'dev',
        publishers: { accounts: [PUBLISHER] },
        outboundArchiveRetentionDays: 90,
        consumers: [{ busArn: 'arn:aws:events:us-east-1:777788889999:event-bus/results' }],
      }),
    );
    acmeProd = synthesizeConnector(connectorConfig(), { cloudFormationValidation: false });
    globexProd = synthesizeConnector(
      connectorConfig({
        partnerName: 'globex',
        state: {
          existingTableName: ADOPTED_TABLE,
          existingTableDescription: 'test/infra/fixtures/restored-table.describe.json',
          existingArchives: true,
        },
      }),
    );
  }, 240_000);

  it('share no stack, physical name, export, metric namespace or metric', () => {
    // Prepare
    const deployments = { acmeDev, acmeProd, globexProd };
    const names = Object.fromEntries(
      Object.entries(deployments).map(([key, value]) => [key, namesOf(value)]),
    );

    // Assess: each deployment names its own, and none is another's.
    for (const own of Object.values(names)) {
      expect([...own].filter((name) => name.startsWith('AWS::CloudWatch::Alarm')).length).toBeGreaterThan(50);
      expect([...own].filter((name) => name.startsWith('export ')).length).toBeGreaterThan(20);
      expect([...own].filter((name) => name.startsWith('metric ')).length).toBeGreaterThan(10);
    }
    const entries = Object.entries(names);
    for (const [i, [first, own]] of entries.entries()) {
      for (const [second, other] of entries.slice(i + 1)) {
        expect(
          [...own].filter((name) => other.has(name)),
          `${first} and ${second}`,
        ).toEqual([]);
      }
    }
    expect(names['acmeDev']).toContain('namespace WorkforceConnector/acme-dev');
    expect(names['acmeProd']).toContain('AWS::Events::EventBus workforce-connector-acme-prod');
    expect(names['globexProd']).toContain('AWS::CloudWatch::Dashboard WorkforceConnector-globex-prod');
  });

  it('tie their stacks by name, never by an imported export', () => {
    for (const deployment of [acmeDev, acmeProd, globexProd]) {
      // Assess
      expect(importsOf(deployment.stateful.toJSON())).toEqual([]);
      expect(importsOf(deployment.service.toJSON())).toEqual([]);
      expect(deployment.stacks.service.dependencies).toContain(deployment.stacks.stateful);
    }
  });

  describe('publishers.accounts: the bus policy, as the local IAM evaluator reads it', () => {
    async function putEvents(principalAccount: string, sources: readonly string[]): Promise<string> {
      // Prepare: both stacks as the local runtime models them; the publisher's own policy from docs/.
      const model = new TemplateModel(
        [acmeDev.stacks.stateful, acmeDev.stacks.service].map((stack) => ({
          stackName: stack.stackName,
          template: (stack === acmeDev.stacks.stateful
            ? acmeDev.stateful
            : acmeDev.service
          ).toJSON() as CfnTemplate,
        })),
        { region: REGION, account: ACCOUNT, sqsEndpoint: 'http://127.0.0.1:1' },
      );
      const iam = readTemplateIam(model, { region: REGION, account: ACCOUNT });
      expect(iam.problems).toEqual([]);
      const bus = model.ofType('AWS::Events::EventBus')[0]!;
      const busPolicy = iam.resourcePolicies.get(bus.arn);
      expect(busPolicy?.kind).toBe('bus policy');
      const publisherPolicy = fillPolicy(
        JSON.parse(readFileSync(new URL('../../docs/policies/publisher.json', import.meta.url), 'utf8')),
        {},
        { Region: REGION, Account: ACCOUNT, EventBusName: bus.name, InboundSource: DEFAULT_INBOUND_SOURCE },
      );
      const simulation: Simulation = {
        request: {
          principal: `arn:aws:iam::${principalAccount}:role/partner-publisher`,
          action: 'events:PutEvents',
          resource: { resource: bus.arn, accountId: ACCOUNT },
          contextVariables: { 'events:source': [...sources], 'aws:SecureTransport': 'true' },
        },
        identityPolicies: [{ name: 'publisher', policy: publisherPolicy }],
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        resourcePolicy: busPolicy!.document,
      };
      // Act
      const result = await runSimulation(simulation, {});
      if (result.resultType === 'error') throw new Error(JSON.stringify(result.errors));
      return result.overallResult;
    }

    it('allows PutEvents from the publisher account with the inbound source', async () => {
      expect(await putEvents(PUBLISHER, [DEFAULT_INBOUND_SOURCE])).toBe('Allowed');
    });

    it('refuses the outbound source, alone or beside the inbound one', async () => {
      expect(await putEvents(PUBLISHER, [DEFAULT_OUTBOUND_SOURCE])).not.toBe('Allowed');
      expect(await putEvents(PUBLISHER, [DEFAULT_INBOUND_SOURCE, DEFAULT_OUTBOUND_SOURCE])).not.toBe(
        'Allowed',
      );
    });

    it('refuses an account it does not name', async () => {
      expect(await putEvents(OTHER_ACCOUNT, [DEFAULT_INBOUND_SOURCE])).not.toBe('Allowed');
    });

    it('is not made without publishers', () => {
      acmeProd.stateful.resourceCountIs('AWS::Events::EventBusPolicy', 0);
    });
  });

  describe('consumers: result events forwarded to another account', () => {
    it('makes one rule per consumer on the outbound source, sending to its bus with a role and a dead-letter queue', () => {
      // Assess
      const rules = Object.values((acmeDev.service.toJSON() as Json).Resources).filter(
        (resource) =>
          resource.Type === 'AWS::Events::Rule' &&
          JSON.stringify(resource.Properties?.['Targets']).includes('event-bus/results'),
      );
      expect(rules).toHaveLength(1);
      expect(rules[0]?.Properties?.['EventPattern']).toEqual({ source: [DEFAULT_OUTBOUND_SOURCE] });
      const [target] = (rules[0]?.Properties?.['Targets'] ?? []) as Array<Record<string, unknown>>;
      expect(target).toMatchObject({
        Arn: 'arn:aws:events:us-east-1:777788889999:event-bus/results',
        RoleArn: expect.anything(),
        DeadLetterConfig: { Arn: expect.anything() },
      });
      expect(Object.keys(acmeDev.service.toJSON().Outputs)).toContain('ConsumerDeliveryDeadLetterQueueUrl');
      acmeProd.service.resourcePropertiesCountIs(
        'AWS::Events::Rule',
        { EventPattern: { source: [DEFAULT_OUTBOUND_SOURCE] } },
        0,
      );
    });
  });

  describe('archives', () => {
    it('archive the result events beside the inbound ones, each kept as configured, under the deployment’s names', () => {
      // Assess
      acmeDev.stateful.hasResourceProperties('AWS::Events::Archive', {
        ArchiveName: 'wfc-acme-dev-outbound',
        EventPattern: { source: [DEFAULT_OUTBOUND_SOURCE] },
        RetentionDays: 90,
      });
      acmeDev.stateful.hasResourceProperties('AWS::Events::Archive', {
        ArchiveName: 'wfc-acme-dev-inbound',
        EventPattern: { source: [DEFAULT_INBOUND_SOURCE] },
        RetentionDays: 30,
      });
      acmeDev.service.hasOutput('OutboundArchiveName', { Value: 'wfc-acme-dev-outbound' });
    });

    it('adopt kept archives by name (state.existingArchives) instead of making them again', () => {
      globexProd.stateful.resourceCountIs('AWS::Events::Archive', 0);
      globexProd.service.hasOutput('ArchiveName', { Value: 'wfc-globex-prod-inbound' });
    });
  });

  describe('outputs', () => {
    it('have the keys docs/deploy.md lists, each exported under the deployment and stage', async () => {
      // Prepare: a deployment with every optional output (consumers, a created secret).
      const outputs = { ...acmeDev.stateful.toJSON().Outputs, ...acmeDev.service.toJSON().Outputs } as Record<
        string,
        { Export?: { Name: unknown } }
      >;
      const documented = outputKeysIn(readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8'));

      // Assess
      expect(await writeOutputsDoc(true), 'docs/deploy.md outputs are out of date: npm run policies').toBe(
        false,
      );
      expect(documented.length).toBeGreaterThan(40);
      expect(new Set(documented).size).toBe(documented.length);
      expect(new Set(Object.keys(outputs))).toEqual(new Set(documented));
      for (const [key, output] of Object.entries(outputs)) {
        expect(output.Export?.Name, key).toBe(`WorkforceConnector-acme-dev-${key}`);
      }
    });

    it('leave out the consumer dead-letter queue without consumers; the State stack outputs the secret ARN', () => {
      expect(Object.keys(acmeProd.service.toJSON().Outputs)).not.toContain(
        'ConsumerDeliveryDeadLetterQueueUrl',
      );
      expect(Object.keys(acmeProd.stateful.toJSON().Outputs ?? {})).toEqual(['TokenSecretArn']);
    });
  });

  describe('state.existingTableName', () => {
    it('synthesizes without a table, the functions given the adopted one', () => {
      // Assess
      globexProd.stateful.resourceCountIs('AWS::DynamoDB::Table', 0);
      globexProd.service.resourceCountIs('AWS::DynamoDB::Table', 0);
      const tables = Object.values((globexProd.service.toJSON() as Json).Resources)
        .filter((resource) => resource.Type === 'AWS::Lambda::Function')
        .map(
          (fn) =>
            (fn.Properties?.['Environment'] as { Variables?: Record<string, unknown> } | undefined)
              ?.Variables?.['TABLE_NAME'],
        );
      expect(tables.length).toBeGreaterThan(5);
      expect(new Set(tables)).toEqual(new Set([ADOPTED_TABLE]));
      expect(JSON.stringify(globexProd.service.toJSON())).toContain(`:table/${ADOPTED_TABLE}`);
    });

    it('keeps the created table when none is adopted, named after the deployment', () => {
      acmeProd.stateful.hasResourceProperties('AWS::DynamoDB::Table', {
        TableName: 'workforce-connector-acme-prod',
      });
    });
  });
});
