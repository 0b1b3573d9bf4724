import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ruleTargetDeadLetterQueue } from './delivery-settings.ts';

/**
 * Rules that forward the connector's result events to buses of other accounts (config
 * `consumers`): per consumer, a rule on the connector bus for the outbound source (and the
 * detail-types named, else every one: results, SyncFailed, SyncSkipped, the watches' announcements)
 * whose target is the consumer's bus, sent with a role of this account, and one dead-letter queue
 * for what EventBridge could not deliver (alarm `ConsumerDeliveryDeadLetters`).
 *
 * The role: an event bus target in another account is sent with a role that may PutEvents on it
 * ("If you grant permissions using an organization, then accounts in that organization must specify
 * a RoleArn with proper permissions when they use PutTarget to add your account's event bus as a
 * target", AWS::Events::EventBusPolicy); the CDK's EventBus target makes that role with
 * events:PutEvents on the target bus (aws-events-targets, EventBusProps `role`: "a new role is
 * created"). The consumer's bus policy must allow this account. Retries: the CDK's EventBusProps
 * say "Retry policy is not supported for Event bus targets", so EventBridge's own retry applies
 * (24 hours, 185 attempts), after which the event goes to the dead-letter queue
 * (https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.aws_events_targets.EventBusProps.html).
 */

export interface ConnectorConsumer {
  readonly busArn: string;
  readonly detailTypes?: readonly string[];
}

export interface ConnectorConsumerResources {
  readonly rules: readonly events.Rule[];
  /** Events EventBridge could not deliver to a consumer's bus; absent without consumers. */
  readonly deadLetterQueue?: sqs.Queue;
}

export function addConsumerRules(
  scope: Construct,
  props: {
    readonly eventBus: events.IEventBus;
    readonly outboundSource: string;
    readonly consumers: readonly ConnectorConsumer[];
  },
): ConnectorConsumerResources {
  if (props.consumers.length === 0) return { rules: [] };
  const deadLetterQueue = ruleTargetDeadLetterQueue(
    scope,
    'ConsumerDeliveryDeadLetterQueue',
    'This queue is itself a dead-letter queue: the consumer rules send the events EventBridge could not deliver to it.',
  );
  const rules = props.consumers.map((consumer, index) => {
    const rule = new events.Rule(scope, `Consumer${index + 1}Rule`, {
      eventBus: props.eventBus,
      description: `Result events to ${consumer.busArn}`,
      eventPattern: {
        source: [props.outboundSource],
        ...(consumer.detailTypes ? { detailType: [...consumer.detailTypes] } : {}),
      },
    });
    rule.addTarget(
      new targets.EventBus(
        events.EventBus.fromEventBusArn(scope, `Consumer${index + 1}Bus`, consumer.busArn),
        {
          deadLetterQueue,
        },
      ),
    );
    return rule;
  });
  return { rules, deadLetterQueue };
}
