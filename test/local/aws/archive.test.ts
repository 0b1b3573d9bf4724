import {
  CancelReplayCommand,
  DescribeArchiveCommand,
  DescribeEventBusCommand,
  DescribeReplayCommand,
  EventBridgeClient,
  ListArchivesCommand,
  ListReplaysCommand,
  ListRulesCommand,
  PutEventsCommand,
  StartReplayCommand,
} from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBridgeError, LocalArchives, MAX_CONCURRENT_REPLAYS } from '#local/aws/archive.ts';
import { localClock } from '#local/aws/clock.ts';
import { deliveryModel } from '#local/aws/delivery-model.ts';
import { type BusEvent, EventBus, type RuleDefinition, type TargetOutcome } from '#local/aws/event-bus.ts';
import { compileEventPattern } from '#local/aws/event-pattern.ts';
import { eventsApi } from '#local/aws/events-api.ts';
import type { Replay, ReplayActivity, ReplayRequest } from '#local/aws/replay.ts';
import { SqsQueue } from '#local/aws/sqs.ts';
import { type AwsEndpoint, startAwsEndpoint } from '#local/aws-endpoint.ts';
import { TemplateModel, TemplateModelError } from '#local/cloudformation.ts';
import { deployLocally } from '#local/deployment.ts';
import type { SynthesizedStack } from '#local/template.ts';

const region = 'us-east-1';
const account = '000000000000';
/** Rule deliveries and standard queues as the runtime runs them: reordered, seeded. */
const delivery = deliveryModel({ seed: 25 });
const busArn = (name: string) => `arn:aws:events:${region}:${account}:event-bus/${name}`;
const archiveArn = (name: string) => `arn:aws:events:${region}:${account}:archive/${name}`;
const ruleArn = (bus: string, name: string) => `arn:aws:events:${region}:${account}:rule/${bus}/${name}`;

