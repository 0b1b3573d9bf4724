import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { ScheduledFunction } from '#functions/routes.ts';
import {
  bindConnectorState,
  ConnectorFunction,
  type ConnectorFunctionDefaults,
} from './connector-function.ts';
import { ruleTargetDeadLetterQueue } from './delivery-settings.ts';

export interface ConnectorScheduleResources {
  readonly scheduled: ScheduledFunction;
  readonly rule: events.Rule;
  /** Schedule events EventBridge could not deliver to the function. */
  readonly deadLetterQueue: sqs.Queue;
  readonly function: ConnectorFunction;
}

export interface ConnectorScheduleProps extends ConnectorFunctionDefaults {
  readonly scheduled: ScheduledFunction;
  /** @default - the function's `defaultSchedule` */
  readonly schedule?: events.Schedule;
}

/** What a scheduled function's ids start with: `trial-watch` → `TrialWatch` (`TrialWatchFunction`, …). */
export function scheduleIdOf(scheduled: ScheduledFunction): string {
  return scheduled.functionName
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/**
 * A scheduled function (the trial and drift watches) with its rule and the dead-letter queue of
 * runs EventBridge could not start, made in `scope` itself (see WorkforceConnector on why); its
 * alarms are in connector-alarms.ts.
 */
export class ConnectorSchedule implements ConnectorScheduleResources {
  readonly scheduled: ScheduledFunction;
  readonly rule: events.Rule;
  readonly deadLetterQueue: sqs.Queue;
  readonly function: ConnectorFunction;

  constructor(scope: Construct, props: ConnectorScheduleProps) {
    const { scheduled } = props;
    const id = scheduleIdOf(scheduled);
    const fn = new ConnectorFunction(scope, `${id}Function`, {
      entry: scheduled.entry,
      handlerExport: scheduled.handlerExport,
      description: scheduled.description,
      timeout: Duration.seconds(scheduled.timeoutSeconds),
      memorySize: scheduled.memorySizeMb,
      logRetention: props.logRetention,
      environment: { ...props.environment, POWERTOOLS_SERVICE_NAME: scheduled.functionName },
    });
    bindConnectorState(fn, scheduled, props.state);
    // Schedule rules always run on the account's default bus, not the connector's.
    const rule = new events.Rule(scope, `${id}Schedule`, {
      description: scheduled.description,
      schedule: props.schedule ?? events.Schedule.expression(scheduled.defaultSchedule),
    });
    const deadLetterQueue = ruleTargetDeadLetterQueue(
      scope,
      `${id}ScheduleDeadLetterQueue`,
      'This queue is itself a dead-letter queue: the schedule rule target sends the runs EventBridge could not deliver to it.',
    );
    rule.addTarget(
      new targets.LambdaFunction(fn, {
        deadLetterQueue,
        retryAttempts: 2,
        maxEventAge: Duration.hours(1),
      }),
    );
    this.scheduled = scheduled;
    this.rule = rule;
    this.deadLetterQueue = deadLetterQueue;
    this.function = fn;
  }
}
