import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { queueRoutes, refusalFunction, scheduledFunctions } from '#functions/routes.ts';
import { loadConfig } from '#functions/runtime/config.ts';
import { UNCONFIRMED_SIGNUP_LOG_MESSAGE } from '#functions/runtime/metric-names.ts';
import { routeMaxReceiveCount } from '#functions/runtime/retry-schedule.ts';
import { type ServiceAssumptionsInput, serviceAssumptionsSchema } from '#functions/service/assumptions.ts';
import { tableDefinition } from '#functions/store/table.ts';
import {
  acknowledgments,
  connectorConfig,
  type SynthesizedConnector,
  synthesizeConnector,
  validationReport,
} from './synthesize.ts';

type Resource = { Type: string; Properties: Record<string, unknown> };
type Statement = { Effect: string; Action: string | string[]; Resource?: unknown; Principal?: unknown };

function resources(template: Template, type: string): [string, Resource][] {
  return Object.entries(template.findResources(type)) as [string, Resource][];
}

function only<T>(items: readonly T[], what: string): T {
  expect(items, what).toHaveLength(1);
  return items[0]!;
}

/** The logical id a `{Ref}` or `{Fn::GetAtt}` points at. */
function referenced(value: unknown): string | undefined {
  const ref = value as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  return ref.Ref ?? ref['Fn::GetAtt']?.[0];
}

/** Every policy document of the template with what it is attached to. */
function policyStatements(template: Template): { owner: string; type: string; statement: Statement }[] {
  const found: { owner: string; type: string; statement: Statement }[] = [];
  const documents: [string, string, unknown][] = [];
  for (const [id, resource] of Object.entries(template.toJSON().Resources as Record<string, Resource>)) {
    const props = resource.Properties ?? {};
    if (props.PolicyDocument) documents.push([id, resource.Type, props.PolicyDocument]);
    if (props.KeyPolicy) documents.push([id, resource.Type, props.KeyPolicy]);
    for (const inline of (props.Policies as { PolicyDocument: unknown }[] | undefined) ?? []) {
      documents.push([id, resource.Type, inline.PolicyDocument]);
    }
  }
  for (const [owner, type, document] of documents) {
    for (const statement of (document as { Statement: Statement[] }).Statement)
      found.push({ owner, type, statement });
  }
  return found;
}

/** The dashboard's widgets, each reference in its body written as `<logical id>`. */
function dashboardWidgets(template: Template): { type: string; properties: Record<string, unknown> }[] {
  const [, dashboard] = only(resources(template, 'AWS::CloudWatch::Dashboard'), 'dashboard');
  const body = dashboard.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] };
  const text = body['Fn::Join'][1]
    .map((part) => (typeof part === 'string' ? part : `<${referenced(part) ?? JSON.stringify(part)}>`))
    .join('');
  return (JSON.parse(text) as { widgets: { type: string; properties: Record<string, unknown> }[] }).widgets;
}

/** The environment of each function as its cold start reads it (references as placeholders). */
function functionEnvironments(template: Template): [string, Record<string, string>][] {
  return resources(template, 'AWS::Lambda::Function').map(([id, fn]) => {
    const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    return [
      id,
      Object.fromEntries(
        Object.entries(variables).map(([name, value]) => [
          name,
          typeof value === 'string' ? value : `resolved-${name}`,
        ]),
      ),
    ];
  });
}

