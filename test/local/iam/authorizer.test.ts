import { beforeAll, describe, expect, it } from 'vitest';
import { TemplateModel } from '#local/cloudformation.ts';
import { type AccessRequest, LocalIam } from '#local/iam/authorizer.ts';
import { expectDenials } from '#local/iam/denial-log.ts';
import { readTemplateIam, type TemplateIam } from '#local/iam/template-iam.ts';
import { localConnectorConfig, SERVICE_PLACEHOLDER, synthesizeLocalTemplates } from '#local/template.ts';

/**
 * The evaluator behind the local IAM enforcement (local/iam/authorizer.ts) on small policies, its
 * cache, and the template's IAM as local/iam/template-iam.ts reads it.
 */

const account = '000000000000';
const roleArn = `arn:aws:iam::${account}:role/fn-role`;
const table = `arn:aws:dynamodb:us-east-1:${account}:table/state`;
const bus = `arn:aws:events:us-east-1:${account}:event-bus/connector`;
const queue = `arn:aws:sqs:us-east-1:${account}:intake`;
const rule = `arn:aws:events:us-east-1:${account}:rule/intake`;
const fn = `arn:aws:lambda:us-east-1:${account}:function:watch`;
const key = `arn:aws:kms:us-east-1:${account}:key/k1`;

