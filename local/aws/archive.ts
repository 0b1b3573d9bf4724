import { randomUUID } from 'node:crypto';
import type { LocalClock } from './clock.ts';
import type { BusEvent, EventBus, RuleDefinition } from './event-bus.ts';
import { compileEventPattern } from './event-pattern.ts';
import {
  REPLAY_NAME_FIELD,
  Replay,
  type ReplayActivity,
  type ReplayedEvent,
  type ReplayRequest,
  type ReplayState,
} from './replay.ts';

/**
 * EventBridge archives and replays, as the EventBridge user guide ("Archiving and replaying events",
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-archive.html) and the API reference
 * (CreateArchive, StartReplay, DescribeReplay, CancelReplay) describe them:
 *
 * - An archive belongs to one bus and keeps the events put on that bus that match its event pattern
 *   (all of them without a pattern), for `RetentionDays` (0: "events are retained indefinitely").
 *   "Replayed events are not sent to an archive" (CreateArchive).
 * - A replay sends archived events back to the archive's own bus (another destination is refused
 *   with ValidationException "Cross event bus replay is not permitted", the message AWS is reported
 *   to give), selected "based on the time in the event" between EventStartTime and EventEndTime
 *   (StartReplay); here the window is [start, end): the bounds are not documented. "When EventBridge sends an event from an
 *   archive to the source event bus during a replay, it adds a metadata field to the event,
 *   replay-name, which contains the name of the replay."
 * - `Destination.FilterArns` is "a list of ARNs for rules to replay events to": only those rules see
 *   the replayed events (every rule of the bus when it is absent), and each still matches them
 *   against its own pattern ("Amazon EventBridge rules").
 * - States STARTING → RUNNING → COMPLETED, or CANCELLING → CANCELLED after CancelReplay, or FAILED
 *   with a reason (each replay's record: replay.ts); at most 10 replays run at once per account and
 *   Region ("Amazon EventBridge quotas": LimitExceededException beyond).
 *
 * Not reproduced: archiving delay ("we recommend you delay replaying archived events for 10
 * minutes", events may not be archived yet: here an event is archived as it is put), pacing in
 * one-minute intervals of event time ("replays them using 1 minute intervals": here every event of
 * the window is handed to its rules at once, in event-time order — AWS says "events are not
 * necessarily replayed in the exact same order"). An archive's EventCount and SizeBytes are exact
 * and current here (SizeBytes counts each event's JSON); how current AWS keeps them is not documented.
 *
 * Whether a replayed event keeps its original `id` is not documented. `keepIds` models both: by
 * default a replayed event gets a new id (the case the connector's handlers must survive without
 * their id-keyed idempotency records: functions/store/applied-events.ts); with `keepIds`
 * it keeps the original one.
 */

/** "Amazon EventBridge quotas": concurrent replays per account per Region. */
export const MAX_CONCURRENT_REPLAYS = 10;

/** ReplayName: 1..64 characters of [\.\-_A-Za-z0-9]+ (StartReplay API reference). */
export const REPLAY_NAME_PATTERN = /^[.\-_A-Za-z0-9]{1,64}$/;

/** A refusal in EventBridge's terms: the API layer (events-api.ts) answers it with `code`. */
export class EventBridgeError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'EventBridgeError';
  }
}

export interface ArchiveDefinition {
  readonly name: string;
  readonly arn: string;
  readonly bus: EventBus;
  /** The event pattern (a JSON object); none = every event of the bus. */
  readonly eventPattern?: unknown;
  /** 0 = indefinitely (CreateArchive "RetentionDays"). */
  readonly retentionDays: number;
  readonly description?: string;
}

interface ArchivedEvent {
  readonly event: BusEvent;
  readonly archivedAt: number;
  readonly sizeBytes: number;
}

