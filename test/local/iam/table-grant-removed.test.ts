import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inboundSamples } from '#functions/contracts/samples.ts';
import { expectDenials } from '#local/iam/denial-log.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { type CapturedOutput, captureOutput } from '#test/runtime/captured-output.ts';
import { actionsOf, editPolicies } from './template-edits.ts';

/**
 * The synthesized template with `dynamodb:UpdateItem` taken out of the employee route's role: on AWS
 * that function fails with AccessDenied on every record; locally it must too, with AWS's message
 * naming the role's session, the action and the table (local/iam/).
 */
describe('the employee route’s role without dynamodb:UpdateItem', () => {
  let runtime: LocalRuntime;
  let eventBridge: EventBridgeClient;
  let output: CapturedOutput;

  beforeAll(async () => {
    expectDenials();
    runtime = await startLocalRuntime({
      logLevel: 'WARN',
      editTemplates: (stacks) =>
        editPolicies(
          stacks,
          'AWS::IAM::Policy',
          'ConnectorEmployeeChangedFunctionRoleDefaultPolicy',
          (statements) =>
            statements.map((statement) => ({
              ...statement,
              Action: actionsOf(statement).filter((action) => action !== 'dynamodb:UpdateItem'),
            })),
        ),
    });
    eventBridge = new EventBridgeClient({
      region: runtime.region,
      endpoint: runtime.eventsEndpoint,
      credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' },
    });
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    eventBridge?.destroy();
    await runtime?.close();
  });

  const publish = (detailType: keyof typeof inboundSamples) =>
    eventBridge.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: runtime.busName,
            Source: runtime.inboundSource,
            DetailType: detailType,
            Detail: JSON.stringify(inboundSamples[detailType]),
          },
        ],
      }),
    );

  it('fails each EmployeeChanged with AccessDeniedException naming dynamodb:UpdateItem and the table; other routes work', async () => {
    // Prepare: the business exists (the provisioning route keeps its grants).
    await publish('AccountCreated');
    await runtime.waitForIdle();
    expect(runtime.outbound().map((event) => event['detail-type'])).toEqual(['BusinessProvisioned']);
    expect(runtime.denied()).toEqual([]);
    output = captureOutput();

    // Act: the record fails on every receive until its queue's redrive; the test reads the first ones.
    await publish('EmployeeChanged');
    await vi.waitFor(() => expect(output.jsonLines('AccessDeniedException').length).toBeGreaterThan(0), {
      timeout: 20_000,
      interval: 50,
    });

    // Assess: the denial, as AWS words it …
    const table = `arn:aws:dynamodb:us-east-1:000000000000:table/${runtime.tableName}`;
    const [denial] = runtime.denied();
    // The employee function's session of its role (generated names, cut: found by the function).
    const employeeFunction = runtime.functionNamed('sync-employee').name;
    expect(denial).toMatchObject({
      principal: expect.stringMatching(
        new RegExp(`^arn:aws:sts::000000000000:assumed-role/[^/]+/${employeeFunction}$`),
      ),
      action: 'dynamodb:UpdateItem',
      resource: table,
      reason: 'because no identity-based policy allows the dynamodb:UpdateItem action',
    });
    expect(denial?.message).toBe(
      `User: ${denial?.principal} is not authorized to perform: dynamodb:UpdateItem on resource: ${table} because no identity-based policy allows the dynamodb:UpdateItem action`,
    );
    // … is what the function's SDK call failed with, and the record is not applied.
    const [line] = output.jsonLines('AccessDeniedException');
    expect(line).toMatchObject({ service: 'sync-employee', code: 'AccessDeniedException' });
    expect(JSON.stringify(line)).toContain(denial?.message);
    expect(runtime.outbound().map((event) => event['detail-type'])).not.toContain('EmployeeSynced');
    expect(new Set(runtime.denied().map(({ action, resource }) => `${action} ${resource}`))).toEqual(
      new Set([`dynamodb:UpdateItem ${table}`]),
    );
  });
});
