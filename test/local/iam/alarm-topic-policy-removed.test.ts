import { describe, expect, it } from 'vitest';
import { expectDenials } from '#local/iam/denial-log.ts';
import { startLocalRuntime } from '#local/runtime.ts';
import { editPolicies } from './template-edits.ts';

/**
 * The synthesized template with the page topic's statement for CloudWatch taken out of its topic
 * policy: the page composite (the only alarm that notifies it) could not notify anyone on AWS. The local runtime runs no CloudWatch, but checks
 * each alarm's action at start-up and refuses the template, naming the principal, action and topic.
 */
describe('an alarm topic whose policy no longer lets CloudWatch publish', () => {
  it('stops start-up with the alarms that could not notify and why', async () => {
    // Prepare
    expectDenials();

    // Act
    const started = startLocalRuntime({
      logLevel: 'SILENT',
      editTemplates: (stacks) =>
        editPolicies(stacks, 'AWS::SNS::TopicPolicy', 'ConnectorAlarmTopicPolicy', (statements) =>
          statements.filter(
            (statement) => JSON.stringify(statement.Principal) !== '{"Service":"cloudwatch.amazonaws.com"}',
          ),
        ),
    });

    // Assess
    await expect(started).rejects.toThrow(
      /refuses this template: its alarms could not notify\n {2}- 1 alarm \(\S*ConnectorPage\) could not notify: User: cloudwatch\.amazonaws\.com is not authorized to perform: sns:Publish on resource: arn:aws:sns:us-east-1:000000000000:\S+ because no resource-based policy allows the sns:Publish action/,
    );
  });

  it('also refuses a topic whose key no longer lets CloudWatch encrypt, and starts with both policies intact', async () => {
    // Act
    const refused = startLocalRuntime({
      logLevel: 'SILENT',
      editTemplates: (stacks) =>
        editPolicies(
          stacks,
          'AWS::KMS::Key',
          'ConnectorAlarmTopicKey',
          (statements) =>
            statements.filter(
              (statement) => JSON.stringify(statement.Principal) !== '{"Service":"cloudwatch.amazonaws.com"}',
            ),
          'KeyPolicy',
        ),
    });
    await expect(refused).rejects.toThrow(
      /could not notify: User: cloudwatch\.amazonaws\.com is not authorized to perform: kms:GenerateDataKey on resource: arn:aws:kms:/,
    );
    const runtime = await startLocalRuntime({ logLevel: 'SILENT' });
    await runtime.close();

    // Assess: only the edited templates were refused.
    expect(runtime.denied()).toEqual([]);
  });
});