export class EventArchive {
  readonly name: string;
  readonly arn: string;
  readonly bus: EventBus;
  readonly description: string | undefined;
  /** The pattern as DescribeArchive returns it (a JSON string); undefined without one. */
  readonly eventPattern: string | undefined;
  readonly retentionDays: number;
  readonly creationTime: Date;
  private readonly matches: (event: unknown) => boolean;
  private readonly clock: LocalClock;
  private kept: ArchivedEvent[] = [];

  constructor(definition: ArchiveDefinition, clock: LocalClock) {
    if (!Number.isInteger(definition.retentionDays) || definition.retentionDays < 0) {
      throw new EventBridgeError(
        'ValidationException',
        'RetentionDays must be a whole number of days, 0 or more',
      );
    }
    this.name = definition.name;
    this.arn = definition.arn;
    this.bus = definition.bus;
    this.description = definition.description;
    this.retentionDays = definition.retentionDays;
    this.clock = clock;
    this.creationTime = new Date(clock.now());
    this.matches =
      definition.eventPattern === undefined ? () => true : compileEventPattern(definition.eventPattern);
    this.eventPattern =
      definition.eventPattern === undefined ? undefined : JSON.stringify(definition.eventPattern);
  }

  /**
   * Keeps `event` when it matches the archive's pattern and is not a replayed one ("Replayed events
   * are not sent to an archive", CreateArchive). The bus calls this for every event put on it.
   */
  record(event: BusEvent): boolean {
    if (REPLAY_NAME_FIELD in event || !this.matches(event)) return false;
    this.kept.push({
      event,
      archivedAt: this.clock.now(),
      sizeBytes: Buffer.byteLength(JSON.stringify(event), 'utf8'),
    });
    return true;
  }

  /** The events still kept (retention counts from when each was archived), in archive order. */
  events(): readonly BusEvent[] {
    return this.retained().map((archived) => archived.event);
  }

  get eventCount(): number {
    return this.retained().length;
  }

  get sizeBytes(): number {
    return this.retained().reduce((sum, archived) => sum + archived.sizeBytes, 0);
  }

  private retained(): readonly ArchivedEvent[] {
    if (this.retentionDays > 0) {
      const oldest = this.clock.now() - this.retentionDays * 86_400_000;
      this.kept = this.kept.filter((archived) => archived.archivedAt >= oldest);
    }
    return this.kept;
  }
}

export interface LocalArchivesOptions {
  readonly region: string;
  readonly account: string;
  readonly clock: LocalClock;
  /** A replayed event keeps its original id (not documented either way). @default false: a new id */
  readonly keepIds?: boolean;
  readonly onActivity?: (activity: ReplayActivity) => void;
}

/** The account's archives and replays in one Region. */
export class LocalArchives {
  private readonly options: LocalArchivesOptions;
  private readonly byName = new Map<string, EventArchive>();
  private readonly replaysByName = new Map<string, Replay>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(options: LocalArchivesOptions) {
    this.options = options;
  }

  get keepIds(): boolean {
    return this.options.keepIds ?? false;
  }

  /** Creates an archive on its bus: from now on the bus's events are offered to it. */
  add(definition: ArchiveDefinition): EventArchive {
    if (this.byName.has(definition.name)) {
      throw new EventBridgeError(
        'ResourceAlreadyExistsException',
        `Archive ${definition.name} already exists.`,
      );
    }
    const archive = new EventArchive(definition, this.options.clock);
    definition.bus.onPut((event) => archive.record(event));
    this.byName.set(archive.name, archive);
    return archive;
  }

  archives(): readonly EventArchive[] {
    return [...this.byName.values()];
  }

  archive(name: string): EventArchive {
    const archive = this.byName.get(name);
    if (!archive) throw new EventBridgeError('ResourceNotFoundException', `Archive ${name} does not exist.`);
    return archive;
  }

  replays(): readonly Replay[] {
    return [...this.replaysByName.values()];
  }

