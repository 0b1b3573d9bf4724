import type { EventArchive } from './archive.ts';
import type { BusEvent, RuleDefinition } from './event-bus.ts';

/**
 * One replay of an archive as DescribeReplay shows it (EventBridge API reference, StartReplay and
 * DescribeReplay): the request it was started with, the states it goes through, STARTING → RUNNING
 * → COMPLETED, or CANCELLING → CANCELLED after CancelReplay, or FAILED with a reason, and the
 * events it sent. LocalArchives (archive.ts) checks the request, runs the replay and moves it
 * from state to state.
 */

export type ReplayState = 'STARTING' | 'RUNNING' | 'CANCELLING' | 'COMPLETED' | 'CANCELLED' | 'FAILED';

const FINAL_STATES: ReadonlySet<ReplayState> = new Set(['COMPLETED', 'CANCELLED', 'FAILED']);

/** The field a replay adds to every event it sends ("Archiving and replaying events"). */
export const REPLAY_NAME_FIELD = 'replay-name';

/** An event as a replay sends it: the archived event with `replay-name`. */
export type ReplayedEvent = BusEvent & { readonly 'replay-name': string };

export interface ReplayRequest {
  readonly name: string;
  readonly description?: string;
  /** The archive's ARN (StartReplay EventSourceArn). */
  readonly archiveArn: string;
  readonly eventStartTime: Date;
  readonly eventEndTime: Date;
  /** The destination bus's ARN: the archive's own bus. */
  readonly destinationArn: string;
  /** Rules that receive the replayed events; absent = every rule of the bus. */
  readonly filterArns?: readonly string[];
}

export interface ReplayActivity {
  readonly kind: 'replay';
  readonly replay: string;
  readonly state: ReplayState;
  /** Events of the window sent so far. */
  readonly events: number;
  /** Names of the rules the replay sends to. */
  readonly rules: readonly string[];
  readonly reason?: string;
}

export class Replay {
  readonly name: string;
  readonly arn: string;
  readonly description: string | undefined;
  readonly archive: EventArchive;
  readonly destination: { readonly arn: string; readonly filterArns?: readonly string[] };
  readonly eventStartTime: Date;
  readonly eventEndTime: Date;
  readonly replayStartTime: Date;
  /** The rules it sends to, in the bus's order. */
  readonly rules: readonly RuleDefinition[];
  private currentState: ReplayState = 'STARTING';
  private reason: string | undefined;
  private lastReplayed: Date | undefined;
  private ended: Date | undefined;
  private readonly states: ReplayState[] = ['STARTING'];
  private readonly replayed: ReplayedEvent[] = [];

  constructor(init: {
    request: ReplayRequest;
    arn: string;
    archive: EventArchive;
    rules: readonly RuleDefinition[];
    startedAt: Date;
  }) {
    this.name = init.request.name;
    this.arn = init.arn;
    this.description = init.request.description;
    this.archive = init.archive;
    this.destination = {
      arn: init.request.destinationArn,
      ...(init.request.filterArns ? { filterArns: [...init.request.filterArns] } : {}),
    };
    this.eventStartTime = init.request.eventStartTime;
    this.eventEndTime = init.request.eventEndTime;
    this.replayStartTime = init.startedAt;
    this.rules = init.rules;
  }

  get state(): ReplayState {
    return this.currentState;
  }

  get stateReason(): string | undefined {
    return this.reason;
  }

  /** "The time within the specified time range associated with the last event replayed" (StartReplay). */
  get eventLastReplayedTime(): Date | undefined {
    return this.lastReplayed;
  }

  get replayEndTime(): Date | undefined {
    return this.ended;
  }

  /** Every state it went through, in order. */
  get history(): readonly ReplayState[] {
    return this.states;
  }

  /** The events it sent (with `replay-name`), in the order it sent them. */
  get sent(): readonly ReplayedEvent[] {
    return this.replayed;
  }

  get final(): boolean {
    return FINAL_STATES.has(this.currentState);
  }

  /** @internal the engine's bookkeeping */
  transition(state: ReplayState, at: Date, reason?: string): void {
    if (this.final || state === this.currentState) return;
    this.currentState = state;
    this.states.push(state);
    this.reason = reason;
    if (FINAL_STATES.has(state)) this.ended = at;
  }

  /** @internal */
  markSent(event: ReplayedEvent): void {
    this.replayed.push(event);
    const time = new Date(event.time);
    if (!this.lastReplayed || time > this.lastReplayed) this.lastReplayed = time;
  }
}
