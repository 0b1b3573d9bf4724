import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as pipes from 'aws-cdk-lib/aws-pipes';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ConnectorMetric, MetricName, TOKEN_PROBLEM_CODES } from '#functions/runtime/metric-names.ts';
import type { ConnectorFunction } from './connector-function.ts';
import { connectorMetric, serviceMetric } from './connector-metrics.ts';
import type { ConnectorRefusalResources } from './connector-refusal.ts';
import type { ConnectorRouteResources } from './connector-route.ts';
import { type ConnectorScheduleResources, scheduleIdOf } from './connector-schedule.ts';

/**
 * The alarm topic and every alarm of the connector, each naming its runbook entry in
 * docs/deploy.md. Alarms are made in the connector's scope (see WorkforceConnector on why), each
 * part's right after the part itself.
 */

export interface ConnectorAlarmsProps {
  /** @default - a KMS-encrypted topic is created */
  readonly existingAlarmTopicObj?: sns.ITopic;
  /** E-mail subscribed to a created alarm topic. @default - no subscription */
  readonly alarmEmail?: string;
  readonly namespace: string;
  /** Each alarm's name from its id (the deployment's names). @default - CloudFormation's generated name */
  readonly alarmName?: (id: string) => string;
  /** Alarm when a route's oldest queued record is older than this. @default Duration.minutes(30) */
  readonly queueAgeAlarmThreshold?: Duration;
}

/** The intake pipe forwards within seconds; an older intake message means it is not. */
const INTAKE_AGE_ALARM = Duration.minutes(5);
/** Counted retries per route in 15 minutes before an alarm (a service blip retries a few). */
const RECORDS_FAILED_ALARM = 10;
/** Where each alarm's runbook entry is. */
const RUNBOOK = 'docs/deploy.md#alarms';
/** Past this, a dead letter has used most of its retention: redrive or lose it. */
const DEAD_LETTER_AGE_ALARM = Duration.days(7);
/**
 * An intake dead-letter queue that never empties for this long is not being answered (its event
 * source disabled or failing as a whole): messages there are normally taken within seconds.
 */
const INTAKE_DEAD_LETTERS_UNANSWERED = Duration.minutes(15);
/** Refusal records failing this often in 15 minutes: one coming back every visibility timeout, not a blip. */
const REFUSAL_RECORDS_FAILED_ALARM = 3;

export class ConnectorAlarms {
  readonly topic: sns.ITopic;
  /** The key of a created topic. */
  readonly topicKey?: kms.Key;
  /** Every alarm made so far, in the order made. */
  readonly alarms: cloudwatch.Alarm[] = [];

  private readonly scope: Construct;
  private readonly namespace: string;
  private readonly queueAgeAlarmThreshold: Duration | undefined;
  private readonly alarmName: ((id: string) => string) | undefined;

  constructor(scope: Construct, props: ConnectorAlarmsProps) {
    this.scope = scope;
    this.alarmName = props.alarmName;
    this.namespace = props.namespace;
    this.queueAgeAlarmThreshold = props.queueAgeAlarmThreshold;
    if (props.existingAlarmTopicObj) {
      this.topic = props.existingAlarmTopicObj;
    } else {
      const { topic, key } = createAlarmTopic(scope, props.alarmEmail);
      this.topic = topic;
      this.topicKey = key;
    }
  }

  /** A route's alarms: its queues' ages and dead letters, the pipe, retried records, the function. */
  watchRoute({
    route,
    queue,
    deadLetterQueue,
    intakeQueue,
    intakeDeadLetterQueue,
    pipe,
    function: fn,
  }: ConnectorRouteResources): void {
    const id = route.detailType;
    this.alarmOn(`${id}QueueAge`, queueAge(queue, this.queueAgeAlarmThreshold), {
      what: `${id} records waiting longer than expected (the token may be missing, or the service slow)`,
      runbook: 'queue-age',
    });
    this.alarmOn(`${id}DeadLetters`, deadLetterDepth(deadLetterQueue), {
      what: `${id} records gave up and are kept for a redrive`,
      runbook: 'dead-letters',
    });
    this.alarmOn(`${id}DeadLetterAge`, deadLetterAge(deadLetterQueue), {
      what: `${id} dead letters near the end of their 14-day retention`,
      runbook: 'dead-letters',
    });
    this.alarmOn(
      `${id}IntakeQueueAge`,
      { metric: maximumAge(intakeQueue), threshold: INTAKE_AGE_ALARM.toSeconds() },
      { what: `${id} events not forwarded by the intake pipe`, runbook: 'intake' },
    );
    // Its messages are answered by the refusal function within seconds (SyncFailed; a routable
    // event is kept in the route's DLQ, whose alarm fires): a message left 15 minutes is not being
    // answered. Its age, not its depth: every message passes through for a few seconds. It fires
    // surely when nobody takes them (the event source disabled or not polling). For a message the
    // function takes and keeps failing, the SQS Developer Guide ("Available CloudWatch metrics for
    // Amazon SQS") says two things: a message received three times or more is left out of
    // ApproximateAgeOfOldestMessage, and for a dead-letter queue (this is the intake queue's) the
    // metric is the longest time a message has been in the queue. Which one holds here is not
    // ours to rely on: RefusalRecordsFailed counts those failures whichever it is. (The age of a
    // dead letter counts from its move into the dead-letter queue, not from its first send: SQS
    // Developer Guide, "Setting-up dead-letter queue retention"; a dead letter does not arrive old.)
    this.alarmOn(`${id}IntakeDeadLetters`, queueAge(intakeDeadLetterQueue, INTAKE_DEAD_LETTERS_UNANSWERED), {
      what: `${id} intake dead letters not answered for ${INTAKE_DEAD_LETTERS_UNANSWERED.toMinutes()} minutes (the refusal function does not take them)`,
      runbook: 'intake',
    });
    this.alarmOn(`${id}PipeFailures`, pipeFailures(pipe), {
      what: `${id} intake pipe executions failed`,
      runbook: 'intake',
    });
    this.alarmOn(
      `${id}RecordsFailed`,
      {
        metric: serviceMetric(
          this.namespace,
          MetricName.RecordsFailed,
          route.functionName,
          Duration.minutes(15),
        ),
        threshold: RECORDS_FAILED_ALARM,
        comparison: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      },
      { what: `${id} records failing and being retried`, runbook: 'records-failed' },
    );
    this.alarmOnFunction(id, fn);
  }