function templateIam(overrides: Partial<TemplateIam> = {}): TemplateIam {
  return {
    account,
    region: 'us-east-1',
    roles: new Map([
      [
        roleArn,
        {
          name: 'fn-role',
          arn: roleArn,
          policies: [
            {
              name: 'default',
              document: {
                Version: '2012-10-17',
                Statement: [
                  { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:PutItem'], Resource: table },
                  {
                    Effect: 'Allow',
                    Action: 'events:PutEvents',
                    Resource: bus,
                    // As lib/connector-function.ts bindBus writes it.
                    Condition: {
                      'ForAllValues:StringEquals': { 'events:source': 'workforce.connector' },
                      Null: { 'events:source': 'false' },
                    },
                  },
                  { Effect: 'Allow', Action: 'kms:Decrypt', Resource: key },
                ],
              },
            },
          ],
        },
      ],
    ]),
    resourcePolicies: new Map([
      [
        queue,
        {
          kind: 'queue policy' as const,
          document: {
            Version: '2012-10-17',
            Statement: [
              {
                Effect: 'Deny',
                Principal: { AWS: '*' },
                Action: 'sqs:*',
                Resource: queue,
                Condition: { Bool: { 'aws:SecureTransport': 'false' } },
              },
              {
                Effect: 'Allow',
                Principal: { Service: 'events.amazonaws.com' },
                Action: 'sqs:SendMessage',
                Resource: queue,
                Condition: { ArnEquals: { 'aws:SourceArn': rule } },
              },
              {
                Effect: 'Deny',
                Principal: { AWS: roleArn },
                Action: 'sqs:PurgeQueue',
                Resource: queue,
              },
            ],
          },
        },
      ],
      [
        fn,
        {
          kind: 'Lambda permissions' as const,
          document: {
            Version: '2012-10-17',
            Statement: [
              {
                Effect: 'Allow',
                Principal: { Service: 'events.amazonaws.com' },
                Action: 'lambda:InvokeFunction',
                Resource: fn,
                Condition: { ArnLike: { 'AWS:SourceArn': rule } },
              },
            ],
          },
        },
      ],
    ]),
    functionRoles: new Map(),
    pipeRoles: new Map(),
    topicKeys: new Map(),
    secretKeys: new Map(),
    alarms: [],
    problems: [],
    ...overrides,
  };
}

const asRole: AccessRequest['principal'] = { kind: 'role', roleArn, session: 'sync-employee' };
const events: AccessRequest['principal'] = { kind: 'service', service: 'events.amazonaws.com' };

describe('the local IAM authorizer', () => {
  // These tests deny on purpose.
  beforeAll(() => expectDenials());

  it('allows what the role’s policy grants and denies the rest in AWS’s words, naming the role’s session', async () => {
    // Prepare
    const iam = new LocalIam(templateIam());

    // Act
    const allowed = await iam.authorize({ principal: asRole, action: 'dynamodb:GetItem', resource: table });
    const denied = await iam.authorize({ principal: asRole, action: 'dynamodb:UpdateItem', resource: table });

    // Assess
    expect(allowed).toBeUndefined();
    expect(denied).toMatchObject({
      principal: `arn:aws:sts::${account}:assumed-role/fn-role/sync-employee`,
      action: 'dynamodb:UpdateItem',
      resource: table,
      reason: 'because no identity-based policy allows the dynamodb:UpdateItem action',
      message: `User: arn:aws:sts::${account}:assumed-role/fn-role/sync-employee is not authorized to perform: dynamodb:UpdateItem on resource: ${table} because no identity-based policy allows the dynamodb:UpdateItem action`,
    });
    expect(iam.denied()).toEqual([denied]);
    expect(iam.used()).toEqual([{ roleArn, action: 'dynamodb:GetItem', by: 'code', resource: table }]);
  });

  it('lets a service principal in by the resource policy only, for the source its condition names', async () => {
    // Prepare
    const iam = new LocalIam(templateIam());
    const send = (sourceArn: string) =>
      iam.authorize({
        principal: events,
        action: 'sqs:SendMessage',
        resource: queue,
        context: { 'aws:SourceArn': sourceArn, 'aws:SourceAccount': account },
      });

    // Act
    const fromRule = await send(rule);
    const fromAnother = await send(`${rule}-other`);

    // Assess
    expect(fromRule).toBeUndefined();
    expect(fromAnother?.reason).toBe('because no resource-based policy allows the sqs:SendMessage action');
  });

  it('reports an explicit deny of a resource policy as such', async () => {
    // Act
    const denied = await new LocalIam(templateIam()).authorize({
      principal: asRole,
      action: 'sqs:PurgeQueue',
      resource: queue,
    });

    // Assess
    expect(denied?.reason).toBe('with an explicit deny in a resource-based policy');
  });

  it('checks a schedule’s invoke against the function’s Lambda permissions and the rule as source', async () => {
    // Prepare
    const iam = new LocalIam(templateIam());
    const invoke = (sourceArn: string) =>
      iam.authorize({
        principal: events,
        action: 'lambda:InvokeFunction',
        resource: fn,
        context: { 'aws:SourceArn': sourceArn, 'aws:SourceAccount': account },
      });

    // Act / Assess
    expect(await invoke(rule)).toBeUndefined();
    expect(await invoke(`arn:aws:events:us-east-1:${account}:rule/another`)).toBeDefined();
  });

  it('lets the role publish only with the outbound source, events:source being multivalued', async () => {
    // Prepare
    const iam = new LocalIam(templateIam());
    const put = (sources: string[]) =>
      iam.authorize({
        principal: asRole,
        action: 'events:PutEvents',
        resource: bus,
        context: { 'events:source': sources },
      });

    // Act / Assess
    expect(await put(['workforce.connector'])).toBeUndefined();
    expect(await put(['partner.app'])).toBeDefined();
    expect(await put(['partner.app', 'workforce.connector'])).toBeDefined();
  });

  it('does not match a plain StringEquals on events:source (a multivalued key needs a set operator)', async () => {
    // Prepare: the grant as it was before lib/connector-function.ts used ForAllValues.
    const role = templateIam().roles.get(roleArn)!;
    const plain = templateIam({
      roles: new Map([
        [
          roleArn,
          {
            ...role,
            policies: [
              {
                name: 'plain',
                document: {
                  Statement: [
                    {
                      Effect: 'Allow',
                      Action: 'events:PutEvents',
                      Resource: bus,
                      Condition: { StringEquals: { 'events:source': 'workforce.connector' } },
                    },
                  ],
                },
              },
            ],
          },
        ],
      ]),
    });

    // Act
    const denied = await new LocalIam(plain).authorize({
      principal: asRole,
      action: 'events:PutEvents',
      resource: bus,
      context: { 'events:source': ['workforce.connector'] },
    });

    // Assess
    expect(denied).toBeDefined();
  });

  it('needs the key policy to allow or delegate to IAM for a KMS key: the default key policy delegates', async () => {
    // Prepare: a key outside the template (default key policy), and the same key with a policy
    // that names only CloudWatch.
    const outside = new LocalIam(templateIam());
    const cloudWatchOnly = new LocalIam(
      templateIam({
        resourcePolicies: new Map([
          [
            key,
            {
              kind: 'key policy' as const,
              document: {
                Statement: [
                  {
                    Effect: 'Allow',
                    Principal: { Service: 'cloudwatch.amazonaws.com' },
                    Action: 'kms:Decrypt',
                    Resource: '*',
                  },
                ],
              },
            },
          ],
        ]),
      }),
    );
    const decrypt = { principal: asRole, action: 'kms:Decrypt', resource: key } as const;

    // Act / Assess
    expect(await outside.authorize(decrypt)).toBeUndefined();
    expect(await cloudWatchOnly.authorize(decrypt)).toBeDefined();
  });

  it('asks the evaluator once per distinct request shape and answers a known one at once', async () => {
    // Prepare
    const iam = new LocalIam(templateIam());
    const send = (sourceArn: string) => ({
      principal: events,
      action: 'sqs:SendMessage',
      resource: queue,
      context: { 'aws:SourceArn': sourceArn },
    });

    // Act
    await Promise.all([iam.authorize(send(rule)), iam.authorize(send(rule)), iam.authorize(send(rule))]);
    const known = iam.authorize(send(rule));
    await iam.authorize(send(`${rule}-2`));
    await iam.authorize({ principal: asRole, action: 'dynamodb:UpdateItem', resource: table });
    await iam.authorize({ principal: asRole, action: 'dynamodb:UpdateItem', resource: table });

    // Assess: three shapes; the known one was not a promise; both denied calls are recorded.
    expect(iam.evaluations).toBe(3);
    expect(known).not.toBeInstanceOf(Promise);
    expect(iam.denied().map((denial) => denial.action)).toEqual([
      'sqs:SendMessage',
      'dynamodb:UpdateItem',
      'dynamodb:UpdateItem',
    ]);
  });

  it('decides a prepared request ahead without recording it', async () => {
    // Prepare
    const iam = new LocalIam(templateIam());
    const request = { principal: asRole, action: 'dynamodb:DeleteItem', resource: table } as const;

    // Act
    await iam.prepare(request);
    const answer = iam.authorize(request);

    // Assess
    expect(answer).not.toBeInstanceOf(Promise);
    expect(iam.denied()).toHaveLength(1);
  });
});

describe('the template’s IAM as the local runtime reads it', () => {
  it('gives each function and pipe its role, every queue its policy, the schedules their permissions and the alarms their topic', async () => {
    // Prepare
    const stacks = await synthesizeLocalTemplates(localConnectorConfig({ sandboxUrl: SERVICE_PLACEHOLDER }));
    const model = new TemplateModel(stacks, {
      region: 'us-east-1',
      account,
      sqsEndpoint: 'http://127.0.0.1:1',
    });

    // Act
    const iam = readTemplateIam(model, { region: 'us-east-1', account });

    // Assess
    expect(iam.problems).toEqual([]);
    const count = (type: string) => model.ofType(type).length;
    expect(iam.roles.size).toBe(count('AWS::IAM::Role'));
    expect(iam.functionRoles.size).toBe(count('AWS::Lambda::Function'));
    expect(iam.pipeRoles.size).toBe(count('AWS::Pipes::Pipe'));
    const kinds = [...iam.resourcePolicies.values()].map((policy) => policy.kind);
    expect(kinds.filter((kind) => kind === 'queue policy')).toHaveLength(count('AWS::SQS::QueuePolicy'));
    expect(kinds.filter((kind) => kind === 'Lambda permissions')).toHaveLength(2);
    // Role names stay within IAM's 64 characters and distinct.
    const names = [...iam.roles.values()].map((role) => role.name);
    expect(new Set(names).size).toBe(names.length);
    expect(Math.max(...names.map((name) => name.length))).toBeLessThanOrEqual(64);
    // Metric alarms have no actions; every composite notifies one of the two encrypted topics.
    const topics = model.ofType('AWS::SNS::Topic').map((topic) => topic.arn);
    expect(topics).toHaveLength(2);
    expect(iam.alarms.length).toBe(
      count('AWS::CloudWatch::Alarm') + count('AWS::CloudWatch::CompositeAlarm'),
    );
    const notifying = iam.alarms.filter((alarm) => alarm.actions.length > 0);
    expect(notifying).toHaveLength(count('AWS::CloudWatch::CompositeAlarm'));
    expect(notifying.every((alarm) => alarm.actions.length === 1 && topics.includes(alarm.actions[0]!))).toBe(
      true,
    );
    for (const topic of topics) expect(iam.topicKeys.get(topic)).toBe(model.ofType('AWS::KMS::Key')[0]?.arn);
  });
});