  replay(name: string): Replay {
    const replay = this.replaysByName.get(name);
    if (!replay) throw new EventBridgeError('ResourceNotFoundException', `Replay ${name} does not exist.`);
    return replay;
  }

  /**
   * StartReplay: checks the request as EventBridge does, answers at once with the replay in
   * STARTING, and runs it on the next turns of the event loop.
   */
  start(request: ReplayRequest): Replay {
    if (!REPLAY_NAME_PATTERN.test(request.name)) {
      throw new EventBridgeError(
        'ValidationException',
        `1 validation error detected: Value '${request.name}' at 'replayName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\.\\-_A-Za-z0-9]+ and have length between 1 and 64`,
      );
    }
    if (request.description !== undefined && request.description.length > 512) {
      throw new EventBridgeError(
        'ValidationException',
        "1 validation error detected: Value at 'description' failed to satisfy constraint: Member must have length less than or equal to 512",
      );
    }
    const archive = [...this.byName.values()].find((candidate) => candidate.arn === request.archiveArn);
    if (!archive) {
      const name = request.archiveArn.slice(request.archiveArn.lastIndexOf('/') + 1);
      throw new EventBridgeError('ResourceNotFoundException', `Archive ${name} does not exist.`);
    }
    if (request.destinationArn !== archive.bus.arn) {
      // Replays go back to the archive's own bus only ("Archiving and replaying events").
      throw new EventBridgeError(
        'ValidationException',
        'Parameter Destination.Arn is not valid. Reason: Cross event bus replay is not permitted.',
      );
    }
    const start = request.eventStartTime.getTime();
    const end = request.eventEndTime.getTime();
    if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start) {
      throw new EventBridgeError(
        'ValidationException',
        'Parameter EventEndTime is not valid. Reason: EventStartTime must be before EventEndTime.',
      );
    }
    const busRules = archive.bus.ruleList();
    let rules: readonly RuleDefinition[] = busRules;
    if (request.filterArns !== undefined) {
      for (const arn of request.filterArns) {
        if (busRules.some((rule) => rule.arn === arn)) continue;
        const onOtherBus = /:rule\/(.+)\/[^/]+$/.exec(arn)?.[1];
        if (onOtherBus !== undefined && onOtherBus !== archive.bus.name) {
          throw new EventBridgeError(
            'ValidationException',
            'Parameter Destination.FilterArns is not valid. Reason: Rule must be on the destination event bus.',
          );
        }
        throw new EventBridgeError(
          'ResourceNotFoundException',
          `Rule ${arn.slice(arn.lastIndexOf('/') + 1)} does not exist on EventBus ${archive.bus.name}.`,
        );
      }
      const wanted = new Set(request.filterArns);
      rules = busRules.filter((rule) => wanted.has(rule.arn));
    }
    if (this.replaysByName.has(request.name)) {
      throw new EventBridgeError('ResourceAlreadyExistsException', `Replay ${request.name} already exists.`);
    }
    if (this.replays().filter((replay) => !replay.final).length >= MAX_CONCURRENT_REPLAYS) {
      throw new EventBridgeError(
        'LimitExceededException',
        `At most ${MAX_CONCURRENT_REPLAYS} replays can run at the same time in an account and Region.`,
      );
    }
    if (this.stopped) throw new EventBridgeError('InternalException', 'the local runtime is stopping');

