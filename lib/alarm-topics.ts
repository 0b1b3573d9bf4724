import { Annotations, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import type { AlarmSeverity } from './alarm-catalog.ts';

/**
 * The two alarm topics, one per severity (lib/alarm-catalog.ts): `page` (logical id `AlarmTopic`,
 * the topic earlier versions made, so a deployed one is kept) and `ticket`. Each is created
 * KMS-encrypted, TLS-only and open to CloudWatch alarms of this account and region, or imported.
 */

export interface AlarmTopicSettings {
  /** @default - a topic is created */
  readonly existingTopicObj?: sns.ITopic;
  /** Subscribed to a created topic. @default - no subscription (synth warns) */
  readonly email?: string;
}

export interface AlarmTopics {
  readonly page: sns.ITopic;
  readonly ticket: sns.ITopic;
  /** The key of the created topics (one for both), when any is created. */
  readonly key?: kms.Key;
}

const TOPIC_ID: Readonly<Record<AlarmSeverity, string>> = { page: 'AlarmTopic', ticket: 'TicketAlarmTopic' };
const DISPLAY_NAME: Readonly<Record<AlarmSeverity, string>> = {
  page: 'Workforce connector alarms (page)',
  ticket: 'Workforce connector alarms (ticket)',
};

export function createAlarmTopics(
  scope: Construct,
  settings: Readonly<Record<AlarmSeverity, AlarmTopicSettings>>,
): AlarmTopics {
  const creates = !settings.page.existingTopicObj || !settings.ticket.existingTopicObj;
  const key = creates ? createAlarmTopicKey(scope) : undefined;
  const topicOf = (severity: AlarmSeverity): sns.ITopic => {
    const { existingTopicObj, email } = settings[severity];
    if (existingTopicObj) return existingTopicObj;
    if (!key) throw new Error('no key for a created alarm topic');
    if (!email) warnUnsubscribed(scope, severity);
    return createAlarmTopic(scope, severity, key, email);
  };
  const page = topicOf('page');
  const ticket = topicOf('ticket');
  return { page, ticket, ...(key ? { key } : {}) };
}

/**
 * A created topic nobody subscribes to: every alarm of that severity reaches no one. Synth says so
 * as a warning (AWS CDK API reference, `Annotations.addWarningV2`: "The CLI will display the
 * warning when an app is synthesized, or fail if run in `--strict` mode",
 * https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.Annotations.html); a deployment that
 * subscribes by other means acknowledges it (`Annotations.of(stack).acknowledgeWarning(id)`).
 */
function warnUnsubscribed(scope: Construct, severity: AlarmSeverity): void {
  const field =
    severity === 'page' ? 'alarms.email or alarms.topicArn' : 'alarms.ticketEmail or alarms.ticketTopicArn';
  Annotations.of(scope).addWarningV2(
    `workforce-connector:alarms-${severity}-unsubscribed`,
    `NO ONE WILL HEAR ${severity.toUpperCase()} ALARMS: the ${severity} alarm topic has no subscriber; set ${field} (docs/deploy.md, "Alarms")`,
  );
}

function createAlarmTopicKey(scope: Construct): kms.Key {
  const key = new kms.Key(scope, 'AlarmTopicKey', {
    description: 'Encrypts the connector alarm topics',
    enableKeyRotation: true,
  });
  // CloudWatch publishes alarm notifications to the encrypted topic with this key ("To allow the
  // AWS service to have the kms:GenerateDataKey* and kms:Decrypt permissions, add the following
  // statement to the KMS policy": SNS developer guide, "Data encryption", AWS services). The
  // guide's statement has no condition; AWS's own Modern Data Architecture Accelerator scopes the
  // same grant for CloudWatch alarms with aws:SourceAccount and aws:SourceArn ("conditions here are
  // both supported and correct", unlike EventBridge's). docs/deploy.md has the post-deploy check
  // that an alarm really arrives.
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
      conditions: fromOwnAlarms(scope),
    }),
  );
  return key;
}

/**
 * Only alarms of this account and region (CloudWatch user guide, "Setting up Amazon SNS
 * notifications", preventing the confused deputy: aws:SourceArn and aws:SourceAccount). A composite
 * alarm's ARN has the same `alarm:` form as a metric alarm's (CloudWatch API reference,
 * CompositeAlarm, AlarmArn), so the composites that notify match it too.
 */
function fromOwnAlarms(scope: Construct) {
  const { account, region, partition } = Stack.of(scope);
  return {
    ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
    StringEquals: { 'aws:SourceAccount': account },
  };
}

function createAlarmTopic(
  scope: Construct,
  severity: AlarmSeverity,
  key: kms.Key,
  email: string | undefined,
): sns.Topic {
  const topic = new sns.Topic(scope, TOPIC_ID[severity], {
    displayName: DISPLAY_NAME[severity],
    masterKey: key,
    enforceSSL: true,
  });
  // enforceSSL makes a topic policy holding only its TLS deny, which replaces SNS's default
  // policy: without this allow, CloudWatch could not publish and no alarm would reach anyone.
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchAlarmsOfThisAccount',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: fromOwnAlarms(scope),
    }),
  );
  if (email) topic.addSubscription(new subscriptions.EmailSubscription(email));
  return topic;
}