  /** The refusal check's alarms; `functionName` is its metrics' service dimension. */
  watchRefusal(
    { queue, deadLetterQueue, function: fn }: ConnectorRefusalResources,
    functionName: string,
  ): void {
    this.alarmOn('RefusalQueueAge', queueAge(queue, this.queueAgeAlarmThreshold), {
      what: 'Inbound events waiting for the refusal check',
      runbook: 'refusal',
    });
    this.alarmOn('RefusalDeadLetters', deadLetterDepth(deadLetterQueue), {
      what: 'Inbound events the refusal check could not take or answer',
      runbook: 'refusal',
    });
    // An intake dead letter the function cannot answer stays in its queue and comes back: counted
    // here (a message that is not an event, a route dead-letter queue it may not write to).
    this.alarmOn(
      'RefusalRecordsFailed',
      {
        metric: serviceMetric(this.namespace, MetricName.RecordsFailed, functionName, Duration.minutes(15)),
        threshold: REFUSAL_RECORDS_FAILED_ALARM,
        comparison: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      },
      {
        what: 'Refusal records (inbound events or intake dead letters) keep failing and coming back',
        runbook: 'refusal',
      },
    );
    this.alarmOnFunction('Refusal', fn);
  }

  /** A scheduled function's alarms: runs not started, items it could not handle, the function. */
  watchSchedule({ scheduled, deadLetterQueue, function: fn }: ConnectorScheduleResources): void {
    const id = scheduleIdOf(scheduled);
    this.alarmOn(`${id}ScheduleDeadLetters`, deadLetterDepth(deadLetterQueue), {
      what: `${scheduled.functionName} runs EventBridge could not start`,
      runbook: 'scheduled',
    });
    if (scheduled.failureMetric) {
      this.alarmOn(
        `${id}Failures`,
        {
          metric: serviceMetric(
            this.namespace,
            scheduled.failureMetric,
            scheduled.functionName,
            Duration.hours(1),
          ),
          threshold: 0,
        },
        {
          what: `${scheduled.functionName} could not handle some items (the next run retries them)`,
          runbook: 'scheduled',
        },
      );
    }
    this.alarmOnFunction(id, fn);
  }

  /** Alarms on what every function publishes without its service dimension (ConnectorMetric). */
  watchConnector(partnerSyncFailedPerHour: number): void {
    const byClass = (value: string, period: Duration) =>
      connectorMetric(this.namespace, ConnectorMetric.SyncFailedByClass, { class: value }, period);
    this.alarmOn(
      'SyncFailedOperator',
      { metric: byClass('operator', Duration.minutes(5)), threshold: 0 },
      {
        what: 'SyncFailed that the operator must act on (retries exhausted, configuration, unreadable service answers)',
        runbook: 'syncfailed-operator',
      },
    );
    this.alarmOn(
      'SyncFailedPartner',
      {
        metric: byClass('partner', Duration.hours(1)),
        threshold: partnerSyncFailedPerHour,
        comparison: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      },
      {
        what: 'Many events refused for their content (invalid, or refused by the service)',
        runbook: 'syncfailed-partner',
      },
    );
    const tokenMetrics = Object.fromEntries(
      TOKEN_PROBLEM_CODES.map((code, index) => [
        `m${index}`,
        connectorMetric(this.namespace, ConnectorMetric.TokenProblems, { code }, Duration.minutes(5)),
      ]),
    );
    this.alarmOn(
      'TokenProblems',
      {
        metric: new cloudwatch.MathExpression({
          expression: Object.keys(tokenMetrics)
            .map((name) => `FILL(${name}, 0)`)
            .join(' + '),
          usingMetrics: tokenMetrics,
          label: 'Token missing or refused',
          period: Duration.minutes(5),
        }),
        threshold: 0,
      },
      { what: 'The service token is missing or refused: records wait until it is fixed', runbook: 'token' },
    );
  }

