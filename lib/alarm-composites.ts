import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import {
  type AlarmKind,
  CONNECTOR_PAGE_COMPOSITE,
  CONNECTOR_TICKET_COMPOSITE,
  ROUTE_COMPOSITE_SUFFIX,
} from './alarm-catalog.ts';

/**
 * The composite alarms, the only alarms with actions (the metric alarms notify no one themselves:
 * each is in exactly one composite per severity, so one incident notifies once per severity):
 *
 * - `<Route>Health`: any alarm of the route, to the ticket topic;
 * - `ConnectorPage`: any page alarm of the deployment, to the page topic (the only thing that pages);
 * - `ConnectorTicket`: any ticket alarm outside the routes, to the ticket topic.
 *
 * CloudWatch user guide, "Composite alarms" (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarm-combining.html):
 * configure the actions only on the composite so that further alarms of the same incident do not
 * notify again. The ticket composites are quiet while `TokenProblems` is in ALARM (their
 * `ActionsSuppressor`: "Actions will be suppressed if the suppressor alarm is in the ALARM state",
 * CloudWatch API reference, CompositeAlarm,
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_CompositeAlarm.html): a
 * refused token backs up every queue at once, and it already pages.
 *
 * Limits (CloudWatch API reference, PutCompositeAlarm,
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutCompositeAlarm.html): a
 * rule names at most 100 alarms and an alarm may be in at most 150 rules; the rule is at most 10240
 * characters (CDK's CompositeAlarm refuses a longer one at synth). `ConnectorPage` names every page
 * alarm (3 per route and 4 others), which is checked here; each alarm is in at most two composites.
 */

/** The most alarms one composite rule may name (PutCompositeAlarm). */
export const COMPOSITE_RULE_MAX_ALARMS = 100;
/**
 * After the token is fixed, waiting records need up to 30 minutes to be received again and apply
 * (docs/deploy.md, alarms-token): the queue-age alarms they raised stay quiet that long.
 */
const AFTER_TOKEN_FIXED = Duration.minutes(30);

export interface MadeAlarm {
  readonly id: string;
  readonly alarm: cloudwatch.Alarm;
  readonly kind: AlarmKind;
  readonly route?: string;
}

export interface CompositeSettings {
  readonly page: sns.ITopic;
  readonly ticket: sns.ITopic;
  readonly alarmName?: (id: string) => string;
  /** Anchors are appended: `<base>/deploy.md#alarms…`. */
  readonly runbookBaseUrl: string;
}

export function addCompositeAlarms(
  scope: Construct,
  made: readonly MadeAlarm[],
  settings: CompositeSettings,
): cloudwatch.CompositeAlarm[] {
  const suppressor = made.find((entry) => entry.id === 'TokenProblems')?.alarm;
  const composite = (
    id: string,
    members: readonly MadeAlarm[],
    topic: sns.ITopic,
    what: string,
    suppressed: boolean,
  ): cloudwatch.CompositeAlarm | undefined => {
    if (members.length === 0) return undefined;
    if (members.length > COMPOSITE_RULE_MAX_ALARMS) {
      throw new Error(
        `composite alarm ${id} would name ${members.length} alarms; CloudWatch allows ${COMPOSITE_RULE_MAX_ALARMS}`,
      );
    }
    const alarm = new cloudwatch.CompositeAlarm(scope, `${id}CompositeAlarm`, {
      ...(settings.alarmName ? { compositeAlarmName: settings.alarmName(id) } : {}),
      alarmRule: cloudwatch.AlarmRule.anyOf(...members.map((member) => member.alarm)),
      alarmDescription: `${what}: its history names the alarm that fired. What to do: ${settings.runbookBaseUrl}/deploy.md#alarms`,
      ...(suppressed && suppressor
        ? { actionsSuppressor: suppressor, actionsSuppressorExtensionPeriod: AFTER_TOKEN_FIXED }
        : {}),
    });
    alarm.addAlarmAction(new cloudwatchActions.SnsAction(topic));
    return alarm;
  };
  const routes = [...new Set(made.flatMap((entry) => (entry.route ? [entry.route] : [])))];
  return [
    ...routes.map((route) =>
      composite(
        `${route}${ROUTE_COMPOSITE_SUFFIX}`,
        made.filter((entry) => entry.route === route),
        settings.ticket,
        `Any alarm of the ${route} route`,
        true,
      ),
    ),
    composite(
      CONNECTOR_PAGE_COMPOSITE,
      made.filter((entry) => entry.kind.severity === 'page'),
      settings.page,
      'Any page alarm of the connector (records given up or about to be, or none moving)',
      false,
    ),
    composite(
      CONNECTOR_TICKET_COMPOSITE,
      made.filter((entry) => entry.kind.severity === 'ticket' && entry.route === undefined),
      settings.ticket,
      'Any ticket alarm of the connector outside the routes (refusal check, scheduled watches, partner SyncFailed)',
      true,
    ),
  ].filter((alarm): alarm is cloudwatch.CompositeAlarm => alarm !== undefined);
}
