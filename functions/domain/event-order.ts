import { instantKey } from '#functions/contracts/date-time.ts';
import type { SyncSkippedDetail } from '#functions/contracts/outbound/sync-skipped.ts';
import { PermanentError } from '#functions/domain/errors.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import {
  advancePosition,
  comparePositions,
  type Position,
  readPositions,
} from '#functions/store/positions.ts';
import type { Store } from '#functions/store/store.ts';

/**
 * Last writer wins, per thing. For each thing an inbound event sets, the state left in the service
 * is what the newest event on that thing asks for — newest by `occurredAt` (the envelope's `time`
 * when the detail has none), then by event id — whatever order the events arrive in and however
 * often. AWS does not keep publish order on the way in (EventBridge rules deliver unordered; the
 * intake queues are SQS standard queues, at-least-once and best-effort ordered), so the order the
 * function sees an account's events in is not the order they happened in.
 *
 * A use case names the things its event sets (`Thing`: a store key and the event's own field that
 * sets it), reads their positions once (`EventOrder.read`), applies only the things nothing newer
 * was applied to, and after each service write records its position (`applied`: conditional, the
 * position only moves forward). The things an older event would have set are listed in one
 * `SyncSkipped SUPERSEDED` (`syncSkipped`); the rest of the event applies as usual.
 *
 * The same position is the same event: a redelivery of an applied event (a crash between the
 * service write and the position write, or after both) applies again — the values are the same —
 * and is never called superseded. A record of one account runs alone on its route (the FIFO queue
 * is grouped by accountId), and each thing is set by one route only, so nothing else writes a
 * thing between its read and its position write; should a newer position appear there anyway (two
 * deliveries of one account at once: a FIFO guarantee broken), the event fails with
 * `ORDER_CONFLICT` rather than leave a silent doubt about the service's value.
 *
 * `lastWriterWins: false` (a local run's dependency option only: Dependencies.lastWriterWins)
 * switches the guard off: nothing is superseded, every event applies in arrival order, and the
 * positions still move forward only (without ORDER_CONFLICT), so the table names the newest event
 * while the service holds the one that arrived last — what the chaos run's order check must catch.
 */

/** One thing an event sets. */
export interface Thing {
  /** Its key in the store (positions.ts), unique in the install: `plan`, `employee#2#payRate`, ... */
  readonly key: string;
  /** The event's field that sets it, as SyncSkipped names it: `customFields.badgeNumber`, `days[date=2025-03-03]`. */
  readonly field: string;
}

/** The position of an event: its `occurredAt`, or the envelope's `time` without one, then its id. */
export function eventPosition(
  event: { readonly id: string; readonly time: string },
  detail: { readonly occurredAt?: string | undefined },
): Position {
  return { occurredAt: instantKey(detail.occurredAt ?? event.time), eventId: event.id };
}

interface Superseded {
  readonly thing: Thing;
  readonly by: Position;
}

/** Most things a SyncSkipped message names before "and N more" (the things list has them all). */
const THINGS_NAMED_IN_MESSAGE = 12;
/** SyncSkipped's message limit (its contract). */
const MAX_MESSAGE_LENGTH = 2048;

export class EventOrder {
  private readonly superseded = new Map<string, Superseded>();

  private constructor(
    private readonly store: Store,
    private readonly hostname: string,
    private readonly event: { readonly id: string; readonly detailType: string },
    readonly position: Position,
    private readonly guarded: boolean,
  ) {}

  /**
   * Reads the positions held for `things` and sorts them: a thing whose held position is newer
   * than this event's is superseded; absent, older or the same (this very event) may be applied.
   * With `lastWriterWins: false` (local runs only) nothing is read and nothing is superseded.
   */
  static async read(
    store: Store,
    hostname: string,
    event: { readonly id: string; readonly detailType: string; readonly time: string },
    detail: { readonly occurredAt?: string | undefined },
    things: readonly Thing[],
    options: { readonly lastWriterWins?: false | undefined } = {},
  ): Promise<EventOrder> {
    const guarded = options.lastWriterWins !== false;
    const order = new EventOrder(store, hostname, event, eventPosition(event, detail), guarded);
    if (!guarded) return order;
    const held = await readPositions(
      store,
      hostname,
      things.map((thing) => thing.key),
    );
    for (const thing of things) {
      const newer = held.get(thing.key);
      if (newer !== undefined && comparePositions(newer, order.position) > 0) {
        order.superseded.set(thing.key, { thing, by: newer });
      }
    }
    return order;
  }

  /** Whether this event may set `thing` (nothing newer was applied to it). */
  applies(thing: Thing): boolean {
    return !this.superseded.has(thing.key);
  }

  /** True when nothing of the event may be applied. */
  supersededWhole(things: readonly Thing[]): boolean {
    return things.every((thing) => !this.applies(thing));
  }

  /**
   * Records that this event was applied to `things` (after their service write). A newer position
   * found there means another delivery wrote the thing meanwhile, which a FIFO group excludes:
   * ORDER_CONFLICT, naming what may now hold this event's older value.
   */
  async applied(things: readonly Thing[], at: Date): Promise<void> {
    const lost: Array<{ thing: Thing; held: Position }> = [];
    for (const thing of things) {
      const outcome = await advancePosition(
        this.store,
        this.hostname,
        thing.key,
        { ...this.position, detailType: this.event.detailType },
        at,
      );
      if (!outcome.advanced) lost.push({ thing, held: outcome.held });
    }
    if (lost.length > 0 && this.guarded) {
      throw new PermanentError(
        'ORDER_CONFLICT',
        `${this.event.detailType} ${this.event.id} wrote ${lost.map(({ thing }) => thing.field).join(', ')} while a newer event (${lost.map(({ held }) => held.eventId).join(', ')}) was applied to it: two deliveries of one account ran at once, and the service may hold this older value; send the newest state again`,
      );
    }
  }

  /** The things this event does not set because a newer event was applied to them first. */
  supersededThings(): readonly Superseded[] {
    return [...this.superseded.values()];
  }

  /**
   * The SyncSkipped SUPERSEDED that answers the event's superseded things, or nothing when none
   * is. One per event: a redelivery of it is answered from its idempotency record. The runtime
   * counts it (metric EventsSuperseded).
   */
  syncSkipped(): OutboundEvent[] {
    const superseded = this.supersededThings();
    if (superseded.length === 0) return [];
    const newest = superseded.reduce((a, b) => (comparePositions(b.by, a.by) > 0 ? b : a));
    const named = superseded.slice(0, THINGS_NAMED_IN_MESSAGE).map(({ thing }) => thing.field);
    const more = superseded.length - named.length;
    const detail: Omit<SyncSkippedDetail, 'accountId' | 'causationId'> = {
      hostname: this.hostname,
      sourceEventId: this.event.id,
      detailType: this.event.detailType,
      code: 'SUPERSEDED',
      supersededBy: newest.by.eventId,
      things: superseded.map(({ thing, by }) => ({
        thing: thing.field,
        supersededBy: by.eventId,
        supersededByOccurredAt: by.occurredAt,
      })),
      message:
        `${this.event.detailType} ${this.event.id} (occurredAt ${this.position.occurredAt}) changed nothing for ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}: a newer event was applied to each first (the newest: ${newest.by.eventId}, occurredAt ${newest.by.occurredAt})`.slice(
          0,
          MAX_MESSAGE_LENGTH,
        ),
    };
    return [{ detailType: 'SyncSkipped', detail }];
  }
}
