import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as pipes from 'aws-cdk-lib/aws-pipes';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ConnectorMetric, MetricName, TOKEN_PROBLEM_CODES } from '#functions/runtime/metric-names.ts';
import {
  type AlarmKind,
  CONNECTOR_ALARMS,
  REFUSAL_ALARMS,
  ROUTE_ALARMS,
  SCHEDULE_ALARMS,
} from './alarm-catalog.ts';
import { addCompositeAlarms, type MadeAlarm } from './alarm-composites.ts';
import { type AlarmTopicSettings, createAlarmTopics } from './alarm-topics.ts';
import type { ConnectorFunction } from './connector-function.ts';
import { connectorMetric, serviceMetric } from './connector-metrics.ts';
import type { ConnectorRefusalResources } from './connector-refusal.ts';
import type { ConnectorRouteResources } from './connector-route.ts';
import { type ConnectorScheduleResources, scheduleIdOf } from './connector-schedule.ts';

/**
 * The alarm topics and every alarm of the connector, each of a kind of lib/alarm-catalog.ts (its
 * severity, whether one datapoint means loss, its runbook entry in docs/deploy.md). Alarms are made
 * in the connector's scope (see WorkforceConnector on why), each part's right after the part
 * itself; `addComposites` makes the composite alarms, the only ones with actions
 * (lib/alarm-composites.ts).
 */

export interface ConnectorAlarmsProps {
  /** The page topic: created (KMS-encrypted) unless `existingTopicObj`. */
  readonly page: AlarmTopicSettings;
  /** The ticket topic, likewise. */
  readonly ticket: AlarmTopicSettings;
  readonly namespace: string;
  /**
   * Where docs/deploy.md is published, without the file name (e.g.
   * `https://github.com/<owner>/<repo>/blob/main/docs`): descriptions link `<base>/deploy.md#alarms-…`.
   */
  readonly runbookBaseUrl: string;
  /** M of an M-of-N alarm (one that a single datapoint does not make mean loss). @default 3 */
  readonly datapointsToAlarm?: number;
  /** N of an M-of-N alarm. @default 5 */
  readonly evaluationPeriods?: number;
  /** Each alarm's name from its id (the deployment's names). @default - CloudFormation's generated name */
  readonly alarmName?: (id: string) => string;
  /** Alarm when a route's oldest queued record is older than this. @default Duration.minutes(30) */
  readonly queueAgeAlarmThreshold?: Duration;
}

