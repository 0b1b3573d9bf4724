import { Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type { Construct } from 'constructs';

/**
 * The bus's resource policy for publishers in other accounts (config `publishers`): PutEvents on
 * this bus only, and only for entries of the inbound source, so another account can neither publish
 * elsewhere nor forge the connector's result events.
 *
 * "To enable multiple AWS accounts to put events to your event bus, run PutPermission once for each
 * of these accounts. Or, if all the accounts are members of the same AWS organization, you can run
 * PutPermission once specifying Principal as "*" and specifying the AWS organization ID in Condition"
 * (AWS CloudFormation template reference, AWS::Events::EventBusPolicy,
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-events-eventbuspolicy.html);
 * the full statement form (`Statement`) carries the source condition as well. `events:source` is
 * multivalued for PutEvents (one source per entry): `ForAllValues:StringEquals` with a `Null`
 * check, as in the functions' own grant (connector-function.ts, bindBus) and the EventBridge user
 * guide's example "Send events to a custom bus in a different account"
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-event-bus-example-policy-cross-account-custom-bus-source.html).
 * The publisher's own account must allow it too (docs/policies/publisher.json): the bus policy
 * alone lets no identity of the other account publish.
 */

export interface ConnectorPublishers {
  readonly accounts?: readonly string[];
  readonly organizationId?: string;
}

/** The statement's condition: the inbound source, on every entry, present. */
export function inboundSourceCondition(inboundSource: string): Record<string, Record<string, unknown>> {
  return {
    'ForAllValues:StringEquals': { 'events:source': [inboundSource] },
    Null: { 'events:source': 'false' },
  };
}

/** One AWS::Events::EventBusPolicy per kind of publisher (accounts; an organization). */
export function addPublisherPolicies(
  scope: Construct,
  bus: events.IEventBus,
  publishers: ConnectorPublishers,
  inboundSource: string,
): events.CfnEventBusPolicy[] {
  const { partition } = Stack.of(scope);
  const statement = (
    sid: string,
    principal: unknown,
    extra: Record<string, Record<string, unknown>> = {},
  ) => ({
    Sid: sid,
    Effect: 'Allow',
    Principal: principal,
    Action: 'events:PutEvents',
    Resource: bus.eventBusArn,
    Condition: { ...inboundSourceCondition(inboundSource), ...extra },
  });
  const policies: events.CfnEventBusPolicy[] = [];
  if (publishers.accounts && publishers.accounts.length > 0) {
    const sid = 'PublisherAccountsInboundEventsOnly';
    policies.push(
      new events.CfnEventBusPolicy(scope, 'PublisherAccountsPolicy', {
        eventBusName: bus.eventBusName,
        statementId: sid,
        statement: statement(sid, {
          AWS: publishers.accounts.map((account) => `arn:${partition}:iam::${account}:root`),
        }),
      }),
    );
  }
  if (publishers.organizationId) {
    const sid = 'PublisherOrganizationInboundEventsOnly';
    const policy = new events.CfnEventBusPolicy(scope, 'PublisherOrganizationPolicy', {
      eventBusName: bus.eventBusName,
      statementId: sid,
      statement: statement(sid, '*', {
        StringEquals: { 'aws:PrincipalOrgID': publishers.organizationId },
      }),
    });
    // Both edit one bus policy: one after the other, not at once.
    if (policies[0]) policy.addDependency(policies[0]);
    policies.push(policy);
  }
  return policies;
}