/** A clock the test moves: archive retention and replay times read it. */
function testClock(start = Date.parse('2025-03-03T10:00:00Z')) {
  let now = start;
  return {
    clock: localClock(1 / 10_000, () => now),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const event = (overrides: Partial<BusEvent> & { id: string }): BusEvent => ({
  version: '0',
  'detail-type': 'AccountCreated',
  source: 'partner.app',
  account,
  time: '2025-03-03T09:00:00Z',
  region,
  resources: [],
  detail: { accountId: 'acct-1' },
  ...overrides,
});

interface World {
  readonly bus: EventBus;
  readonly other: EventBus;
  readonly archives: LocalArchives;
  readonly queues: Record<'accounts' | 'employees' | 'everything', SqsQueue>;
  readonly rules: Record<'accounts' | 'employees' | 'everything', RuleDefinition>;
  readonly activity: ReplayActivity[];
  readonly advance: (ms: number) => void;
}

/** A bus with three rules (one per detail-type, one for every inbound event), each into its own queue, and an archive of partner.app events. */
function world(options: { keepIds?: boolean; bus?: EventBus } = {}): World {
  const { clock, advance } = testClock();
  const bus = options.bus ?? new EventBus({ name: 'connector', arn: busArn('connector'), clock, delivery });
  const other = new EventBus({ name: 'other', arn: busArn('other'), clock, delivery });
  const queue = (name: string) =>
    new SqsQueue(
      { name, arn: `arn:aws:sqs:${region}:${account}:${name}`, url: name, fifo: false },
      clock,
      delivery,
    );
  const queues = {
    accounts: queue('accounts'),
    employees: queue('employees'),
    everything: queue('everything'),
  };
  const rule = (name: keyof typeof queues, pattern: Record<string, unknown>): RuleDefinition => ({
    name,
    arn: ruleArn('connector', name),
    busName: 'connector',
    enabled: true,
    matches: compileEventPattern(pattern),
    eventPattern: JSON.stringify(pattern),
    targets: [
      {
        id: 'Target0',
        kind: 'sqs',
        queue: queues[name],
        retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeSeconds: 60 },
      },
    ],
  });
  const rules = {
    accounts: rule('accounts', { source: ['partner.app'], 'detail-type': ['AccountCreated'] }),
    employees: rule('employees', { source: ['partner.app'], 'detail-type': ['EmployeeChanged'] }),
    everything: rule('everything', { source: ['partner.app'] }),
  };
  for (const definition of Object.values(rules)) bus.addRule(definition);
  const activity: ReplayActivity[] = [];
  const archives = new LocalArchives({
    region,
    account,
    clock,
    ...(options.keepIds === undefined ? {} : { keepIds: options.keepIds }),
    onActivity: (entry) => activity.push(entry),
  });
  archives.add({
    name: 'inbound',
    arn: archiveArn('inbound'),
    bus,
    eventPattern: { source: ['partner.app'] },
    retentionDays: 30,
  });
  return { bus, other, archives, queues, rules, activity, advance };
}

const request = (overrides: Partial<ReplayRequest> = {}): ReplayRequest => ({
  name: 'replay-1',
  archiveArn: archiveArn('inbound'),
  eventStartTime: new Date('2025-03-03T09:00:00Z'),
  eventEndTime: new Date('2025-03-03T10:00:00Z'),
  destinationArn: busArn('connector'),
  ...overrides,
});

const bodies = (queue: SqsQueue) => queue.messages().map((message) => JSON.parse(message.body) as BusEvent);

/** Puts the events on the bus (the archive records them), then, once delivered, empties the rules' queues. */
async function archived(target: World, events: readonly BusEvent[]): Promise<void> {
  for (const item of events) target.bus.put(item);
  await target.bus.settle();
  for (const queue of Object.values(target.queues)) {
    for (const message of queue.messages()) queue.take(message.messageId);
  }
}

async function finished(target: World, replay: Replay): Promise<Replay> {
  await target.archives.settle();
  await target.bus.settle();
  return replay;
}

describe('an EventBridge archive', () => {
  it('keeps the events put on its bus that match its pattern, and never a replayed one', () => {
    // Prepare
    const target = world();

    // Act
    target.bus.put(event({ id: 'in-1' }));
    target.bus.put(event({ id: 'out-1', source: 'connector.results', 'detail-type': 'BusinessProvisioned' }));
    target.bus.put({ ...event({ id: 'again-1' }), 'replay-name': 'earlier' } as BusEvent);
    target.other.put(event({ id: 'elsewhere-1' }));

    // Assess
    const [archive] = target.archives.archives();
    expect(archive?.events().map((item) => item.id)).toEqual(['in-1']);
    expect(archive?.eventCount).toBe(1);
    expect(archive?.sizeBytes).toBe(Buffer.byteLength(JSON.stringify(event({ id: 'in-1' }))));
    expect(archive?.eventPattern).toBe('{"source":["partner.app"]}');
  });

  it('drops an event once its retention has passed since it was archived (0 days: never)', () => {
    // Prepare
    const { clock, advance } = testClock();
    const bus = new EventBus({ name: 'connector', arn: busArn('connector'), clock, delivery });
    const archives = new LocalArchives({ region, account, clock });
    const month = archives.add({ name: 'month', arn: archiveArn('month'), bus, retentionDays: 30 });
    const forever = archives.add({ name: 'forever', arn: archiveArn('forever'), bus, retentionDays: 0 });
    bus.put(event({ id: 'old' }));
    advance(29 * 86_400_000);
    bus.put(event({ id: 'recent' }));

    // Act
    advance(86_400_000 + 1);

    // Assess
    expect(month.events().map((item) => item.id)).toEqual(['recent']);
    expect(forever.events().map((item) => item.id)).toEqual(['old', 'recent']);
  });
});

describe('a replay from an archive', () => {
  it('sends the events whose time is in [start, end), in time order, with replay-name and new ids', async () => {
    // Prepare: archived out of time order; one on each boundary.
    const target = world();
    await archived(target, [
      event({ id: 'e-0930', time: '2025-03-03T09:30:00Z' }),
      event({ id: 'e-0900', time: '2025-03-03T09:00:00Z' }),
      event({ id: 'e-1000', time: '2025-03-03T10:00:00Z' }),
      event({ id: 'e-0859', time: '2025-03-03T08:59:59Z' }),
      event({ id: 'e-0915', time: '2025-03-03T09:15:00Z' }),
    ]);

    // Act
    const replay = await finished(
      target,
      target.archives.start(request({ filterArns: [target.rules.accounts.arn] })),
    );

    // Assess: sent in time order; the rule delivers them in no order (event-bus.ts), as EventBridge may.
    const received = bodies(target.queues.accounts);
    expect(replay.sent.map((item) => item.time)).toEqual([
      '2025-03-03T09:00:00Z',
      '2025-03-03T09:15:00Z',
      '2025-03-03T09:30:00Z',
    ]);
    expect(
      received.every((item) => (item as unknown as Record<string, unknown>)['replay-name'] === 'replay-1'),
    ).toBe(true);
    expect(received.map((item) => item.id)).not.toContain('e-0900');
    expect(new Set(received.map((item) => item.id)).size).toBe(3);
    expect(received[0]).toMatchObject({ source: 'partner.app', detail: { accountId: 'acct-1' } });
    expect(replay.sent.map((item) => item.id).sort()).toEqual(received.map((item) => item.id).sort());
    expect(replay.eventLastReplayedTime).toEqual(new Date('2025-03-03T09:30:00Z'));
  });

  it('keeps the original ids when the runtime is told replays keep them', async () => {
    // Prepare
    const target = world({ keepIds: true });
    await archived(target, [event({ id: 'e-1' }), event({ id: 'e-2', time: '2025-03-03T09:01:00Z' })]);

    // Act
    await finished(target, target.archives.start(request({ filterArns: [target.rules.accounts.arn] })));

    // Assess
    expect(
      bodies(target.queues.accounts)
        .map((item) => [item.id, (item as unknown as Record<string, unknown>)['replay-name']])
        .sort(),
    ).toEqual([
      ['e-1', 'replay-1'],
      ['e-2', 'replay-1'],
    ]);
  });

  it('reaches only the rules named in FilterArns, each still applying its own pattern', async () => {
    // Prepare
    const target = world();
    await archived(target, [
      event({ id: 'account' }),
      event({ id: 'employee', 'detail-type': 'EmployeeChanged' }),
    ]);

    // Act
    await finished(target, target.archives.start(request({ filterArns: [target.rules.employees.arn] })));

    // Assess
    expect(bodies(target.queues.employees).map((item) => item['detail-type'])).toEqual(['EmployeeChanged']);
    expect(bodies(target.queues.accounts)).toEqual([]);
    expect(bodies(target.queues.everything)).toEqual([]);
  });

  it('reaches every matching rule of the bus without FilterArns', async () => {
    // Prepare
    const target = world();
    await archived(target, [
      event({ id: 'account' }),
      event({ id: 'employee', 'detail-type': 'EmployeeChanged' }),
    ]);

    // Act
    await finished(target, target.archives.start(request()));

    // Assess
    expect(bodies(target.queues.accounts)).toHaveLength(1);
    expect(bodies(target.queues.employees)).toHaveLength(1);
    expect(bodies(target.queues.everything)).toHaveLength(2);
  });

  it('is not archived again', async () => {
    // Prepare
    const target = world();
    await archived(target, [event({ id: 'e-1' })]);

    // Act
    await finished(target, target.archives.start(request()));

    // Assess
    expect(
      target.archives
        .archive('inbound')
        .events()
        .map((item) => item.id),
    ).toEqual(['e-1']);
  });

  it('answers STARTING, then runs, and completes once every event is handed to its rules', async () => {
    // Prepare
    const target = world();
    await archived(target, [event({ id: 'e-1' })]);

    // Act
    const replay = target.archives.start(request({ filterArns: [target.rules.accounts.arn] }));
    const answered = replay.state;
    const busyWhileRunning = target.archives.busy();
    await finished(target, replay);

    // Assess
    expect(answered).toBe('STARTING');
    expect(busyWhileRunning).toBe(true);
    expect(replay.history).toEqual(['STARTING', 'RUNNING', 'COMPLETED']);
    expect(replay.replayEndTime).toBeInstanceOf(Date);
    expect(target.archives.busy()).toBe(false);
    expect(target.activity.map((entry) => [entry.state, entry.events, entry.rules])).toEqual([
      ['STARTING', 0, ['accounts']],
      ['RUNNING', 0, ['accounts']],
      ['COMPLETED', 1, ['accounts']],
    ]);
  });

  it('stops sending when cancelled, ending CANCELLED', async () => {
    // Prepare
    const target = world();
    await archived(target, [event({ id: 'e-1' })]);
    const replay = target.archives.start(request());

    // Act
    target.archives.cancel('replay-1');
    await finished(target, replay);

    // Assess
    expect(replay.history).toEqual(['STARTING', 'CANCELLING', 'CANCELLED']);
    expect(replay.sent).toEqual([]);
    expect(() => target.archives.cancel('replay-1')).toThrow(
      expect.objectContaining({ code: 'IllegalStatusException' }),
    );
  });

  it('ends FAILED, with the reason, when an event cannot be handed to its rules', async () => {
    // Prepare: a bus that cannot deliver replayed events.
    class BrokenBus extends EventBus {
      override deliverToTargets(rule: RuleDefinition, item: BusEvent): Promise<TargetOutcome[]> {
        if ('replay-name' in item) return Promise.reject(new Error('the bus is gone'));
        return super.deliverToTargets(rule, item);
      }
    }
    const { clock } = testClock();
    const target = world({
      bus: new BrokenBus({ name: 'connector', arn: busArn('connector'), clock, delivery }),
    });
    await archived(target, [event({ id: 'e-1' })]);

    // Act
    const replay = await finished(target, target.archives.start(request()));

    // Assess
    expect(replay.history).toEqual(['STARTING', 'RUNNING', 'FAILED']);
    expect(replay.stateReason).toMatch(
      /could not be handed to their rules; first: accounts: the bus is gone/,
    );
  });

  it('ends FAILED when the runtime stops while it runs', async () => {
    // Prepare
    const target = world();
    await archived(target, [event({ id: 'e-1' })]);
    const replay = target.archives.start(request());

    // Act
    await target.archives.stop();

    // Assess
    expect(replay.state).toBe('FAILED');
    expect(replay.stateReason).toBe('the local runtime stopped during the replay');
  });

  it('refuses what EventBridge refuses', async () => {
    // Prepare
    const target = world();
    const refusal = (overrides: Partial<ReplayRequest>) => {
      try {
        target.archives.start(request(overrides));
      } catch (error) {
        return error instanceof EventBridgeError ? `${error.code}: ${error.message}` : String(error);
      }
      return 'started';
    };
    await finished(target, target.archives.start(request({ name: 'taken' })));

    // Act / Assess
    expect(refusal({ archiveArn: archiveArn('missing') })).toBe(
      'ResourceNotFoundException: Archive missing does not exist.',
    );
    expect(refusal({ destinationArn: busArn('other') })).toMatch(
      /^ValidationException: .*Cross event bus replay/,
    );
    expect(refusal({ eventEndTime: new Date('2025-03-03T09:00:00Z') })).toMatch(
      /^ValidationException: .*EventStartTime must be before EventEndTime/,
    );
    expect(refusal({ filterArns: [ruleArn('other', 'accounts')] })).toMatch(
      /^ValidationException: .*Rule must be on the destination event bus/,
    );
    expect(refusal({ filterArns: [ruleArn('connector', 'missing')] })).toBe(
      'ResourceNotFoundException: Rule missing does not exist on EventBus connector.',
    );
    expect(refusal({ name: 'taken' })).toBe('ResourceAlreadyExistsException: Replay taken already exists.');
    expect(refusal({ name: 'no spaces' })).toMatch(/^ValidationException: .*replayName/);
    expect(refusal({ name: 'x'.repeat(65) })).toMatch(/^ValidationException/);
  });

  it(`allows ${MAX_CONCURRENT_REPLAYS} replays at once, no more`, async () => {
    // Prepare
    const target = world();
    const started = Array.from({ length: MAX_CONCURRENT_REPLAYS }, (_, index) =>
      target.archives.start(request({ name: `r-${index}` })),
    );

    // Act / Assess
    expect(() => target.archives.start(request({ name: 'one-too-many' }))).toThrow(
      expect.objectContaining({ code: 'LimitExceededException' }),
    );
    await target.archives.settle();
    expect(started.every((replay) => replay.state === 'COMPLETED')).toBe(true);
    expect(target.archives.start(request({ name: 'after-them' })).state).toBe('STARTING');
    await target.archives.settle();
  });
});

describe('the archive and replay API, through the real SDK client', () => {
  const target = world();
  let endpoint: AwsEndpoint;
  let eventBridge: EventBridgeClient;

  beforeAll(async () => {
    const operations = eventsApi({
      region,
      buses: new Map([
        ['connector', target.bus],
        ['other', target.other],
      ]),
      archives: target.archives,
    });
    endpoint = await startAwsEndpoint({ port: 0, operations: () => operations, control: () => [] });
    eventBridge = new EventBridgeClient({
      region,
      endpoint: endpoint.url,
      credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' },
    });
  });

  afterAll(async () => {
    eventBridge?.destroy();
    await endpoint?.close();
  });

  it('lists and describes the archive, the rules and the bus', async () => {
    // Prepare
    await eventBridge.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: 'connector',
            Source: 'partner.app',
            DetailType: 'AccountCreated',
            Detail: '{"accountId":"acct-sdk"}',
            Time: new Date('2025-03-03T09:10:00Z'),
          },
        ],
      }),
    );

    // Act
    const { Archives } = await eventBridge.send(new ListArchivesCommand({}));
    const described = await eventBridge.send(new DescribeArchiveCommand({ ArchiveName: 'inbound' }));
    const { Rules } = await eventBridge.send(new ListRulesCommand({ EventBusName: busArn('connector') }));
    const bus = await eventBridge.send(new DescribeEventBusCommand({ Name: 'connector' }));

    // Assess
    expect(Archives).toEqual([
      expect.objectContaining({
        ArchiveName: 'inbound',
        EventSourceArn: busArn('connector'),
        State: 'ENABLED',
        RetentionDays: 30,
        EventCount: 1,
        CreationTime: expect.any(Date),
      }),
    ]);
    expect(described).toMatchObject({
      ArchiveArn: archiveArn('inbound'),
      EventPattern: '{"source":["partner.app"]}',
      EventCount: 1,
      SizeBytes: expect.any(Number),
    });
    expect(Rules?.map((rule) => [rule.Name, rule.State, rule.EventBusName])).toEqual([
      ['accounts', 'ENABLED', 'connector'],
      ['employees', 'ENABLED', 'connector'],
      ['everything', 'ENABLED', 'connector'],
    ]);
    expect(JSON.parse(Rules?.[1]?.EventPattern ?? '{}')).toEqual({
      source: ['partner.app'],
      'detail-type': ['EmployeeChanged'],
    });
    expect(bus).toMatchObject({ Name: 'connector', Arn: busArn('connector') });
  });

  it('starts a replay and describes it, with timestamps as dates', async () => {
    // Act
    const started = await eventBridge.send(
      new StartReplayCommand({
        ReplayName: 'sdk-replay',
        EventSourceArn: archiveArn('inbound'),
        EventStartTime: new Date('2025-03-03T09:00:00Z'),
        EventEndTime: new Date('2025-03-03T09:30:00Z'),
        Destination: { Arn: busArn('connector'), FilterArns: [target.rules.accounts.arn] },
      }),
    );
    await target.archives.settle();
    const described = await eventBridge.send(new DescribeReplayCommand({ ReplayName: 'sdk-replay' }));
    const { Replays } = await eventBridge.send(new ListReplaysCommand({ NamePrefix: 'sdk-' }));

    // Assess
    expect(started).toMatchObject({
      ReplayArn: `arn:aws:events:${region}:${account}:replay/sdk-replay`,
      State: 'STARTING',
      ReplayStartTime: expect.any(Date),
    });
    expect(described).toMatchObject({
      ReplayName: 'sdk-replay',
      State: 'COMPLETED',
      EventSourceArn: archiveArn('inbound'),
      Destination: { Arn: busArn('connector'), FilterArns: [target.rules.accounts.arn] },
      EventStartTime: new Date('2025-03-03T09:00:00Z'),
      EventEndTime: new Date('2025-03-03T09:30:00Z'),
      EventLastReplayedTime: new Date('2025-03-03T09:10:00Z'),
      ReplayEndTime: expect.any(Date),
    });
    expect(Replays?.map((replay) => replay.ReplayName)).toEqual(['sdk-replay']);
    expect(bodies(target.queues.accounts).at(-1)).toMatchObject({ 'replay-name': 'sdk-replay' });
  });

  it('answers refusals with the error types EventBridge uses', async () => {
    // Act
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => 'accepted',
        (error: Error) => error.name,
      );
    const missingArchive = await failure(
      eventBridge.send(new DescribeArchiveCommand({ ArchiveName: 'missing' })),
    );
    const missingReplay = await failure(
      eventBridge.send(new DescribeReplayCommand({ ReplayName: 'missing' })),
    );
    const crossBus = await failure(
      eventBridge.send(
        new StartReplayCommand({
          ReplayName: 'cross-bus',
          EventSourceArn: archiveArn('inbound'),
          EventStartTime: new Date('2025-03-03T09:00:00Z'),
          EventEndTime: new Date('2025-03-03T09:30:00Z'),
          Destination: { Arn: busArn('other') },
        }),
      ),
    );
    const cancelDone = await failure(eventBridge.send(new CancelReplayCommand({ ReplayName: 'sdk-replay' })));
    const unknownBus = await failure(eventBridge.send(new ListRulesCommand({ EventBusName: 'missing' })));
    const twoFilters = await failure(
      eventBridge.send(new ListArchivesCommand({ NamePrefix: 'in', EventSourceArn: busArn('connector') })),
    );

    // Assess
    expect([missingArchive, missingReplay, crossBus, cancelDone, unknownBus, twoFilters]).toEqual([
      'ResourceNotFoundException',
      'ResourceNotFoundException',
      'ValidationException',
      'IllegalStatusException',
      'ResourceNotFoundException',
      'ValidationException',
    ]);
  });
});

