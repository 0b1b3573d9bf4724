import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#lib/connector-function.ts';
import {
  comparePolicyFiles,
  connectorPolicies,
  outputsOf,
  POLICY_DIR,
  type PolicyDocument,
  type PolicyStatement,
} from '#scripts/policies.ts';
import { fillPolicy, placeholdersOf } from '#scripts/policy-placeholders.ts';
import { connectorConfig, synthesizeConnector } from './synthesize.ts';

/**
 * The policies docs/deploy.md gives publishers and operators (docs/policies/*.json): current with
 * their source (scripts/policies.ts), every placeholder a stack output or a setting the docs name,
 * and written against the template's own resources. Their evaluation against the calls each script
 * makes belongs to the local IAM enforcement.
 */

/** What the docs tell the reader to fill in besides the stack outputs. */
const SETTINGS = {
  Region: 'eu-west-1',
  Account: '123456789012',
  InboundSource: 'partner.app',
  TokenSecretName: 'workforce-connector/acme/token',
  PublisherAccount: '210987654321',
  TokenSecretKmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
};

type Resource = { Type: string; Properties: Record<string, unknown> };

const asList = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

function statement(policy: PolicyDocument, sid: string): PolicyStatement {
  const found = policy.Statement.find((candidate) => candidate.Sid === sid);
  if (!found) throw new Error(`no statement ${sid}`);
  return found;
}

describe('docs/policies', () => {
  /** The Service stack's output keys, each with a value shaped as describe-stacks gives it. */
  let outputs: Record<string, string>;
  let service: { Resources: Record<string, Resource>; Outputs: Record<string, { Value: unknown }> };

  beforeAll(() => {
    service = synthesizeConnector(connectorConfig(), {
      cloudFormationValidation: false,
    }).service.toJSON() as typeof service;
    // As describe-stacks gives them: keys with CDK's construct path and hash, values by what they are.
    outputs = outputsOf(
      Object.keys(service.Outputs).map((key) => {
        const name = key.replace(/[0-9A-F]{8}$/, '').replace(/^Connector/, '');
        return {
          OutputKey: key,
          OutputValue: name.endsWith('QueueUrl')
            ? `https://sqs.eu-west-1.amazonaws.com/123456789012/${name.replace(/Url$/, '')}-queue`
            : `${name}-value`,
        };
      }),
    );
  });

  it('are the files scripts/policies.ts writes (npm run policies)', async () => {
    // Act
    const drift = await comparePolicyFiles();

    // Assess
    expect(drift, 'docs/policies/ is out of date: run npm run policies').toEqual({ changed: [], stale: [] });
    for (const name of connectorPolicies().keys()) {
      expect(
        () => JSON.parse(readFileSync(join(PROJECT_ROOT, POLICY_DIR, name), 'utf8')),
        name,
      ).not.toThrow();
    }
  });

  it('name only stack outputs and the settings the docs list, and fill in completely', () => {
    for (const [name, policy] of connectorPolicies()) {
      // Act
      const filled = fillPolicy(policy, outputs, SETTINGS);

      // Assess
      expect(placeholdersOf(filled), name).toEqual([]);
      expect(JSON.stringify(filled), name).not.toContain('{{');
    }
  });

  it('refuses to fill a placeholder nothing gives, naming it', () => {
    // Act + Assess
    expect(() =>
      fillPolicy(connectorPolicies().get('publisher.json'), outputs, { Region: 'eu-west-1' }),
    ).toThrow(/^no value for \{\{Account\}\}, \{\{InboundSource\}\}:/);
  });

  it('let a publisher put events on the connector bus with the inbound source only, never the outbound one', () => {
    for (const name of ['publisher.json', 'publisher-bus-policy.json']) {
      // Act
      const policy = fillPolicy(connectorPolicies().get(name)!, outputs, SETTINGS);

      // Assess
      expect(policy.Statement, name).toHaveLength(1);
      expect(policy.Statement[0], name).toMatchObject({
        Effect: 'Allow',
        Action: 'events:PutEvents',
        Resource: 'arn:aws:events:eu-west-1:123456789012:event-bus/EventBusName-value',
        Condition: {
          'ForAllValues:StringEquals': { 'events:source': ['partner.app'] },
          Null: { 'events:source': 'false' },
        },
      });
      expect(JSON.stringify(policy), name).not.toContain('workforce.connector');
    }
    expect(connectorPolicies().get('publisher-bus-policy.json')?.Statement[0]?.Principal).toEqual({
      AWS: 'arn:aws:iam::{{PublisherAccount}}:root',
    });
  });

  it('let redrive move each dead-letter queue of the template back only to the queue its redrive policy names', () => {
    // Prepare: every queue with a redrive policy and both queues in the outputs.
    // An output's name without the construct path and hash CDK adds (ConnectorEventBusName5B64B6EF).
    const outputOf = new Map(
      Object.entries(service.Outputs).map(([key, output]) => [
        (output.Value as { Ref?: string }).Ref,
        key.replace(/[0-9A-F]{8}$/, '').replace(/^Connector/, ''),
      ]),
    );
    const pairs = Object.entries(service.Resources)
      .filter(([, resource]) => resource.Type === 'AWS::SQS::Queue' && resource.Properties.RedrivePolicy)
      .map(([id, resource]) => {
        const target = (
          resource.Properties.RedrivePolicy as { deadLetterTargetArn: { 'Fn::GetAtt': [string] } }
        ).deadLetterTargetArn['Fn::GetAtt'][0];
        return { source: outputOf.get(id), deadLetters: outputOf.get(target) };
      });
    const policy = connectorPolicies().get('operator-redrive.json')!;
    const moveFrom = asList(statement(policy, 'MoveMessagesOutOfTheConnectorDeadLetterQueues').Resource);
    const moveTo = statement(policy, 'MoveThemBackToTheQueueTheyCameFrom');
    const arn = (output: string) =>
      `arn:aws:sqs:{{Region}}:{{Account}}:{{${output.replace(/Url$/, 'Name')}}}`;

    // Assess
    expect(pairs.length).toBeGreaterThan(10);
    for (const { source, deadLetters } of pairs) {
      expect(source, 'every redriven queue is a stack output').toBeDefined();
      expect(deadLetters, 'every dead-letter queue is a stack output').toBeDefined();
      expect(moveFrom).toContain(arn(deadLetters!));
      expect(asList(moveTo.Resource)).toContain(arn(source!));
    }
    expect(moveFrom).toHaveLength(pairs.length);
    expect(asList(moveTo.Resource)).toHaveLength(pairs.length);
    // Sending only to the source queues, never to a dead-letter queue.
    const senders = policy.Statement.filter((st) => asList(st.Action).includes('sqs:SendMessage'));
    expect(senders.map((st) => st.Sid)).toEqual(['MoveThemBackToTheQueueTheyCameFrom']);
  });

  it('scope every resource to the connector: "*" only for ListRules, which takes no resource', () => {
    for (const [name, policy] of connectorPolicies()) {
      for (const st of policy.Statement) {
        // Assess
        const wildcard = asList(st.Resource).filter((resource) => resource.includes('*'));
        if (asList(st.Action).every((action) => action === 'events:ListRules')) continue;
        expect(
          wildcard.every((resource) => resource.endsWith(':replay/connector-replay-*')),
          `${name} ${st.Sid}`,
        ).toBe(true);
      }
    }
  });
});