function asList<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Each function of the template with the statements of its role's policies and its environment. */
function functionGrants(
  template: Template,
): { id: string; environment: Record<string, unknown>; statements: Statement[] }[] {
  const all = template.toJSON().Resources as Record<string, Resource>;
  const statements = policyStatements(template);
  return resources(template, 'AWS::Lambda::Function').map(([id, fn]) => {
    const roleId = referenced(fn.Properties.Role);
    return {
      id,
      environment: (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables,
      statements: statements
        .filter(
          ({ owner, type }) =>
            type === 'AWS::IAM::Policy' &&
            (all[owner]!.Properties.Roles as unknown[]).some((role) => referenced(role) === roleId),
        )
        .map(({ statement }) => statement),
    };
  });
}

/** The kms:Decrypt statements among `statements`. */
function kmsDecrypts(statements: readonly Statement[]): Statement[] {
  return statements.filter((statement) => asList(statement.Action).includes('kms:Decrypt'));
}

describe('the connector app (example config)', () => {
  let synthesized: SynthesizedConnector;
  let service: Template;
  let stateful: Template;

  beforeAll(() => {
    synthesized = synthesizeConnector(connectorConfig());
    service = synthesized.service;
    stateful = synthesized.stateful;
  });

  it('passes cdk-nag AwsSolutions with no unacknowledged error, each acknowledgment giving its reason', () => {
    // Act
    const report = validationReport(synthesized.outdir);
    const acks = [
      ...acknowledgments(synthesized.stacks.stateful),
      ...acknowledgments(synthesized.stacks.service),
    ];

    // Assess
    expect(report.pluginReports.filter((plugin) => plugin.conclusion === 'failure')).toEqual([]);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      expect(ack.id, ack.path).toMatch(/(^|::)AwsSolutions-[A-Z]+\d+/);
      expect(typeof ack.reason === 'string' && ack.reason.length >= 40, `${ack.path} ${ack.id}`).toBe(true);
    }
  });

  it('routes each inbound detail-type by source and detail-type to an intake queue, with its own DLQ and retries', () => {
    for (const route of queueRoutes) {
      // Act
      const [, rule] = only(
        resources(service, 'AWS::Events::Rule').filter(([, r]) => {
          const pattern = (r.Properties.EventPattern ?? {}) as Record<string, unknown>;
          return (
            Object.keys(pattern).length === 3 &&
            JSON.stringify(pattern.source) === JSON.stringify(['partner.app']) &&
            JSON.stringify(pattern['detail-type']) === JSON.stringify([route.detailType])
          );
        }),
        `rule of ${route.detailType}`,
      );
      const target = only(rule.Properties.Targets as Record<string, unknown>[], 'one target');
      const intake = service.toJSON().Resources[referenced(target.Arn)!] as Resource;

      // Assess
      expect(intake.Type).toBe('AWS::SQS::Queue');
      expect(intake.Properties.FifoQueue).toBeUndefined();
      // Its own dead-letter queue, which is also the intake queue's: a redrive cannot misroute.
      expect(target.DeadLetterConfig).toEqual({
        Arn: {
          'Fn::GetAtt': [
            expect.stringMatching(new RegExp(`${route.detailType}IntakeDeadLetterQueue`)),
            'Arn',
          ],
        },
      });
      expect(intake.Properties.RedrivePolicy).toMatchObject({
        deadLetterTargetArn: (target.DeadLetterConfig as { Arn: unknown }).Arn,
      });
      expect(target.RetryPolicy).toEqual({ MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 });
      // The connector's bus, created in the State stack and found by its name: never the default bus.
      expect(rule.Properties.EventBusName).toBe('workforce-connector-acme-prod');
    }
  });

  it('forwards every intake message to its FIFO queue grouped by account id and deduplicated on the event id', () => {
    for (const route of queueRoutes) {
      // Prepare
      const rule = resources(service, 'AWS::Events::Rule').find(([, r]) =>
        JSON.stringify(r.Properties.EventPattern).includes(`"${route.detailType}"`),
      )!;
      const intakeId = referenced((rule[1].Properties.Targets as { Arn: unknown }[])[0]!.Arn);

      // Act
      const [, pipe] = only(
        resources(service, 'AWS::Pipes::Pipe').filter(
          ([, p]) => referenced(p.Properties.Source) === intakeId,
        ),
        `pipe of ${route.detailType}`,
      );
      const fifo = service.toJSON().Resources[referenced(pipe.Properties.Target)!] as Resource;

      // Assess
      // A bare <$.body> would arrive as invalid JSON ("Implicit body data parsing"): the event is wrapped.
      expect(pipe.Properties.TargetParameters).toEqual({
        InputTemplate: '{"event": <$.body>}',
        SqsQueueParameters: {
          MessageGroupId: '$.body.detail.accountId',
          MessageDeduplicationId: '$.body.id',
        },
      });
      // One message per batch: a message the FIFO queue refuses must not fail its neighbours.
      expect(pipe.Properties.SourceParameters).toEqual({ SqsQueueParameters: { BatchSize: 1 } });
      expect(fifo.Properties).toMatchObject({ FifoQueue: true, ContentBasedDeduplication: false });
    }
  });

  it('consumes each FIFO queue with partial batch failures, the configured batch size and concurrency', () => {
    const all = service.toJSON().Resources as Record<string, Resource>;
    for (const route of queueRoutes) {
      // Prepare
      const override = synthesized.config.routes[route.detailType] ?? {};
      const [, fn] = only(
        resources(service, 'AWS::Lambda::Function').filter(
          ([, f]) => f.Properties.Description === route.description,
        ),
        `function of ${route.detailType}`,
      );
      const functionId = Object.entries(all).find(([, r]) => r === fn)![0];

      // Act
      const [, mapping] = only(
        resources(service, 'AWS::Lambda::EventSourceMapping').filter(
          ([, m]) => referenced(m.Properties.FunctionName) === functionId,
        ),
        `event source of ${route.detailType}`,
      );
      const queue = all[referenced(mapping.Properties.EventSourceArn)!]!;
      const dlq =
        all[
          referenced(
            (queue.Properties.RedrivePolicy as { deadLetterTargetArn: unknown }).deadLetterTargetArn,
          )!
        ]!;

      // Assess
      expect(mapping.Properties).toMatchObject({
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        BatchSize: override.batchSize ?? route.batchSize,
        ScalingConfig: { MaximumConcurrency: override.maxConcurrency ?? route.maxConcurrency },
      });
      expect(queue.Properties.FifoQueue).toBe(true);
      expect(queue.Properties.RedrivePolicy).toMatchObject({
        maxReceiveCount: routeMaxReceiveCount(route.maxAttempts),
      });
      expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(
        6 * (fn.Properties.Timeout as number),
      );
      expect(fn.Properties.Timeout).toBe(route.timeoutSeconds);
      expect(dlq.Properties).toMatchObject({ FifoQueue: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    }
  });

  it('applies the config overrides of the example (maxConcurrency, batchSize) over the route table', () => {
    // Assess: the example overrides these two, so they must differ from the table defaults to prove anything.
    expect(synthesized.config.routes.PayReturnsRequested?.batchSize).toBe(5);
    service.hasResourceProperties('AWS::Lambda::EventSourceMapping', { BatchSize: 5 });
  });

  it('encrypts every queue and refuses plain-HTTP access to it', () => {
    // Prepare
    const queues = resources(service, 'AWS::SQS::Queue');
    const policies = resources(service, 'AWS::SQS::QueuePolicy');

    // Act + Assess
    // Per route: intake, intake DLQ, FIFO, FIFO DLQ; the refusal queue and its DLQ; a DLQ per schedule.
    expect(queues.length).toBe(queueRoutes.length * 4 + 2 + scheduledFunctions.length);
    for (const [id, queue] of queues) {
      expect(queue.Properties.SqsManagedSseEnabled, id).toBe(true);
      const policy = policies.find(([, p]) => asList(p.Properties.Queues).some((q) => referenced(q) === id));
      expect(policy, `${id} has a queue policy`).toBeDefined();
      const statements = (policy![1].Properties.PolicyDocument as { Statement: Statement[] }).Statement;
      expect(statements).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('scopes every policy statement to named resources; only KMS key policies use "*" (it means the key itself)', () => {
    for (const template of [service, stateful]) {
      for (const { owner, type, statement } of policyStatements(template)) {
        const wildcard = asList(statement.Resource).some((resource) =>
          JSON.stringify(resource).includes('*'),
        );
        if (type === 'AWS::KMS::Key') continue;
        expect(wildcard, `${owner}: ${JSON.stringify(statement)}`).toBe(false);
        expect(statement.Resource, `${owner} names its resources`).toBeDefined();
      }
    }
  });

  // Which DynamoDB actions each function is granted is proven from use: the local runtime runs the
  // template with its IAM enforced through every route's and watch's ways of ending and fails on
  // a grant no call used or a call none allows (test/local/iam/grants-from-use.test.ts). What the
  // template says on its own: an index takes Query only, and each index only its own watch.
  it('grants dynamodb:Query alone on an index, the trial index to the trial watch and the drift index to the drift watch only', () => {
    // Prepare
    const all = service.toJSON().Resources as Record<string, Resource>;
    const roleOfFunction = (description: string) => {
      const fn = Object.values(all).find(
        (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Description === description,
      )!;
      return referenced(fn.Properties.Role);
    };
    const watchRoles = {
      trialIndex: roleOfFunction(scheduledFunctions.find((fn) => fn.queriesTrialIndex)!.description),
      driftIndex: roleOfFunction(scheduledFunctions.find((fn) => fn.queriesDriftIndex)!.description),
    };

    // Act
    const onIndexes = policyStatements(service).filter(({ statement }) =>
      JSON.stringify(statement.Resource).includes('/index/'),
    );

    // Assess
    expect(onIndexes.length).toBeGreaterThanOrEqual(2);
    for (const { owner, statement } of onIndexes) {
      expect(asList(statement.Action), owner).toEqual(['dynamodb:Query']);
      const roles = (all[owner]!.Properties.Roles as unknown[]).map(referenced);
      for (const [index, role] of Object.entries(watchRoles)) {
        if (JSON.stringify(statement.Resource).includes(`/index/${index}`))
          expect(roles, owner).toEqual([role]);
      }
    }
    // Never: scans, batches, describing the table or condition checks.
    for (const { statement } of policyStatements(service)) {
      for (const action of asList(statement.Action)) {
        expect(action).not.toMatch(/^dynamodb:(Scan|Batch.*|DescribeTable|ConditionCheckItem)$/);
      }
    }
  });

  it('gives each route function exactly its own queues and log group, the table, the bus for its source and the secret', () => {
    const all = service.toJSON().Resources as Record<string, Resource>;
    // The state is found by name (connector-app.ts: no cross-stack export): an ARN ending in it.
    const stateByName = (end: string) => ({
      'Fn::Join': [
        '',
        expect.arrayContaining([expect.stringMatching(new RegExp(`${end.replace(/[?/]/g, '\\$&')}$`))]),
      ],
    });
    for (const route of queueRoutes) {
      // Prepare
      const [functionId, fn] = Object.entries(all).find(
        ([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties.Description === route.description,
      )!;
      const roleId = referenced(fn.Properties.Role)!;
      const mapping = Object.values(all).find(
        (r) =>
          r.Type === 'AWS::Lambda::EventSourceMapping' &&
          referenced(r.Properties.FunctionName) === functionId,
      )!;
      const ownQueue = referenced(mapping.Properties.EventSourceArn)!;
      const ownDeadLetters = (all[ownQueue]!.Properties.RedrivePolicy as { deadLetterTargetArn: unknown })
        .deadLetterTargetArn;
      const ownLogGroup = referenced((fn.Properties.LoggingConfig as { LogGroup: unknown }).LogGroup)!;

      // Act
      const statements = policyStatements(service)
        .filter(({ owner, type }) => {
          if (type !== 'AWS::IAM::Policy') return false;
          const roles = all[owner]!.Properties.Roles as unknown[];
          return roles.some((role) => referenced(role) === roleId);
        })
        .map(({ statement }) => statement);
      const byService = (prefix: string) =>
        statements.filter((statement) => asList(statement.Action).every((a) => a.startsWith(prefix)));

      // Assess
      expect(byService('logs:').map((st) => st.Resource)).toEqual([{ 'Fn::GetAtt': [ownLogGroup, 'Arn'] }]);
      // Its queue: what Lambda's polling needs, and ChangeMessageVisibility (its code's waits); its
      // DLQ: SendMessage (give-ups). Nothing the code never calls (GetQueueUrl; attributes of the DLQ).
      const sqsStatements = byService('sqs:');
      const actionsOn = (resource: unknown) =>
        sqsStatements
          .filter((st) => JSON.stringify(st.Resource) === JSON.stringify(resource))
          .flatMap((st) => asList(st.Action))
          .sort();
      expect(actionsOn({ 'Fn::GetAtt': [ownQueue, 'Arn'] })).toEqual([
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:ReceiveMessage',
      ]);
      expect(actionsOn(ownDeadLetters)).toEqual(['sqs:SendMessage']);
      expect(actionsOn({ 'Fn::GetAtt': [ownQueue, 'Arn'] }).length + 1).toBe(
        sqsStatements.flatMap((st) => asList(st.Action)).length,
      );
      expect(byService('dynamodb:').map((st) => st.Resource)).toEqual([
        stateByName(':table/workforce-connector-acme-prod'),
      ]);
      // PutEvents on the connector bus for the outbound source only (events:source).
      expect(
        byService('events:').map((st) => [st.Action, st.Resource, (st as { Condition?: unknown }).Condition]),
      ).toEqual([
        [
          'events:PutEvents',
          stateByName(':event-bus/workforce-connector-acme-prod'),
          {
            'ForAllValues:StringEquals': { 'events:source': 'workforce.connector' },
            Null: { 'events:source': 'false' },
          },
        ],
      ]);
      // Reading the token only: no DescribeSecret.
      expect(byService('secretsmanager:').map((st) => [st.Action, st.Resource])).toEqual([
        ['secretsmanager:GetSecretValue', stateByName(':secret:workforce-connector/acme-prod/token-??????')],
      ]);
      // Nothing else: the statements above (the queue's grants of Lambda's polling and of the code apart).
      expect(statements.length, route.functionName).toBeLessThanOrEqual(7);
    }
  });

  it('keeps the table on demand with point-in-time recovery, TTL and the sharded trial and drift indexes', () => {
    stateful.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) =>
        Match.objectLike({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
            { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection.nonKeyAttributes] },
        }),
      ),
    });
    stateful.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain' });
  });

  it('routes only events with an accountId to a route, and every inbound event to the refusal function', () => {
    // Prepare
    const all = service.toJSON().Resources as Record<string, Resource>;
    const rules = resources(service, 'AWS::Events::Rule').filter(([, rule]) => rule.Properties.EventPattern);

    // Act
    const refusal = only(
      rules.filter(([, rule]) => !('detail-type' in (rule.Properties.EventPattern as object))),
      'refusal rule',
    )[1];
    const refusalQueueId = referenced((refusal.Properties.Targets as { Arn: unknown }[])[0]!.Arn)!;
    const mapping = Object.values(all).find(
      (r) =>
        r.Type === 'AWS::Lambda::EventSourceMapping' &&
        referenced(r.Properties.EventSourceArn) === refusalQueueId,
    )!;
    const refusalFunction = all[referenced(mapping.Properties.FunctionName)!]!;
    const variables = (refusalFunction.Properties.Environment as { Variables: Record<string, unknown> })
      .Variables;

    // Assess
    expect(refusal.Properties.EventPattern).toEqual({ source: ['partner.app'] });
    expect(String(variables.ROUTED_DETAIL_TYPES).split(',').sort()).toEqual(
      queueRoutes.map((route) => route.detailType).sort(),
    );
    expect(mapping.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    for (const route of queueRoutes) {
      expect(
        rules.some(
          ([, rule]) =>
            JSON.stringify(rule.Properties.EventPattern) ===
            JSON.stringify({
              source: ['partner.app'],
              'detail-type': [route.detailType],
              detail: { accountId: [{ exists: true }] },
            }),
        ),
        route.detailType,
      ).toBe(true);
    }
  });

  it('answers every intake dead-letter queue with the refusal function, which may write to the route dead-letter queues and nothing more', () => {
    // Prepare
    const all = service.toJSON().Resources as Record<string, Resource>;
    const [refusalId, refusal] = Object.entries(all).find(
      ([, r]) =>
        r.Type === 'AWS::Lambda::Function' && r.Properties.Description === refusalFunction.description,
    )!;
    const variables = (refusal.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const roleId = referenced(refusal.Properties.Role)!;
    const intake = queueRoutes.map((route) => {
      const rule = resources(service, 'AWS::Events::Rule').find(
        ([, r]) =>
          JSON.stringify(
            (r.Properties.EventPattern as { 'detail-type'?: unknown } | undefined)?.['detail-type'],
          ) === JSON.stringify([route.detailType]),
      )![1];
      const intakeQueue = all[referenced((rule.Properties.Targets as { Arn: unknown }[])[0]!.Arn)!]!;
      const intakeDeadLetters = referenced(
        (intakeQueue.Properties.RedrivePolicy as { deadLetterTargetArn: unknown }).deadLetterTargetArn,
      )!;
      const fifo = resources(service, 'AWS::Pipes::Pipe').find(
        ([, pipe]) =>
          referenced(pipe.Properties.Source) ===
          referenced((rule.Properties.Targets as { Arn: unknown }[])[0]!.Arn),
      )![1].Properties.Target;
      const routeDeadLetters = referenced(
        (all[referenced(fifo)!]!.Properties.RedrivePolicy as { deadLetterTargetArn: unknown })
          .deadLetterTargetArn,
      )!;
      return { route, intakeDeadLetters, routeDeadLetters };
    });

    // Act
    const mappings = Object.values(all).filter(
      (r) =>
        r.Type === 'AWS::Lambda::EventSourceMapping' && referenced(r.Properties.FunctionName) === refusalId,
    );
    const statements = policyStatements(service)
      .filter(({ owner, type }) => {
        if (type !== 'AWS::IAM::Policy') return false;
        return (all[owner]!.Properties.Roles as unknown[]).some((role) => referenced(role) === roleId);
      })
      .map(({ statement }) => statement)
      .filter((statement) => asList(statement.Action).every((action) => action.startsWith('sqs:')));
    const on = (queueId: string) =>
      statements.filter((statement) => JSON.stringify(statement.Resource).includes(`"${queueId}"`));

    // Assess: the refusal queue and every intake DLQ feed it, each with partial batch failures.
    expect(mappings).toHaveLength(1 + queueRoutes.length);
    for (const { route, intakeDeadLetters, routeDeadLetters } of intake) {
      const mapping = mappings.find((m) => referenced(m.Properties.EventSourceArn) === intakeDeadLetters);
      expect(mapping?.Properties, route.detailType).toMatchObject({
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        BatchSize: refusalFunction.batchSize,
        ScalingConfig: { MaximumConcurrency: refusalFunction.maxConcurrency },
      });
      // Six times the function's timeout, as for every queue a function reads.
      expect(all[intakeDeadLetters]!.Properties.VisibilityTimeout).toBe(refusalFunction.timeoutSeconds * 6);
      // Lambda's polling of the intake DLQ; only send to the route's FIFO DLQ (a routable dead
      // letter's copy). The code changes no visibility and reads no queue attributes or URLs.
      expect(
        on(intakeDeadLetters)
          .flatMap((statement) => asList(statement.Action))
          .sort(),
      ).toEqual(['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage']);
      expect(on(routeDeadLetters).map((statement) => asList(statement.Action))).toEqual([
        ['sqs:SendMessage'],
      ]);
      expect(JSON.stringify(variables.ROUTE_DEAD_LETTER_QUEUE_URLS)).toContain(`${route.detailType}=`);
      expect(JSON.stringify(variables.ROUTE_DEAD_LETTER_QUEUE_URLS)).toContain(`"Ref":"${routeDeadLetters}"`);
    }
    // Nothing else of SQS: its own queue, the intake DLQs (consume) and the route DLQs (send).
    expect(statements).toHaveLength(1 + 2 * queueRoutes.length);
    const refusalQueue = mappings.find(
      (m) =>
        !intake.some(
          ({ intakeDeadLetters }) => referenced(m.Properties.EventSourceArn) === intakeDeadLetters,
        ),
    );
    expect(variables.REFUSAL_QUEUE_ARN).toEqual(refusalQueue?.Properties.EventSourceArn);
  });

  it('runs the trial watch on the configured schedule with retries and a DLQ', () => {
    // Prepare
    const trialWatch = scheduledFunctions[0]!;

    // Act
    const [, fn] = only(
      resources(service, 'AWS::Lambda::Function').filter(
        ([, f]) => f.Properties.Description === trialWatch.description,
      ),
      'trial-watch function',
    );
    const functionId = Object.entries(service.toJSON().Resources).find(([, r]) => r === fn)![0];

    // Assess
    service.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [functionId, 'Arn'] },
          DeadLetterConfig: Match.anyValue(),
          RetryPolicy: Match.anyValue(),
        }),
      ],
    });
    expect(fn.Properties.Timeout).toBe(trialWatch.timeoutSeconds);
  });

  it('runs the drift watch on its own schedule, with the drift index, the cadence and a dashboard row', () => {
    // Prepare
    const driftWatch = scheduledFunctions.find((scheduled) => scheduled.functionName === 'drift-watch')!;

    // Act
    const [, fn] = only(
      resources(service, 'AWS::Lambda::Function').filter(
        ([, f]) => f.Properties.Description === driftWatch.description,
      ),
      'drift-watch function',
    );
    const functionId = Object.entries(service.toJSON().Resources).find(([, r]) => r === fn)![0];
    const [, dashboard] = only(resources(service, 'AWS::CloudWatch::Dashboard'), 'dashboard');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);

    // Assess
    service.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionId, 'Arn'] } })],
    });
    const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.DRIFT_CHECK_EVERY_HOURS).toBe('24');
    expect(driftWatch.queriesDriftIndex).toBe(true);
    stateful.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: Match.arrayWith([
        Match.objectLike({
          IndexName: 'driftIndex',
          KeySchema: [
            { AttributeName: 'driftShard', KeyType: 'HASH' },
            { AttributeName: 'driftDueAt', KeyType: 'RANGE' },
          ],
        }),
      ]),
    });
    expect(body).toContain('Unconfirmed signups');
    expect(body).toContain('UnconfirmedSignups');
    expect(body).toContain('BusinessGoneAnnounced');
  });

  it('alarms on dead letters, queue ages, pipes, failures, SyncFailed by class and the token, each linking its runbook', () => {
    // Prepare
    const alarms = resources(service, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);

    // Act
    const byMetric = (metric: string) => alarms.filter((alarm) => alarm.MetricName === metric);
    const mathOn = (metric: string) =>
      alarms.filter((alarm) =>
        (alarm.Metrics as { MetricStat?: { Metric: { MetricName: string } } }[] | undefined)?.some(
          (entry) => entry.MetricStat?.Metric.MetricName === metric,
        ),
      );
    const dimensions = (alarm: Record<string, unknown>) =>
      Object.fromEntries(
        (alarm.Dimensions as { Name: string; Value: unknown }[]).map((d) => [d.Name, d.Value]),
      );

    // Assess
    // No metric alarm notifies itself: the composites do (test/infra/alarms.test.ts).
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toBeUndefined();
      expect(String(alarm.AlarmDescription)).toMatch(
        /Severity: (page|ticket)\. What to do: https:\/\/github\.com\/example\/workforce-connector\/blob\/main\/docs\/deploy\.md#alarms-[a-z-]+$/,
      );
    }
    // Route DLQ per route, the refusal DLQ, a schedule DLQ each: alarm at the first message.
    const deadLetterDepth = byMetric('ApproximateNumberOfMessagesVisible');
    expect(deadLetterDepth).toHaveLength(queueRoutes.length + 1 + scheduledFunctions.length);
    for (const alarm of deadLetterDepth) {
      expect([alarm.Threshold, alarm.Statistic, alarm.Period]).toEqual([0, 'Maximum', 60]);
    }
    // An intake DLQ per route: its messages are answered by the refusal function within seconds,
    // so its alarm is on the age of its oldest message, which grows even while a message that
    // keeps failing is in flight (and so not counted as visible).
    const ages = byMetric('ApproximateAgeOfOldestMessage');
    const intakeUnanswered = ages.filter((alarm) =>
      String(alarm.AlarmDescription).includes('intake dead letters not answered'),
    );
    expect(intakeUnanswered).toHaveLength(queueRoutes.length);
    for (const alarm of intakeUnanswered) {
      expect([alarm.Statistic, alarm.Threshold]).toEqual(['Maximum', 900]);
    }
    // Route queue, intake queue, route DLQ and intake DLQ age per route; the refusal queue.
    expect(ages).toHaveLength(4 * queueRoutes.length + 1);
    expect(mathOn('ExecutionFailed')).toHaveLength(queueRoutes.length);
    // Per route function, and the refusal function's (an intake dead letter it cannot answer comes back).
    const recordsFailed = byMetric('RecordsFailed');
    expect(recordsFailed.map((alarm) => dimensions(alarm).service).sort()).toEqual(
      [...queueRoutes.map((route) => route.functionName), refusalFunction.functionName].sort(),
    );
    // SyncFailed by class, without a service dimension: operator codes page at the first one.
    const syncFailed = byMetric('SyncFailedByClass');
    expect(syncFailed.map((alarm) => [dimensions(alarm), alarm.Threshold, alarm.ComparisonOperator])).toEqual(
      expect.arrayContaining([
        [{ class: 'operator' }, 0, 'GreaterThanThreshold'],
        [{ class: 'partner' }, 10, 'GreaterThanOrEqualToThreshold'],
      ]),
    );
    const token = only(mathOn('TokenProblems'), 'token alarm');
    expect(JSON.stringify(token.Metrics)).toContain('TOKEN_REJECTED');
    expect(JSON.stringify(token.Metrics)).toContain('TOKEN_MISSING');
    // The scheduled watches' metric of items a run could not handle, one alarm per watch.
    expect(byMetric('TrialWatchFailed').map(dimensions)).toEqual([
      { service: 'trial-watch' },
      { service: 'drift-watch' },
    ]);
    const functions = queueRoutes.length + scheduledFunctions.length + 1;
    expect(byMetric('Errors')).toHaveLength(functions);
    expect(byMetric('Throttles')).toHaveLength(functions);
    service.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    service.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    service.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
    service.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'tickets@example.com',
    });
  });

  it('lets CloudWatch alarms of this account, and only they, publish to the alarm topics and use their key', () => {
    // Prepare
    const topicIds = resources(service, 'AWS::SNS::Topic').map(([id]) => id);
    const topicPolicies = resources(service, 'AWS::SNS::TopicPolicy');
    const fromOwnAlarms = {
      ArnLike: {
        'aws:SourceArn': {
          'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudwatch:us-east-1:123456789012:alarm:*']],
        },
      },
      StringEquals: { 'aws:SourceAccount': '123456789012' },
    };

    // Act
    const keyStatements = policyStatements(service).filter(
      ({ type, statement }) =>
        type === 'AWS::KMS::Key' && JSON.stringify(statement.Principal).includes('cloudwatch.amazonaws.com'),
    );

    // Assess: the page and the ticket topic, one policy each; enforceSSL's deny stays; the allow is
    // what lets any alarm reach anyone.
    expect(topicIds).toHaveLength(2);
    expect(topicPolicies).toHaveLength(2);
    for (const [, topicPolicy] of topicPolicies) {
      const [topicId] = asList(topicPolicy.Properties.Topics).map(referenced);
      expect(topicIds).toContain(topicId);
      const statements = (topicPolicy.Properties.PolicyDocument as { Statement: Statement[] }).Statement;
      expect(statements).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
      expect(statements.filter((statement) => statement.Effect === 'Allow')).toEqual([
        expect.objectContaining({
          Action: 'sns:Publish',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Resource: { Ref: topicId },
          Condition: fromOwnAlarms,
        }),
      ]);
    }
    expect(keyStatements.map(({ statement }) => (statement as { Condition?: unknown }).Condition)).toEqual([
      fromOwnAlarms,
    ]);
  });

  it('archives the inbound events in the stateful stack, kept as configured, and gives the routes a marker lifetime to match', () => {
    // Act
    const [, archive] = only(
      resources(stateful, 'AWS::Events::Archive').filter(
        ([, candidate]) => JSON.stringify(candidate.Properties.EventPattern) === '{"source":["partner.app"]}',
      ),
      'inbound archive',
    );
    const routeFunctions = resources(service, 'AWS::Lambda::Function').filter(
      ([, fn]) => (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.QUEUE_URL,
    );

    // Assess
    expect(archive.Properties).toMatchObject({
      EventPattern: { source: ['partner.app'] },
      RetentionDays: 30,
      SourceArn: { 'Fn::GetAtt': [expect.stringMatching(/StateEventBus/), 'Arn'] },
    });
    stateful.hasResource('AWS::Events::Archive', { DeletionPolicy: 'Retain' });
    expect(routeFunctions).toHaveLength(queueRoutes.length);
    for (const [, fn] of routeFunctions) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.REPLAY_MARKER_TTL_SECONDS).toBe(String(30 * 86_400));
    }
  });

  it('tells each route function its queue, its dead-letter queue and the receive at which the queue gives up', () => {
    const all = service.toJSON().Resources as Record<string, Resource>;
    for (const route of queueRoutes) {
      // Prepare
      const [functionId, fn] = Object.entries(all).find(
        ([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties.Description === route.description,
      )!;
      const mapping = Object.values(all).find(
        (r) =>
          r.Type === 'AWS::Lambda::EventSourceMapping' &&
          referenced(r.Properties.FunctionName) === functionId,
      )!;
      const queueId = referenced(mapping.Properties.EventSourceArn)!;
      const redrive = all[queueId]!.Properties.RedrivePolicy as {
        deadLetterTargetArn: unknown;
        maxReceiveCount: number;
      };

      // Act
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;

      // Assess
      expect(referenced(variables.QUEUE_URL)).toBe(queueId);
      expect(referenced(variables.DEAD_LETTER_QUEUE_URL)).toBe(referenced(redrive.deadLetterTargetArn));
      expect(variables.MAX_RECEIVE_COUNT).toBe(String(redrive.maxReceiveCount));
      expect(variables.MAX_ATTEMPTS).toBe(String(route.maxAttempts));
      // Long enough to wait out the whole retention on a missing token, plus the attempts.
      expect(all[queueId]!.Properties.MessageRetentionPeriod).toBe(14 * 86_400);
      expect(redrive.maxReceiveCount).toBe(routeMaxReceiveCount(route.maxAttempts));
    }
  });

  it('logs each pipe’s failed executions to a log group of its own, without the events’ content', () => {
    for (const [id, pipe] of resources(service, 'AWS::Pipes::Pipe')) {
      // Act
      const logging = pipe.Properties.LogConfiguration as {
        Level: string;
        CloudwatchLogsLogDestination: { LogGroupArn: unknown };
        IncludeExecutionData?: unknown;
      };

      // Assess
      expect(logging.Level, id).toBe('ERROR');
      expect(logging.IncludeExecutionData, id).toBeUndefined();
      const logGroup =
        service.toJSON().Resources[referenced(logging.CloudwatchLogsLogDestination.LogGroupArn)!];
      expect(logGroup.Type).toBe('AWS::Logs::LogGroup');
    }
  });

  it('outputs the bus, table, archive, alarm topic, dashboard and every queue and dead-letter queue by route', () => {
    // Act
    const outputs = service.toJSON().Outputs as Record<string, { Value: unknown; Description: string }>;
    const names = Object.keys(outputs);

    // Assess
    const expected = [
      'EventBusName',
      'TableName',
      'ArchiveName',
      'AlarmTopicArn',
      'TicketAlarmTopicArn',
      'DashboardUrl',
      'RefusalQueueUrl',
      'RefusalDeadLetterQueueUrl',
      ...queueRoutes.flatMap((route) =>
        ['QueueUrl', 'DeadLetterQueueUrl', 'IntakeQueueUrl', 'IntakeDeadLetterQueueUrl'].map(
          (suffix) => `${route.detailType}${suffix}`,
        ),
      ),
    ];
    // Each output's key is its name (connector-outputs.ts).
    for (const name of expected) expect(names, name).toContain(name);
    for (const [name, output] of Object.entries(outputs)) {
      expect(output.Description.length, name).toBeGreaterThan(5);
    }
    const dashboardUrl = Object.entries(outputs).find(([name]) => name === 'DashboardUrl')!;
    expect(JSON.stringify(dashboardUrl[1].Value)).toContain('#dashboards:name=');
  });

  it("lists the unconfirmed signups on the dashboard from the drift watch's log lines, next to their count", () => {
    // Prepare
    const driftWatch = scheduledFunctions.find((scheduled) => scheduled.functionName === 'drift-watch')!;
    const [, fn] = only(
      resources(service, 'AWS::Lambda::Function').filter(
        ([, f]) => f.Properties.Description === driftWatch.description,
      ),
      'drift-watch function',
    );
    const logGroup = referenced((fn.Properties.LoggingConfig as { LogGroup: unknown }).LogGroup);

    // Act
    const widgets = dashboardWidgets(service);
    const list = only(
      widgets.filter((widget) => widget.type === 'log'),
      'log query widget',
    );
    const count = only(
      widgets.filter(
        (widget) =>
          widget.properties['view'] === 'singleValue' &&
          JSON.stringify(widget.properties['metrics']).includes('UnconfirmedSignups'),
      ),
      'unconfirmed count widget',
    );

    // Assess
    expect(logGroup).toMatch(/DriftWatch/);
    expect(list.properties).toMatchObject({
      view: 'table',
      title: expect.stringContaining('Unconfirmed signups'),
    });
    const query = String(list.properties['query']);
    expect(query.startsWith(`SOURCE '<${logGroup}>' |`)).toBe(true);
    expect(query).toContain(`filter message = "${UNCONFIRMED_SIGNUP_LOG_MESSAGE}"`);
    expect(query).toMatch(/stats .*latest\(since\).*latest\(lastErrorCode\).*by accountId/);
    expect(query).not.toMatch(/email|message,|lastErrorMessage/i);
    expect(count.properties['title']).toContain('Unconfirmed signups');
  });

  it('graphs what each scheduled watch could not check, left to the budget, or left due', () => {
    // Act
    const widgets = dashboardWidgets(service);

    for (const scheduled of scheduledFunctions) {
      // Assess: each metric the watch publishes about work it did not do has a line on the dashboard.
      const work = only(
        widgets.filter((widget) =>
          String(widget.properties['title']).startsWith(`${scheduled.functionName}: items`),
        ),
        `${scheduled.functionName} work widget`,
      );
      const lines = JSON.stringify(work.properties['metrics']);
      for (const name of [scheduled.failureMetric, scheduled.throttledMetric, scheduled.remainingMetric]) {
        expect(name, scheduled.functionName).toBeDefined();
        expect(lines).toContain(`"${name}","service","${scheduled.functionName}"`);
      }
    }
  });

  it("hands the example config's one assumption (the QUERY maximum of the sandbox's spec reading), the function taking the defaults for the rest", () => {
    // Prepare
    const expected = serviceAssumptionsSchema.parse({ queryMaxRecords: 500 });

    for (const [id, env] of functionEnvironments(service)) {
      // Assess: only what differs from a default travels (Lambda's 4 KB of environment)...
      expect(env['SERVICE_ASSUMPTIONS'], id).toBe('{"queryMaxRecords":500}');
      // ... and the function reads it as the whole configuration.
      expect(serviceAssumptionsSchema.parse(JSON.parse(String(env['SERVICE_ASSUMPTIONS'])))).toEqual(
        expected,
      );
    }
  });

  it('draws a dashboard with a row per route and the connector metrics namespace', () => {
    // Act
    const [, dashboard] = only(resources(service, 'AWS::CloudWatch::Dashboard'), 'dashboard');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);

    // Assess
    for (const route of queueRoutes) expect(body).toContain(`${route.detailType}: queue`);
    expect(body).toContain('WorkforceConnector');
  });

  it('keeps the token out of every environment and gives each function settings its cold start accepts', () => {
    for (const [id, fn] of resources(service, 'AWS::Lambda::Function')) {
      // Prepare
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;

      // Act: resource references become placeholders, as CloudFormation fills them at deploy time.
      const env = Object.fromEntries(
        Object.entries(variables).map(([name, value]) => [
          name,
          typeof value === 'string' ? value : `resolved-${name}`,
        ]),
      );

      // Assess: the refusal function calls no service, so it has no token to read.
      if (variables.ROUTED_DETAIL_TYPES === undefined) {
        // The secret by its name (connector-app.ts: the state is found by name, not exported).
        expect(variables.TOKEN_SECRET_ID, id).toBe('workforce-connector/acme-prod/token');
        expect(() => loadConfig(env), id).not.toThrow();
      } else {
        expect(variables.TOKEN_SECRET_ID, id).toBeUndefined();
      }
      for (const [name, value] of Object.entries(variables)) {
        expect(name, id).not.toMatch(/^(TOKEN|BEARER|ACCESS_TOKEN|PASSWORD|API_KEY)$/);
        // TOKEN_SECRET_ID is the secret's name, asserted above.
        if (typeof value === 'string' && name !== 'TOKEN_SECRET_ID') {
          // The install API's auth mode is named "bearer" in the assumptions: a mode, not a token.
          const text = name === 'SERVICE_ASSUMPTIONS' ? value.replace('"installAuth":"bearer"', '') : value;
          expect(text, `${id} ${name} looks like a secret`).not.toMatch(/[A-Za-z0-9+/_-]{32,}/);
          expect(text.toLowerCase(), `${id} ${name}`).not.toContain('bearer');
        }
      }
    }
    stateful.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.anyValue(),
      SecretString: Match.absent(),
    });
  });

  it("keeps every function's environment within Lambda's 4 KB, references counted at their longest", () => {
    // Prepare: a reference resolves to a queue URL or ARN at most (an SQS name is ≤ 80 characters:
    // https://sqs.<region>.amazonaws.com/<account>/<name>, about 130).
    const LONGEST_REFERENCE = 140;
    const longest = (value: unknown): number => {
      if (typeof value === 'string') return value.length;
      const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
      if (join)
        return join[1].reduce<number>((sum, part) => sum + longest(part), join[0].length * join[1].length);
      return LONGEST_REFERENCE;
    };

    for (const [id, fn] of resources(service, 'AWS::Lambda::Function')) {
      // Act
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      const size = Object.entries(variables).reduce(
        (sum, [name, value]) => sum + name.length + longest(value),
        0,
      );

      // Assess ("Lambda quotas": 4 KB for all environment variables of a function).
      expect(size, id).toBeLessThan(4096);
    }
  });

  it('grants no function kms:Decrypt: the created secret is encrypted with the AWS managed key', () => {
    // Act
    const grants = functionGrants(service);

    // Assess
    expect(grants.length).toBeGreaterThan(0);
    for (const { id, statements } of grants) expect(kmsDecrypts(statements), id).toEqual([]);
  });

  it('builds every function for Node.js 24 on arm64 with its own log group and source maps', () => {
    for (const [id, fn] of resources(service, 'AWS::Lambda::Function')) {
      expect(fn.Properties, id).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        LoggingConfig: { LogGroup: { Ref: expect.stringMatching(/LogGroup/) } },
      });
      expect(
        (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.NODE_OPTIONS,
      ).toBe('--enable-source-maps');
    }
    // One per function, one per pipe.
    service.resourceCountIs('AWS::Logs::LogGroup', 2 * queueRoutes.length + scheduledFunctions.length + 1);
    service.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });
});