describe('archives in a template', () => {
  const stack = (archiveSource: unknown): SynthesizedStack[] => [
    {
      stackName: 'Archived',
      template: {
        Resources: {
          Bus: { Type: 'AWS::Events::EventBus', Properties: { Name: 'connector' } },
          Queue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'accounts' } },
          Rule: {
            Type: 'AWS::Events::Rule',
            Properties: {
              EventBusName: { Ref: 'Bus' },
              EventPattern: { source: ['partner.app'], 'detail-type': ['AccountCreated'] },
              Targets: [{ Id: 'Target0', Arn: { 'Fn::GetAtt': ['Queue', 'Arn'] } }],
            },
          },
          Archive: {
            Type: 'AWS::Events::Archive',
            Properties: {
              SourceArn: archiveSource,
              EventPattern: { source: ['partner.app'] },
              RetentionDays: 7,
              Description: 'inbound events',
            },
          },
        },
      },
    },
  ];
  const deploy = (archiveSource: unknown) =>
    deployLocally(
      new TemplateModel(stack(archiveSource), { region, account, sqsEndpoint: 'http://127.0.0.1:1' }),
      {
        region,
        clock: localClock(1 / 10_000),
        delivery,
        host: { load: () => Promise.reject(new Error('no function here')) },
      },
    );

  it('become archives of their bus, recording what is put on it', async () => {
    // Prepare
    const deployment = deploy({ 'Fn::GetAtt': ['Bus', 'Arn'] });

    // Act
    deployment.connectorBus.put(event({ id: 'e-1' }));
    const [archive] = deployment.archives.archives();
    await deployment.stop();

    // Assess
    expect(archive).toMatchObject({
      name: 'Archived-Archive',
      arn: archiveArn('Archived-Archive'),
      retentionDays: 7,
      description: 'inbound events',
      eventPattern: '{"source":["partner.app"]}',
    });
    expect(archive?.bus).toBe(deployment.connectorBus);
    expect(archive?.events().map((item) => item.id)).toEqual(['e-1']);
    expect(deployment.connectorBus.ruleList()[0]?.eventPattern).toBe(
      '{"source":["partner.app"],"detail-type":["AccountCreated"]}',
    );
  });

  it('stop the runtime at start-up when their SourceArn is no bus of the template', () => {
    // Act / Assess
    expect(() => deploy(busArn('somewhere-else'))).toThrow(TemplateModelError);
    expect(() => deploy(busArn('somewhere-else'))).toThrow(
      /Archived\/Archive \(AWS::Events::Archive\): SourceArn .*somewhere-else is not a bus of the template/,
    );
  });
});
