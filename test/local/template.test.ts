import type { SQSEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { type InboundDetailType, inboundContracts } from '#functions/contracts/registry.ts';
import { createRouteDecoder } from '#functions/contracts/route-decoder.ts';
import { localClock } from '#local/aws/clock.ts';
import { deliveryModel } from '#local/aws/delivery-model.ts';
import {
  compileInputTemplate,
  dynamicParameter,
  withImplicitBodyParsing,
} from '#local/aws/input-template.ts';
import { TemplateModel, TemplateModelError } from '#local/cloudformation.ts';
import { deployLocally, IDLE_RECEIVE_LIMIT } from '#local/deployment.ts';
import {
  LOCAL_ACCOUNT_ID,
  LOCAL_REGION,
  localConnectorConfig,
  type SynthesizedStack,
  synthesizeConnector,
} from '#local/template.ts';
import { sampleEventBridgeEvent } from '#scripts/generate-schemas.ts';

const options = { region: LOCAL_REGION, account: LOCAL_ACCOUNT_ID, sqsEndpoint: 'http://127.0.0.1:1' };

describe('the synthesized template as the local runtime reads it', () => {
  let stacks: SynthesizedStack[];
  let model: TemplateModel;

  beforeAll(async () => {
    stacks = await synthesizeConnector(localConnectorConfig({ sandboxUrl: 'http://127.0.0.1:1' }));
    model = new TemplateModel(stacks, options);
  });

  it("turns each pipe's input template and dynamic parameters into a message its route's own decoder reads", () => {
    // Prepare: which function each pipe feeds, from the template (pipe target → event source mapping).
    const pipes = model.ofType('AWS::Pipes::Pipe');
    expect(pipes.length).toBeGreaterThanOrEqual(7);
    for (const pipe of pipes) {
      const target = model.resolve(pipe.properties['Target'], pipe.stackName);
      const mapping = model
        .ofType('AWS::Lambda::EventSourceMapping')
        .find(
          (resource) => model.resolve(resource.properties['EventSourceArn'], resource.stackName) === target,
        );
      const fn = model.referenced(mapping?.properties['FunctionName'], mapping?.stackName ?? '');
      const service = (
        model.resolve(fn?.properties['Environment'], fn?.stackName ?? '') as {
          Variables: Record<string, string>;
        }
      ).Variables['POWERTOOLS_SERVICE_NAME'];
      const rule = model
        .ofType('AWS::Events::Rule')
        .find((resource) =>
          (
            model.resolve(resource.properties['Targets'], resource.stackName) as
              | Array<{ Arn: string }>
              | undefined
          )?.some((candidate) => candidate.Arn === model.resolve(pipe.properties['Source'], pipe.stackName)),
        );
      const detailType = (rule!.properties['EventPattern'] as { 'detail-type': [InboundDetailType] })[
        'detail-type'
      ][0];
      const parameters = pipe.properties['TargetParameters'] as {
        InputTemplate: string;
        SqsQueueParameters: { MessageGroupId: string; MessageDeduplicationId: string };
      };
      const event = sampleEventBridgeEvent(detailType);
      const record = withImplicitBodyParsing({
        messageId: 'm-1',
        body: JSON.stringify(event),
        attributes: {},
      });

      // Act
      const body = compileInputTemplate(parameters.InputTemplate).evaluate(record, {
        pipeArn: pipe.arn,
        pipeName: pipe.name,
        sourceArn: 'arn:source',
        targetArn: String(target),
        ingestionTime: new Date().toISOString(),
      });
      const decoded = createRouteDecoder(inboundContracts[detailType])(body, { source: event.source });

      // Assess
      expect(decoded, `${pipe.logicalId} → ${service}`).toMatchObject({
        ok: true,
        event: { id: event.id, detailType },
      });
      expect(dynamicParameter(parameters.SqsQueueParameters.MessageGroupId)(record)).toBe(
        event.detail.accountId,
      );
      expect(dynamicParameter(parameters.SqsQueueParameters.MessageDeduplicationId)(record)).toBe(event.id);
    }
  });

  it('names every queue by its role and route, as GET /_local/resources reports them', async () => {
    // Act
    const deployment = deployLocally(model, {
      region: LOCAL_REGION,
      clock: localClock(),
      delivery: deliveryModel({ seed: 25 }),
      host: { load: () => Promise.reject(new Error('no function runs here')) },
    });
    const views = deployment.queueViews;
    await deployment.stop();

    // Assess
    const accountCreated = views
      .filter((view) => view.route === 'AccountCreated')
      .map((view) => `${view.kind}${view.deadLettersOf ? ` of ${view.deadLettersOf}` : ''}`);
    expect(accountCreated.sort()).toEqual([
      'dead-letter of intake',
      'dead-letter of route',
      'intake',
      'route',
    ]);
    expect(views.filter((view) => view.kind === 'refusal')).toHaveLength(1);
    expect(views.filter((view) => view.deadLettersOf === 'refusal')).toHaveLength(1);
    // One per schedule: the trial watch and the drift watch.
    expect(views.filter((view) => view.deadLettersOf === 'schedule')).toHaveLength(2);
    expect(deployment.connectorBus.name).toBe('workforce-connector-acme-prod');
  });

  it("hands an intake dead-letter queue's messages to the refusal function, through its event source mapping, and is busy until they are taken", async () => {
    // Prepare: stand-in handlers that record which function got which batch.
    const received: Array<{ service: string | undefined; event: SQSEvent }> = [];
    const deployment = deployLocally(model, {
      region: LOCAL_REGION,
      clock: localClock(),
      delivery: deliveryModel({ seed: 25 }),
      host: {
        load: async (fn) => async (event) => {
          received.push({ service: fn.environment['POWERTOOLS_SERVICE_NAME'], event: event as SQSEvent });
          return { batchItemFailures: [] };
        },
      },
    });
    const intakeDeadLetters = deployment.queueViews.find(
      (view) => view.route === 'AccountCreated' && view.deadLettersOf === 'intake',
    )!;
    const queue = deployment.queues.get(intakeDeadLetters.name)!;

    // Act
    queue.send({ body: '{"id":"parked"}', messageAttributes: { ERROR_CODE: 'SQS_PERMISSION_ERROR' } });
    const busyWhileWaiting = deployment.busy();
    while (deployment.busy()) await new Promise((resolve) => setTimeout(resolve, 5));
    await deployment.stop();

    // Assess
    expect(busyWhileWaiting).toBe(true);
    expect(received.map(({ service }) => service)).toEqual(['refuse-unroutable']);
    expect(received[0]?.event.Records.map((record) => [record.eventSourceARN, record.body])).toEqual([
      [intakeDeadLetters.arn, '{"id":"parked"}'],
    ]);
    expect(received[0]?.event.Records[0]?.messageAttributes['ERROR_CODE']?.stringValue).toBe(
      'SQS_PERMISSION_ERROR',
    );
    expect(queue.depth()).toBe(0);
  });

  it('counts a much-received message as pending work only where no redrive policy ends its receives', async () => {
    // Prepare: every function fails; a route queue (redrive after ~690 receives) and an intake
    // dead-letter queue (no redrive) each get a message already received 150 times.
    let failedInvocations = 0;
    const deployment = deployLocally(model, {
      region: LOCAL_REGION,
      clock: localClock(1 / 100),
      delivery: deliveryModel({ seed: 25 }),
      host: {
        load: async () => async () => {
          failedInvocations += 1;
          throw new Error('stand-in failure');
        },
      },
    });
    const queueOf = (kind: string, deadLettersOf?: string) =>
      deployment.queues.get(
        deployment.queueViews.find(
          (view) =>
            view.route === 'AccountCreated' && view.kind === kind && view.deadLettersOf === deadLettersOf,
        )!.name,
      )!;
    const receivedOften = (messageId: string) => ({
      messageId,
      body: '{"event":{}}',
      sentTimestamp: Date.now(),
      messageAttributes: {},
      receiveCount: IDLE_RECEIVE_LIMIT + 50,
    });
    // Until the invocation failed and its poller let the message go (it then waits out its
    // visibility timeout, 1.8 s or more at this scale): busy() then answers for the queue alone.
    const failedOnce = async (queue: ReturnType<typeof queueOf>) => {
      const deadline = Date.now() + 5_000;
      while (failedInvocations < 1 || queue.heldCount() > 0) {
        if (Date.now() > deadline) throw new Error('the invocation did not fail and let go in time');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };

    // Act
    const route = queueOf('route');
    route.send(
      { body: '{"event":{}}', groupId: 'acct-1', deduplicationId: 'd-1' },
      { original: receivedOften('r') },
    );
    await failedOnce(route);
    const busyOnRouteQueue = deployment.busy();
    // Received more often than the idle limit: only the redrive policy keeps it counted.
    const routeWaitsOnlyByRedrive =
      route.nextVisibleAt(IDLE_RECEIVE_LIMIT) === undefined && route.nextVisibleAt() !== undefined;
    route.take('r');
    failedInvocations = 0;
    const intakeDeadLetters = queueOf('dead-letter', 'intake');
    intakeDeadLetters.send({ body: '{"id":"parked"}' }, { original: receivedOften('i') });
    await failedOnce(intakeDeadLetters);
    const busyOnIntakeDeadLetters = deployment.busy();
    await deployment.stop();

    // Assess
    expect(busyOnRouteQueue).toBe(true);
    expect(routeWaitsOnlyByRedrive).toBe(true);
    expect(busyOnIntakeDeadLetters).toBe(false);
  });

  it('stops at start-up on a resource type it does not model, naming it', () => {
    // Prepare
    const [first, ...rest] = stacks;
    const drifted = {
      ...first!,
      template: {
        ...first!.template,
        Resources: {
          ...first!.template.Resources,
          Machine: { Type: 'AWS::StepFunctions::StateMachine', Properties: {} },
        },
      },
    };

    // Act / Assess
    expect(() => new TemplateModel([drifted, ...rest], options)).toThrow(TemplateModelError);
    expect(() => new TemplateModel([drifted, ...rest], options)).toThrow(
      /Machine \(AWS::StepFunctions::StateMachine\)/,
    );
  });

  it('stops at start-up on a property it does not model, naming it', () => {
    // Prepare: a queue with a delivery delay, which the local queues do not reproduce.
    const service = stacks.find((stack) => stack.stackName.endsWith('-Service'))!;
    const [queueId, queue] = Object.entries(service.template.Resources).find(
      ([, resource]) => resource.Type === 'AWS::SQS::Queue',
    )!;
    const drifted = stacks.map((stack) =>
      stack === service
        ? {
            ...stack,
            template: {
              ...stack.template,
              Resources: {
                ...stack.template.Resources,
                [queueId]: { ...queue, Properties: { ...queue.Properties, DelaySeconds: 30 } },
              },
            },
          }
        : stack,
    );

    // Act / Assess
    expect(() => new TemplateModel(drifted, options)).toThrow(
      new RegExp(`${queueId} \\(AWS::SQS::Queue\\): property DelaySeconds`),
    );
  });

  it('stops at start-up on a pipe parameter or rule target property it does not model', () => {
    // Prepare
    const service = stacks.find((stack) => stack.stackName.endsWith('-Service'))!;
    const resources = { ...service.template.Resources };
    const [pipeId, pipe] = Object.entries(resources).find(
      ([, resource]) => resource.Type === 'AWS::Pipes::Pipe',
    )!;
    resources[pipeId] = {
      ...pipe,
      Properties: { ...pipe.Properties, SourceParameters: { FilterCriteria: { Filters: [] } } },
    };
    const drifted = stacks.map((stack) =>
      stack === service ? { ...stack, template: { ...stack.template, Resources: resources } } : stack,
    );

    // Act / Assess
    expect(() =>
      deployLocally(new TemplateModel(drifted, options), {
        region: LOCAL_REGION,
        clock: localClock(),
        delivery: deliveryModel({ seed: 25 }),
        host: { load: () => Promise.reject(new Error('unused')) },
      }),
    ).toThrow(/pipe parameter FilterCriteria is not modeled/);
  });
});