/** The intake pipe forwards within seconds; an older intake message means it is not. */
const INTAKE_AGE_ALARM = Duration.minutes(5);
/** Counted retries per route in 15 minutes before an alarm (a service blip retries a few). */
const RECORDS_FAILED_ALARM = 10;
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
  /** The page topic. */
  readonly topic: sns.ITopic;
  readonly ticketTopic: sns.ITopic;
  /** The key of the created topics. */
  readonly topicKey?: kms.Key;
  /** Every metric alarm made so far, in the order made. */
  readonly alarms: cloudwatch.Alarm[] = [];
  /** The composite alarms (after `addComposites`). */
  readonly composites: cloudwatch.CompositeAlarm[] = [];

  private readonly made: MadeAlarm[] = [];
  private readonly scope: Construct;
  private readonly props: ConnectorAlarmsProps;

  constructor(scope: Construct, props: ConnectorAlarmsProps) {
    this.scope = scope;
    this.props = props;
    const topics = createAlarmTopics(scope, { page: props.page, ticket: props.ticket });
    this.topic = topics.page;
    this.ticketTopic = topics.ticket;
    if (topics.key) this.topicKey = topics.key;
  }

  /** The composite alarms over every alarm made: call once, after the last part's alarms. */
  addComposites(): void {
    this.composites.push(
      ...addCompositeAlarms(this.scope, this.made, {
        page: this.topic,
        ticket: this.ticketTopic,
        ...(this.props.alarmName ? { alarmName: this.props.alarmName } : {}),
        runbookBaseUrl: this.props.runbookBaseUrl,
      }),
    );
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
    this.alarmOn(`${id}QueueAge`, queueAge(queue, this.props.queueAgeAlarmThreshold), {
      what: `${id} records waiting longer than expected (the token may be missing, or the service slow)`,
      kind: ROUTE_ALARMS.QueueAge,
      route: id,
    });
    this.alarmOn(`${id}DeadLetters`, deadLetterDepth(deadLetterQueue), {
      what: `${id} records gave up and are kept for a redrive`,
      kind: ROUTE_ALARMS.DeadLetters,
      route: id,
    });
    this.alarmOn(`${id}DeadLetterAge`, deadLetterAge(deadLetterQueue), {
      what: `${id} dead letters near the end of their 14-day retention`,
      kind: ROUTE_ALARMS.DeadLetterAge,
      route: id,
    });
    this.alarmOn(
      `${id}IntakeQueueAge`,
      { metric: maximumAge(intakeQueue), threshold: INTAKE_AGE_ALARM.toSeconds() },
      { what: `${id} events not forwarded by the intake pipe`, kind: ROUTE_ALARMS.IntakeQueueAge, route: id },
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
      kind: ROUTE_ALARMS.IntakeDeadLetters,
      route: id,
    });
    this.alarmOn(`${id}PipeFailures`, pipeFailures(pipe), {
      what: `${id} intake pipe executions failed`,
      kind: ROUTE_ALARMS.PipeFailures,
      route: id,
    });
    this.alarmOn(
      `${id}RecordsFailed`,
      {
        metric: serviceMetric(
          this.props.namespace,
          MetricName.RecordsFailed,
          route.functionName,
          Duration.minutes(15),
        ),
        threshold: RECORDS_FAILED_ALARM,
        comparison: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      },
      { what: `${id} records failing and being retried`, kind: ROUTE_ALARMS.RecordsFailed, route: id },
    );
    this.alarmOnFunction(id, fn, id);
  }

  /** The refusal check's alarms; `functionName` is its metrics' service dimension. */
  watchRefusal(
    { queue, deadLetterQueue, function: fn }: ConnectorRefusalResources,
    functionName: string,
  ): void {
    this.alarmOn('RefusalQueueAge', queueAge(queue, this.props.queueAgeAlarmThreshold), {
      what: 'Inbound events waiting for the refusal check',
      kind: REFUSAL_ALARMS.QueueAge,
    });
    this.alarmOn('RefusalDeadLetters', deadLetterDepth(deadLetterQueue), {
      what: 'Inbound events the refusal check could not take or answer',
      kind: REFUSAL_ALARMS.DeadLetters,
    });
    // An intake dead letter the function cannot answer stays in its queue and comes back: counted
    // here (a message that is not an event, a route dead-letter queue it may not write to).
    this.alarmOn(
      'RefusalRecordsFailed',
      {
        metric: serviceMetric(
          this.props.namespace,
          MetricName.RecordsFailed,
          functionName,
          Duration.minutes(15),
        ),
        threshold: REFUSAL_RECORDS_FAILED_ALARM,
        comparison: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      },
      {
        what: 'Refusal records (inbound events or intake dead letters) keep failing and coming back',
        kind: REFUSAL_ALARMS.RecordsFailed,
      },
    );
    this.alarmOnFunction('Refusal', fn);
  }

  /** A scheduled function's alarms: runs not started, items it could not handle, the function. */
  watchSchedule({ scheduled, deadLetterQueue, function: fn }: ConnectorScheduleResources): void {
    const id = scheduleIdOf(scheduled);
    this.alarmOn(`${id}ScheduleDeadLetters`, deadLetterDepth(deadLetterQueue), {
      what: `${scheduled.functionName} runs EventBridge could not start`,
      kind: SCHEDULE_ALARMS.ScheduleDeadLetters,
    });
    if (scheduled.failureMetric) {
      this.alarmOn(
        `${id}Failures`,
        {
          metric: serviceMetric(
            this.props.namespace,
            scheduled.failureMetric,
            scheduled.functionName,
            Duration.hours(1),
          ),
          threshold: 0,
        },
        {
          what: `${scheduled.functionName} could not handle some items (the next run retries them)`,
          kind: SCHEDULE_ALARMS.Failures,
        },
      );
    }
    this.alarmOnFunction(id, fn);
  }

  /** Alarms on what every function publishes without its service dimension (ConnectorMetric). */
  watchConnector(partnerSyncFailedPerHour: number): void {
    const byClass = (value: string, period: Duration) =>
      connectorMetric(this.props.namespace, ConnectorMetric.SyncFailedByClass, { class: value }, period);
    this.alarmOn(
      'SyncFailedOperator',
      { metric: byClass('operator', Duration.minutes(5)), threshold: 0 },
      {
        what: 'SyncFailed that the operator must act on (retries exhausted, configuration, unreadable service answers)',
        kind: CONNECTOR_ALARMS.SyncFailedOperator,
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
        kind: CONNECTOR_ALARMS.SyncFailedPartner,
      },
    );
    const tokenMetrics = Object.fromEntries(
      TOKEN_PROBLEM_CODES.map((code, index) => [
        `m${index}`,
        connectorMetric(this.props.namespace, ConnectorMetric.TokenProblems, { code }, Duration.minutes(5)),
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
      {
        what: 'The service token is missing or refused: records wait until it is fixed',
        kind: CONNECTOR_ALARMS.TokenProblems,
      },
    );
  }

  /** Result events EventBridge could not deliver to a consumer's bus (connector-consumers.ts). */
  watchConsumerDeliveries(deadLetterQueue: sqs.IQueue): void {
    this.alarmOn('ConsumerDeliveryDeadLetters', deadLetterDepth(deadLetterQueue), {
      what: 'Result events EventBridge could not deliver to a consumer bus of another account',
      kind: CONNECTOR_ALARMS.ConsumerDeliveryDeadLetters,
    });
  }

  /**
   * One metric alarm, without actions of its own: it notifies through the composites
   * (alarm-composites.ts). Its kind says whether one breaching datapoint already means loss (1 of
   * 1) or it needs M of N (CloudWatch user guide, "Evaluating an alarm": DatapointsToAlarm is the M
   * of an "M out of N" alarm, EvaluationPeriods the N,
   * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/AlarmThatSendsEmail.html#alarm-evaluation).
   */
  private alarmOn(
    id: string,
    definition: AlarmDefinition,
    about: { what: string; kind: AlarmKind; route?: string },
  ): void {
    const { kind } = about;
    const [datapointsToAlarm, evaluationPeriods] = kind.lossOnFirstDatapoint
      ? [1, 1]
      : [this.props.datapointsToAlarm ?? 3, this.props.evaluationPeriods ?? 5];
    const runbook = `${this.props.runbookBaseUrl}/deploy.md#alarms-${kind.runbook}`;
    const alarm = new cloudwatch.Alarm(this.scope, `${id}Alarm`, {
      ...(this.props.alarmName ? { alarmName: this.props.alarmName(id) } : {}),
      alarmDescription: `${about.what}. Severity: ${kind.severity}. What to do: ${runbook}`,
      metric: definition.metric,
      threshold: definition.threshold,
      evaluationPeriods,
      datapointsToAlarm,
      comparisonOperator: definition.comparison ?? cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.alarms.push(alarm);
    this.made.push({ id, alarm, kind, ...(about.route ? { route: about.route } : {}) });
  }

  private alarmOnFunction(id: string, fn: ConnectorFunction, route?: string): void {
    const period = Duration.minutes(5);
    this.alarmOn(
      `${id}Errors`,
      { metric: fn.metricErrors({ period, statistic: 'Sum' }), threshold: 0 },
      {
        what: `${id} function errors (whole invocations failed, not single records)`,
        kind: ROUTE_ALARMS.Errors,
        ...(route ? { route } : {}),
      },
    );
    this.alarmOn(
      `${id}Throttles`,
      { metric: fn.metricThrottles({ period, statistic: 'Sum' }), threshold: 0 },
      { what: `${id} function throttled`, kind: ROUTE_ALARMS.Throttles, ...(route ? { route } : {}) },
    );
  }
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
