import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeReplayCommand, EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterEach, describe, expect, it } from 'vitest';
import { queueRoutes } from '#functions/routes.ts';
import { LocalArchives, REPLAY_NAME_PATTERN } from '#local/aws/archive.ts';
import { localClock } from '#local/aws/clock.ts';
import { deliveryModel } from '#local/aws/delivery-model.ts';
import { type BusEvent, EventBus, type RuleDefinition, type TargetOutcome } from '#local/aws/event-bus.ts';
import { compileEventPattern } from '#local/aws/event-pattern.ts';
import { eventsApi } from '#local/aws/events-api.ts';
import { SqsQueue } from '#local/aws/sqs.ts';
import { startAwsEndpoint } from '#local/aws-endpoint.ts';
import {
  HELP,
  inboundSourceFromConfig,
  parseReplayArgs,
  type ReplayOptions,
  ReplayUsageError,
  replay,
  replayName,
} from '#scripts/replay.ts';

const region = 'us-east-1';
const account = '000000000000';
const NOW = new Date('2025-03-03T12:00:00Z');
/** Rule deliveries and standard queues as the runtime runs them: reordered, seeded. */
const delivery = deliveryModel({ seed: 25 });
const busArn = (name: string) => `arn:aws:events:${region}:${account}:event-bus/${name}`;

describe('parseReplayArgs', () => {
  const usage = (argv: string[]) => {
    try {
      parseReplayArgs(argv, NOW);
    } catch (error) {
      expect(error).toBeInstanceOf(ReplayUsageError);
      return (error as Error).message.split('\n')[0];
    }
    return 'accepted';
  };

  it('reads the window and the flags; waiting is the default', () => {
    // Act
    const options = parseReplayArgs(
      [
        '--from',
        '2025-03-03T09:00:00Z',
        '--to',
        '2025-03-03T10:00:00.500Z',
        '--detail-type',
        'EmployeeChanged',
        '--archive',
        'inbound',
        '--region',
        'eu-west-1',
        '--dry-run',
      ],
      NOW,
    );
    const noWait = parseReplayArgs(
      ['--from', '2025-03-03T09:00:00Z', '--to', '2025-03-03T10:00:00Z', '--no-wait'],
      NOW,
    );

    // Assess
    expect(options).toEqual({
      from: new Date('2025-03-03T09:00:00Z'),
      to: new Date('2025-03-03T10:00:00.500Z'),
      detailType: 'EmployeeChanged',
      archive: 'inbound',
      region: 'eu-west-1',
      dryRun: true,
      wait: true,
    });
    expect(noWait.wait).toBe(false);
  });

  it('refuses a missing, unreadable, empty or future window, naming the problem and the usage', () => {
    // Act / Assess
    expect(usage(['--to', '2025-03-03T10:00:00Z'])).toBe('missing --from <ISO time>');
    expect(usage(['--from', '2025-03-03T09:00:00Z'])).toBe('missing --to <ISO time>');
    expect(usage(['--from', 'yesterday', '--to', '2025-03-03T10:00:00Z'])).toMatch(
      /--from yesterday is not an ISO 8601 time/,
    );
    expect(usage(['--from', '1700000000', '--to', '2025-03-03T10:00:00Z'])).toMatch(
      /is not an ISO 8601 time/,
    );
    expect(usage(['--from', '2025-03-03T10:00:00Z', '--to', '2025-03-03T10:00:00Z'])).toBe(
      '--from must be before --to',
    );
    expect(usage(['--from', '2025-03-03T11:00:00Z', '--to', '2025-03-03T12:00:01Z'])).toMatch(
      /^--to is in the future/,
    );
    expect(() => parseReplayArgs(['--to', '2025-03-03T10:00:00Z'], NOW)).toThrow(
      /usage: npm run replay -- --from/,
    );
  });

  it('refuses a detail-type no route takes, naming the ones they take', () => {
    // Act
    const message = usage([
      '--from',
      '2025-03-03T09:00:00Z',
      '--to',
      '2025-03-03T10:00:00Z',
      '--detail-type',
      'Nope',
    ]);

    // Assess
    expect(message).toContain('--detail-type Nope is not a route');
    for (const route of queueRoutes) expect(message).toContain(route.detailType);
  });

  it('refuses unknown flags, stray arguments and --wait with --no-wait', () => {
    // Act / Assess
    expect(usage(['--from', '2025-03-03T09:00:00Z', '--to', '2025-03-03T10:00:00Z', '--fast'])).toMatch(
      /--fast/,
    );
    expect(usage(['extra', '--from', '2025-03-03T09:00:00Z', '--to', '2025-03-03T10:00:00Z'])).toMatch(
      /extra/,
    );
    expect(
      usage(['--from', '2025-03-03T09:00:00Z', '--to', '2025-03-03T10:00:00Z', '--wait', '--no-wait']),
    ).toBe('--wait and --no-wait exclude each other');
  });

  it('answers --help with the help, which says why the refusal rule is never a destination', () => {
    // Act
    const options = parseReplayArgs(['--help'], NOW);

    // Assess
    expect(options.help).toBe(true);
    expect(HELP).toContain('The refusal rule is never');
    expect(HELP).toContain('SyncFailed');
    expect(HELP).toContain('10 minutes');
    expect(HELP).toContain('--no-wait');
  });
});