/** Open behaviours a deployment against the real service may read differently from the defaults. */
const ASSUMPTIONS: ServiceAssumptionsInput = {
  hostnameNotLinkedCodes: ['BUSINESS_UNKNOWN'],
  hostnameNotLinkedStatuses: [410],
  uncodedStatusReadings: { '403': 'token-refused', '404': 'retry' },
  signupDuplicateCodes: ['DUPLICATE_PARTNER_REFERENCE'],
  installAuth: 'none',
  queryMaxRecords: 250,
};

describe('the connector app with imported bus, secret and alarm topic', () => {
  let synthesized: SynthesizedConnector;

  beforeAll(() => {
    synthesized = synthesizeConnector(
      connectorConfig({
        eventBus: { existingBusName: 'partner-bus' },
        tokenSecret: { existingSecretName: 'partner/token' },
        alarms: {
          topicArn: 'arn:aws:sns:us-east-1:123456789012:ops-alarms',
          ticketTopicArn: 'arn:aws:sns:us-east-1:123456789012:ops-tickets',
          runbookBaseUrl: 'https://docs.example.com/connector/',
        },
        trialWatchSchedule: 'cron(15 6 * * ? *)',
        driftWatch: { everyHours: 12, schedule: 'cron(45 * * * ? *)' },
        routes: { EmployeeChanged: { maxConcurrency: 3, batchSize: 2 } },
        serviceAssumptions: ASSUMPTIONS,
      }),
    );
  });

  it("hands the config's serviceAssumptions to every function that calls the service, as its cold start reads them", () => {
    // Prepare
    const expected = serviceAssumptionsSchema.parse(ASSUMPTIONS);
    const callers = functionEnvironments(synthesized.service).filter(
      ([, env]) => env['ROUTED_DETAIL_TYPES'] === undefined,
    );

    // Act
    const read = callers.map(([id, env]) => [id, loadConfig(env).serviceAssumptions] as const);

    // Assess: the route functions and the scheduled watches (the refusal function calls no service).
    expect(callers).toHaveLength(queueRoutes.length + scheduledFunctions.length);
    for (const [id, assumptions] of read) {
      expect(assumptions, id).toEqual(expected);
      expect(assumptions, id).toMatchObject({
        hostnameNotLinkedCodes: ['BUSINESS_UNKNOWN'],
        hostnameNotLinkedStatuses: [410],
        uncodedStatusReadings: { '401': 'token-refused', '403': 'token-refused', '404': 'retry' },
        installAuth: 'none',
        queryMaxRecords: 250,
      });
    }
  });

  it('runs the trial and drift watches on the schedules and cadence the config gives', () => {
    // Assess
    synthesized.service.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(15 6 * * ? *)',
    });
    synthesized.service.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(45 * * * ? *)',
    });
    synthesized.service.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ DRIFT_CHECK_EVERY_HOURS: '12' }) },
    });
    synthesized.service.resourcePropertiesCountIs(
      'AWS::Events::Rule',
      { ScheduleExpression: 'rate(1 hour)' },
      0,
    );
  });

  it('tunes the event source of a route with the maxConcurrency and batchSize the config gives', () => {
    // Assess
    synthesized.service.resourcePropertiesCountIs(
      'AWS::Lambda::EventSourceMapping',
      { BatchSize: 2, ScalingConfig: { MaximumConcurrency: 3 } },
      1,
    );
  });

  it('creates no bus, secret or topic, and points rules, grants and alarms at the imported ones', () => {
    // Act
    const { service, stateful } = synthesized;

    // Assess
    for (const template of [service, stateful]) {
      template.resourceCountIs('AWS::Events::EventBus', 0);
      template.resourceCountIs('AWS::SecretsManager::Secret', 0);
      template.resourceCountIs('AWS::SNS::Topic', 0);
    }
    const composites = resources(service, 'AWS::CloudWatch::CompositeAlarm').map(
      ([, alarm]) => alarm.Properties,
    );
    expect(new Set(composites.map((alarm) => JSON.stringify(alarm.AlarmActions)))).toEqual(
      new Set([
        JSON.stringify(['arn:aws:sns:us-east-1:123456789012:ops-alarms']),
        JSON.stringify(['arn:aws:sns:us-east-1:123456789012:ops-tickets']),
      ]),
    );
    for (const [, alarm] of resources(service, 'AWS::CloudWatch::Alarm')) {
      expect(alarm.Properties.AlarmActions).toBeUndefined();
      // The trailing slash of the configured URL is dropped.
      expect(String(alarm.Properties.AlarmDescription)).toMatch(
        /What to do: https:\/\/docs\.example\.com\/connector\/deploy\.md#alarms-[a-z-]+$/,
      );
    }
    service.hasResourceProperties('AWS::Events::Rule', { EventBusName: 'partner-bus' });
    service.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ TOKEN_SECRET_ID: 'partner/token', EVENT_BUS_NAME: 'partner-bus' }),
      },
    });
    const secretGrant = policyStatements(service).find(({ statement }) =>
      asList(statement.Action).includes('secretsmanager:GetSecretValue'),
    );
    // Secrets Manager appends six random characters to a secret's ARN; "-??????" matches exactly those.
    expect(JSON.stringify(secretGrant?.statement.Resource)).toContain(':secret:partner/token-??????');
  });

  it('grants no function kms:Decrypt for the imported secret without tokenSecret.kmsKeyArn', () => {
    // Act
    const grants = functionGrants(synthesized.service);

    // Assess
    for (const { id, statements } of grants) expect(kmsDecrypts(statements), id).toEqual([]);
  });
});