    const replay = new Replay({
      request,
      arn: `arn:aws:events:${this.options.region}:${this.options.account}:replay/${request.name}`,
      archive,
      rules,
      startedAt: new Date(this.options.clock.now()),
    });
    this.replaysByName.set(replay.name, replay);
    this.report(replay);
    const run = this.run(replay).catch((error: unknown) =>
      this.finish(replay, 'FAILED', error instanceof Error ? error.message : String(error)),
    );
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
    return replay;
  }

  /** CancelReplay: a replay in STARTING or RUNNING goes to CANCELLING, then stops sending. */
  cancel(name: string): Replay {
    const replay = this.replay(name);
    if (replay.state !== 'STARTING' && replay.state !== 'RUNNING') {
      throw new EventBridgeError(
        'IllegalStatusException',
        `Replay ${name} is not in a valid state for this operation.`,
      );
    }
    replay.transition('CANCELLING', new Date(this.options.clock.now()));
    this.report(replay);
    return replay;
  }

  /** Replays not yet in a final state: the runtime is not idle while one runs. */
  busy(): boolean {
    return this.replays().some((replay) => !replay.final);
  }

  /** Resolves once every replay has reached a final state. */
  async settle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** The runtime stops: replays still running end FAILED. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.settle();
  }

  private async run(replay: Replay): Promise<void> {
    // StartReplay answers STARTING; the replay runs after the answer is sent.
    await nextTurn();
    if (this.interrupted(replay)) return;
    replay.transition('RUNNING', new Date(this.options.clock.now()));
    this.report(replay);
    const start = replay.eventStartTime.getTime();
    const end = replay.eventEndTime.getTime();
    // Selected "based on the time in the event" (StartReplay), sent in event-time order.
    const window = replay.archive
      .events()
      .map((event, index) => ({ event, index, time: Date.parse(event.time) }))
      .filter(({ time }) => time >= start && time < end)
      .sort((a, b) => a.time - b.time || a.index - b.index);
    // Each delivery's failure is caught as it happens (the loop yields between events).
    const deliveries: Array<Promise<string | undefined>> = [];
    const handOver = (rule: RuleDefinition, event: ReplayedEvent) =>
      Promise.resolve()
        .then(() => replay.archive.bus.deliverToTargets(rule, event))
        .then(
          () => undefined,
          (error: unknown) => `${rule.name}: ${error instanceof Error ? error.message : String(error)}`,
        );
    for (const { event: archived } of window) {
      if (this.interrupted(replay)) break;
      const event: ReplayedEvent = {
        ...archived,
        id: this.keepIds ? archived.id : randomUUID(),
        [REPLAY_NAME_FIELD]: replay.name,
      };
      replay.markSent(event);
      for (const rule of replay.rules) {
        // A FilterArns rule still applies its own pattern; schedule rules match no event.
        if (rule.enabled && rule.matches?.(event)) deliveries.push(handOver(rule, event));
      }
      await nextTurn();
    }
    // Done once every delivery is handed over (a target's retries and dead-letter queue are the
    // rule's business, as for any event, not the replay's).
    const failures = (await Promise.all(deliveries)).filter((failure) => failure !== undefined);
    if (failures.length > 0) {
      this.finish(
        replay,
        'FAILED',
        `${failures.length} deliver${failures.length === 1 ? 'y' : 'ies'} could not be handed to their rules; first: ${failures[0]}`,
      );
      return;
    }
    if (this.interrupted(replay)) return;
    this.finish(replay, 'COMPLETED');
  }

  /** Ends a cancelled or stopped replay; true when it was. */
  private interrupted(replay: Replay): boolean {
    if (replay.state === 'CANCELLING') {
      this.finish(replay, 'CANCELLED', 'cancelled with CancelReplay');
      return true;
    }
    if (this.stopped) {
      this.finish(replay, 'FAILED', 'the local runtime stopped during the replay');
      return true;
    }
    return replay.final;
  }

  private finish(replay: Replay, state: ReplayState, reason?: string): void {
    if (replay.final) return;
    replay.transition(state, new Date(this.options.clock.now()), reason);
    this.report(replay);
  }

  private report(replay: Replay): void {
    this.options.onActivity?.({
      kind: 'replay',
      replay: replay.name,
      state: replay.state,
      events: replay.sent.length,
      rules: replay.rules.map((rule) => rule.name),
      ...(replay.stateReason === undefined ? {} : { reason: replay.stateReason }),
    });
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