describe('replay names and the inbound source', () => {
  it('names a replay connector-replay-<yyyymmddhhmmss>, as StartReplay allows', () => {
    // Act
    const first = replayName(new Date('2025-03-03T09:05:07.890Z'));
    const second = replayName(new Date('2025-03-03T09:05:07.890Z'), 2);

    // Assess
    expect(first).toBe('connector-replay-20250303090507');
    expect(second).toBe('connector-replay-20250303090507-2');
    expect(first).toMatch(REPLAY_NAME_PATTERN);
    expect(second).toMatch(REPLAY_NAME_PATTERN);
  });

  it('reads inboundSource from connector.config.json when it is there and reads, else partner.app', () => {
    // Prepare
    const directory = mkdtempSync(join(tmpdir(), 'replay-config-'));
    try {
      // Act / Assess
      expect(inboundSourceFromConfig(directory)).toBe('partner.app');
      writeFileSync(join(directory, 'connector.config.json'), JSON.stringify({ inboundSource: 'acme.app' }));
      expect(inboundSourceFromConfig(directory)).toBe('acme.app');
      writeFileSync(join(directory, 'connector.config.json'), '{ not json');
      expect(inboundSourceFromConfig(directory)).toBe('partner.app');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

/** A bus like the connector's: a rule per route detail-type, the refusal rule, one rule of another source. */
function connectorBus(clock: ReturnType<typeof localClock>, bus?: EventBus) {
  const connector = bus ?? new EventBus({ name: 'connector', arn: busArn('connector'), clock, delivery });
  const queue = new SqsQueue(
    { name: 'intake', arn: `arn:aws:sqs:${region}:${account}:intake`, url: 'intake', fifo: false },
    clock,
    delivery,
  );
  const rule = (name: string, pattern: Record<string, unknown>): RuleDefinition => ({
    name,
    arn: `arn:aws:events:${region}:${account}:rule/connector/${name}`,
    busName: 'connector',
    enabled: true,
    matches: compileEventPattern(pattern),
    eventPattern: JSON.stringify(pattern),
    targets: [
      {
        id: 'Target0',
        kind: 'sqs',
        queue,
        retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeSeconds: 60 },
      },
    ],
  });
  for (const { detailType } of queueRoutes) {
    connector.addRule(
      rule(`${detailType}Rule`, {
        source: ['partner.app'],
        'detail-type': [detailType],
        detail: { accountId: [{ exists: true }] },
      }),
    );
  }
  connector.addRule(rule('RefusalRule', { source: ['partner.app'] }));
  connector.addRule(rule('OtherRule', { source: ['someone.else'], 'detail-type': ['AccountCreated'] }));
  return { bus: connector, queue };
}

describe('replay() against the local EventBridge endpoint', () => {
  const closers: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /** An endpoint with the connector's bus and these archives on it (name → pattern). */
  async function world(archivePatterns: Record<string, unknown>, options: { bus?: EventBus } = {}) {
    const clock = localClock(1 / 10_000, () => NOW.getTime());
    const { bus, queue } = connectorBus(clock, options.bus);
    const archives = new LocalArchives({ region, account, clock });
    for (const [name, pattern] of Object.entries(archivePatterns)) {
      archives.add({
        name,
        arn: `arn:aws:events:${region}:${account}:archive/${name}`,
        bus,
        eventPattern: pattern,
        retentionDays: 30,
      });
    }
    const operations = eventsApi({ region, buses: new Map([['connector', bus]]), archives });
    const endpoint = await startAwsEndpoint({ port: 0, operations: () => operations, control: () => [] });
    const client = new EventBridgeClient({
      region,
      endpoint: endpoint.url,
      credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' },
    });
    closers.push(async () => {
      client.destroy();
      await endpoint.close();
    });
    const event = (id: string, detailType: string): BusEvent => ({
      version: '0',
      id,
      'detail-type': detailType,
      source: 'partner.app',
      account,
      time: '2025-03-03T09:30:00Z',
      region,
      resources: [],
      detail: { accountId: 'acct-1' },
    });
    bus.put(event('e-1', 'AccountCreated'));
    bus.put(event('e-2', 'EmployeeChanged'));
    // Rule deliveries come after a seeded delay (event-bus.ts): empty the queue once they have.
    await bus.settle();
    for (const message of queue.messages()) queue.take(message.messageId);
    return { client, archives, queue };
  }

  const options = (extra: string[] = []): ReplayOptions => ({
    ...parseReplayArgs(['--from', '2025-03-03T09:00:00Z', '--to', '2025-03-03T10:00:00Z', ...extra], NOW),
    inboundSource: 'partner.app',
  });
  const run = async (
    client: EventBridgeClient,
    replayOptions: ReplayOptions,
    onLine?: (line: string) => void,
  ) => {
    const lines: string[] = [];
    const outcome = await replay(
      client,
      replayOptions,
      (line) => {
        lines.push(line);
        onLine?.(line);
      },
      { now: () => NOW, pollIntervalMs: 5 },
    );
    return { outcome, lines };
  };

  it('on a dry run prints the archive, bus, window and route rules, and starts nothing', async () => {
    // Prepare
    const { client, archives } = await world({ inbound: { source: ['partner.app'] } });

    // Act
    const { outcome, lines } = await run(client, options(['--dry-run']));

    // Assess
    expect(outcome.kind).toBe('dry-run');
    expect(lines).toEqual([
      'dry run: would replay events of [2025-03-03T09:00:00.000Z, 2025-03-03T10:00:00.000Z)',
      `  archive inbound (arn:aws:events:${region}:${account}:archive/inbound): 2 event(s), ${archives.archive('inbound').sizeBytes} bytes in all`,
      '  bus     connector',
      `  to ${queueRoutes.length} route rule(s):`,
      ...queueRoutes.map((route) => `    ${route.detailType.padEnd(28)} ${route.detailType}Rule`),
    ]);
    expect(archives.replays()).toEqual([]);
  });

  it('warns when --to is less than 10 minutes ago', async () => {
    // Prepare
    const { client } = await world({ inbound: { source: ['partner.app'] } });
    const recent = {
      ...parseReplayArgs(
        ['--from', '2025-03-03T11:00:00Z', '--to', '2025-03-03T11:55:00Z', '--dry-run'],
        NOW,
      ),
      inboundSource: 'partner.app',
    };

    // Act
    const { lines } = await run(client, recent);
    const { lines: older } = await run(client, options(['--dry-run']));

    // Assess
    expect(lines[0]).toMatch(/^warning: --to is less than 10 minutes ago; AWS recommends waiting 10 minutes/);
    expect(older.some((line) => line.startsWith('warning'))).toBe(false);
  });

  it('asks for --archive when no archive keeps the inbound events', async () => {
    // Prepare
    const { client } = await world({ everything: { source: ['partner.app', 'connector.results'] } });

    // Act
    const failure = await run(client, options()).catch((error: Error) => error);

    // Assess
    expect(failure).toBeInstanceOf(ReplayUsageError);
    expect((failure as Error).message).toMatch(
      /no archive of partner.app events .*name it with --archive <name>/,
    );
  });

  it('asks for --archive when several archives keep the inbound events, and takes the one it names', async () => {
    // Prepare
    const { client } = await world({
      first: { source: ['partner.app'] },
      second: { source: ['partner.app'] },
    });

    // Act
    const failure = await run(client, options()).catch((error: Error) => error);
    const { outcome } = await run(client, options(['--archive', 'second', '--dry-run']));

    // Assess
    expect(failure).toBeInstanceOf(ReplayUsageError);
    expect((failure as Error).message).toMatch(
      /2 archives keep partner.app events \(first, second\): name one with --archive/,
    );
    expect(outcome.plan.archiveName).toBe('second');
  });

  it('refuses an --archive that does not exist', async () => {
    // Prepare
    const { client } = await world({ inbound: { source: ['partner.app'] } });

    // Act
    const failure = await run(client, options(['--archive', 'missing'])).catch((error: Error) => error);

    // Assess
    expect(failure).toBeInstanceOf(ReplayUsageError);
    expect((failure as Error).message).toMatch(/no archive named missing/);
  });

  it('replays to the route rules only, waits until it completes and says so', async () => {
    // Prepare
    const { client, archives, queue } = await world({ inbound: { source: ['partner.app'] } });

    // Act
    const { outcome, lines } = await run(client, options());

    // Assess
    expect(outcome).toMatchObject({
      kind: 'finished',
      state: 'COMPLETED',
      replayName: 'connector-replay-20250303120000',
    });
    const [started] = archives.replays();
    expect(started?.rules.map((rule) => rule.name)).toEqual(
      queueRoutes.map((route) => `${route.detailType}Rule`),
    );
    // In no particular order: rule deliveries keep none (event-bus.ts).
    expect(
      queue
        .messages()
        .map((message) => (JSON.parse(message.body) as BusEvent)['detail-type'])
        .sort(),
    ).toEqual(['AccountCreated', 'EmployeeChanged']);
    expect(lines[0]).toMatch(/^started replay connector-replay-20250303120000 of \[2025-03-03T09:00:00.000Z/);
    expect(lines.at(-1)).toMatch(/^replay connector-replay-20250303120000 completed/);
  });

  it('sends to the one rule of --detail-type, and takes the next name when one is taken', async () => {
    // Prepare
    const { client, queue } = await world({ inbound: { source: ['partner.app'] } });
    await run(client, options(['--no-wait']));

    // Act
    const { outcome } = await run(client, options(['--detail-type', 'EmployeeChanged']));
    const described = await client.send(
      new DescribeReplayCommand({ ReplayName: 'connector-replay-20250303120000-2' }),
    );

    // Assess
    expect(outcome).toMatchObject({ state: 'COMPLETED', replayName: 'connector-replay-20250303120000-2' });
    expect(described.Destination?.FilterArns).toEqual([
      `arn:aws:events:${region}:${account}:rule/connector/EmployeeChangedRule`,
    ]);
    expect(
      queue.messages().filter((message) => message.body.includes('"connector-replay-20250303120000-2"')),
    ).toHaveLength(1);
  });

  it('returns at once with --no-wait, saying how to follow the replay', async () => {
    // Prepare
    const { client } = await world({ inbound: { source: ['partner.app'] } });

    // Act
    const { outcome, lines } = await run(client, options(['--no-wait']));

    // Assess
    expect(outcome).toMatchObject({ kind: 'started', replayName: 'connector-replay-20250303120000' });
    expect(lines.at(-1)).toBe(
      'follow it with: aws events describe-replay --replay-name connector-replay-20250303120000',
    );
  });

  it('reports a replay that fails or is cancelled with its state and reason', async () => {
    // Prepare: a bus that cannot deliver replayed events, and a replay cancelled as soon as it starts.
    class BrokenBus extends EventBus {
      override deliverToTargets(rule: RuleDefinition, item: BusEvent): Promise<TargetOutcome[]> {
        if ('replay-name' in item) return Promise.reject(new Error('the bus is gone'));
        return super.deliverToTargets(rule, item);
      }
    }
    const clock = localClock(1 / 10_000, () => NOW.getTime());
    const broken = await world(
      { inbound: { source: ['partner.app'] } },
      { bus: new BrokenBus({ name: 'connector', arn: busArn('connector'), clock, delivery }) },
    );
    const cancelled = await world({ inbound: { source: ['partner.app'] } });

    // Act
    const failed = await run(broken.client, options());
    const stopped = await run(cancelled.client, options(), (line) => {
      if (line.startsWith('started replay')) cancelled.archives.cancel('connector-replay-20250303120000');
    });

    // Assess
    expect(failed.outcome).toMatchObject({ state: 'FAILED' });
    expect(failed.lines.at(-1)).toMatch(/^replay connector-replay-20250303120000 FAILED: .*the bus is gone/);
    expect(stopped.outcome).toMatchObject({ state: 'CANCELLED' });
    expect(stopped.lines.at(-1)).toMatch(/^replay connector-replay-20250303120000 CANCELLED/);
  });
});