  /** Result events EventBridge could not deliver to a consumer's bus (connector-consumers.ts). */
  watchConsumerDeliveries(deadLetterQueue: sqs.IQueue): void {
    this.alarmOn('ConsumerDeliveryDeadLetters', deadLetterDepth(deadLetterQueue), {
      what: 'Result events EventBridge could not deliver to a consumer bus of another account',
      runbook: 'consumers',
    });
  }

  private alarmOn(id: string, definition: AlarmDefinition, about: { what: string; runbook: string }): void {
    const alarm = new cloudwatch.Alarm(this.scope, `${id}Alarm`, {
      ...(this.alarmName ? { alarmName: this.alarmName(id) } : {}),
      alarmDescription: `${about.what}. What to do: ${RUNBOOK}-${about.runbook}`,
      metric: definition.metric,
      threshold: definition.threshold,
      evaluationPeriods: 1,
      comparisonOperator: definition.comparison ?? cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new cloudwatchActions.SnsAction(this.topic));
    this.alarms.push(alarm);
  }

  private alarmOnFunction(id: string, fn: ConnectorFunction): void {
    const period = Duration.minutes(5);
    this.alarmOn(
      `${id}Errors`,
      { metric: fn.metricErrors({ period, statistic: 'Sum' }), threshold: 0 },
      {
        what: `${id} function errors (whole invocations failed, not single records)`,
        runbook: 'function-errors',
      },
    );
    this.alarmOn(
      `${id}Throttles`,
      { metric: fn.metricThrottles({ period, statistic: 'Sum' }), threshold: 0 },
      { what: `${id} function throttled`, runbook: 'function-errors' },
    );
  }
}

function createAlarmTopic(scope: Construct, email: string | undefined): { topic: sns.Topic; key: kms.Key } {
  const key = new kms.Key(scope, 'AlarmTopicKey', {
    description: 'Encrypts the connector alarm topic',
    enableKeyRotation: true,
  });
  const { account, region, partition } = Stack.of(scope);
  // Only alarms of this account and region (CloudWatch user guide, "Setting up Amazon SNS
  // notifications", preventing the confused deputy: aws:SourceArn and aws:SourceAccount).
  const fromOwnAlarms = {
    ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
    StringEquals: { 'aws:SourceAccount': account },
  };
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
      conditions: fromOwnAlarms,
    }),
  );
  const topic = new sns.Topic(scope, 'AlarmTopic', {
    displayName: 'Workforce connector alarms',
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
      conditions: fromOwnAlarms,
    }),
  );
  if (email) topic.addSubscription(new subscriptions.EmailSubscription(email));
  return { topic, key };
}

interface AlarmDefinition {
  readonly metric: cloudwatch.IMetric;
  readonly threshold: number;
  /** @default GREATER_THAN_THRESHOLD */
  readonly comparison?: cloudwatch.ComparisonOperator;
}

function maximumAge(queue: sqs.IQueue): cloudwatch.IMetric {
  return queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' });
}

/**
 * Pipe executions that failed or timed out (EventBridge user guide, "Monitoring and debugging
 * EventBridge Pipes": ExecutionFailed and ExecutionTimeout, dimension PipeName; "This value will be
 * 0 if no executions failed"); the causes are in the pipe's ERROR log.
 */
function pipeFailures(pipe: pipes.CfnPipe): AlarmDefinition {
  const pipeMetric = (metricName: string) =>
    new cloudwatch.Metric({
      namespace: 'AWS/EventBridge/Pipes',
      metricName,
      dimensionsMap: { PipeName: pipe.ref },
      statistic: 'Sum',
      period: Duration.minutes(5),
    });
  return {
    metric: new cloudwatch.MathExpression({
      expression: 'FILL(failed, 0) + FILL(timedOut, 0)',
      usingMetrics: { failed: pipeMetric('ExecutionFailed'), timedOut: pipeMetric('ExecutionTimeout') },
      label: 'Pipe executions failed',
      period: Duration.minutes(5),
    }),
    threshold: 0,
  };
}

function deadLetterDepth(queue: sqs.IQueue): AlarmDefinition {
  return {
    metric: queue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(1),
      statistic: 'Maximum',
    }),
    threshold: 0,
  };
}

function deadLetterAge(queue: sqs.IQueue): AlarmDefinition {
  return {
    metric: queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: DEAD_LETTER_AGE_ALARM.toSeconds(),
  };
}

function queueAge(queue: sqs.IQueue, threshold = Duration.minutes(30)): AlarmDefinition {
  return {
    metric: queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: threshold.toSeconds(),
  };
}