describe('the connector app with an existing token secret under a customer managed key', () => {
  const KEY_ARN = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  let synthesized: SynthesizedConnector;

  beforeAll(() => {
    synthesized = synthesizeConnector(
      connectorConfig({ tokenSecret: { existingSecretName: 'partner/token', kmsKeyArn: KEY_ARN } }),
    );
  });

  it('passes cdk-nag AwsSolutions with no unacknowledged error', () => {
    // Act
    const report = validationReport(synthesized.outdir);

    // Assess
    expect(report.pluginReports.filter((plugin) => plugin.conclusion === 'failure')).toEqual([]);
  });

  it('grants kms:Decrypt on that key, through Secrets Manager only, to exactly the functions that read the token', () => {
    // Act
    const grants = functionGrants(synthesized.service);
    const readers = grants.filter(({ environment }) => environment['TOKEN_SECRET_ID'] !== undefined);
    const others = grants.filter(({ environment }) => environment['TOKEN_SECRET_ID'] === undefined);

    // Assess: the route functions and the scheduled watches read it; the refusal function does not.
    expect(readers).toHaveLength(queueRoutes.length + scheduledFunctions.length);
    expect(others).toHaveLength(1);
    for (const { id, statements } of readers) {
      expect(kmsDecrypts(statements), id).toEqual([
        {
          Effect: 'Allow',
          Action: 'kms:Decrypt',
          Resource: KEY_ARN,
          Condition: { StringEquals: { 'kms:ViaService': 'secretsmanager.us-east-1.amazonaws.com' } },
        },
      ]);
    }
    for (const { id, statements } of others) expect(kmsDecrypts(statements), id).toEqual([]);
    // The key is the only KMS grant of any function.
    for (const { id, statements } of grants) {
      for (const statement of statements) {
        const kms = asList(statement.Action).filter((action) => action.startsWith('kms:'));
        expect(
          kms.every((action) => action === 'kms:Decrypt'),
          id,
        ).toBe(true);
      }
    }
  });
});
