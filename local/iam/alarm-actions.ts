import type { AccessDenial, LocalIam } from './authorizer.ts';

/**
 * An alarm's actions, checked at start-up: the local runtime runs no CloudWatch, but an alarm whose
 * notification AWS would refuse is an alarm nobody hears, so the template is refused.
 *
 * CloudWatch publishes an alarm's notification to an SNS topic as the service principal
 * `cloudwatch.amazonaws.com`, on behalf of the alarm (aws:SourceArn = the alarm's ARN,
 * aws:SourceAccount = its account): the topic's policy must allow it sns:Publish, and when the topic
 * is encrypted with a customer managed key the key's policy must allow it kms:GenerateDataKey* and
 * kms:Decrypt (Amazon CloudWatch User Guide, "Using Amazon CloudWatch alarms": "Configure the SNS
 * topic to allow CloudWatch to publish to an encrypted topic"; Amazon SNS Developer Guide, "Enable
 * compatibility between event sources from AWS services and encrypted topics"). `GenerateDataKey`
 * stands for the `GenerateDataKey*` wildcard of those pages: it is the call SNS makes.
 */

export interface AlarmActionProblem {
  readonly alarm: string;
  readonly action: string;
  readonly problem: string;
}

export async function checkAlarmActions(iam: LocalIam): Promise<AlarmActionProblem[]> {
  const { template } = iam;
  const problems: AlarmActionProblem[] = [];
  const service = { kind: 'service', service: 'cloudwatch.amazonaws.com' } as const;
  for (const alarm of template.alarms) {
    const context = { 'aws:SourceArn': alarm.arn, 'aws:SourceAccount': template.account };
    for (const action of alarm.actions) {
      if (!action.startsWith('arn:aws:sns:')) {
        problems.push({
          alarm: alarm.name,
          action,
          problem: 'only SNS topic actions are modeled by the local runtime',
        });
        continue;
      }
      const checks = [{ action: 'sns:Publish', resource: action }];
      const key = template.topicKeys.get(action);
      if (key) {
        checks.push(
          { action: 'kms:GenerateDataKey', resource: key },
          { action: 'kms:Decrypt', resource: key },
        );
      }
      for (const check of checks) {
        const denial: AccessDenial | undefined = await iam.authorize({
          principal: service,
          ...check,
          context,
        });
        if (denial) problems.push({ alarm: alarm.name, action, problem: denial.message });
      }
    }
  }
  return problems;
}

/** The start-up refusal: each distinct problem once, with how many alarms it stops. */
export function alarmActionsError(problems: readonly AlarmActionProblem[]): Error {
  const byProblem = new Map<string, string[]>();
  for (const { alarm, problem } of problems)
    byProblem.set(problem, [...(byProblem.get(problem) ?? []), alarm]);
  const lines = [...byProblem].map(
    ([problem, alarms]) =>
      `${alarms.length} alarm${alarms.length === 1 ? '' : 's'} (${alarms.slice(0, 2).join(', ')}${alarms.length > 2 ? ', …' : ''}) could not notify: ${problem}`,
  );
  return new Error(
    `the local runtime refuses this template: its alarms could not notify\n  - ${lines.join('\n  - ')}`,
  );
}
