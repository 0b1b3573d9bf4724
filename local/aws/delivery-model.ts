import { randomInt } from 'node:crypto';
import { mulberry32 } from '../random.ts';

/**
 * How the local runtime delivers: no kinder than AWS. Where AWS documents that it may reorder or
 * repeat a delivery, the local runtime does so too, seeded, so a run can be repeated with its seed:
 *
 * - SQS standard queues (sqs.ts): visible messages are received in a seeded random order, and now and
 *   then a received message leaves a copy that is received again.
 * - EventBridge rule deliveries (event-bus.ts): each delivery to a target waits a seeded random small
 *   delay, so a later event can reach its target first.
 * - EventBridge pipes (pipe.ts): concurrent pollers finish in any order, and each forwards its batch in
 *   a seeded shuffled order.
 *
 * Each module names the AWS page and sentence its rule follows. FIFO queues keep their exact
 * semantics. `ordered: true` (`--ordered-delivery`) turns all of it off: for debugging only, since it
 * shows an AWS kinder than the real one.
 *
 * One model per runtime: one seed, and one generator per component (a queue, a bus target, a pipe)
 * derived from the seed and the component's name, so one component's draws do not shift when another
 * draws more or less often.
 */

/** Share of standard-queue receives that leave a copy to be received again. */
export const DEFAULT_REDELIVERY_RATE = 0.02;
/** Upper bound of the seeded delay of a rule delivery, in AWS seconds (scaled by the local clock). */
export const BUS_DELIVERY_MAX_DELAY_SECONDS = 2;
/** Upper bound of the seeded time a pipe's poller takes before it forwards its batch, in AWS seconds. */
export const PIPE_POLLER_MAX_DELAY_SECONDS = 1;
/** Seeds are unsigned 32-bit integers (mulberry32's state). */
export const MAX_SEED = 2 ** 32 - 1;

export interface DeliveryCounts {
  /** Deliveries made while something sent or published before them to the same place still waited. */
  readonly reordered: number;
  /** Deliveries of a copy: a message received again although its first delivery succeeded or is under way. */
  readonly redelivered: number;
}

export interface DeliveryModel {
  readonly seed: number;
  /** True: every delivery keeps send order and none is repeated (`--ordered-delivery`, for debugging). */
  readonly ordered: boolean;
  /** Share of standard-queue receives that leave a copy (0 when ordered). */
  readonly redeliveryRate: number;
  /** A generator of the component named `stream`, from the seed. */
  random(stream: string): () => number;
  counts(): DeliveryCounts;
  countReordered(): void;
  countRedelivered(): void;
}

export interface DeliveryModelOptions {
  /** @default a random seed */
  readonly seed?: number;
  /** @default false */
  readonly ordered?: boolean;
  /** @default DEFAULT_REDELIVERY_RATE */
  readonly redeliveryRate?: number;
}

export function deliveryModel(options: DeliveryModelOptions = {}): DeliveryModel {
  const seed = options.seed ?? drawSeed();
  if (!isSeed(seed)) throw new RangeError(`a delivery seed is an integer from 0 to ${MAX_SEED}, got ${seed}`);
  const rate = options.redeliveryRate ?? DEFAULT_REDELIVERY_RATE;
  if (!Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw new RangeError(`the redelivery rate is between 0 and 1, got ${rate}`);
  }
  const ordered = options.ordered ?? false;
  let reordered = 0;
  let redelivered = 0;
  return {
    seed,
    ordered,
    redeliveryRate: ordered ? 0 : rate,
    random: (stream) => mulberry32(streamSeed(seed, stream)),
    counts: () => ({ reordered, redelivered }),
    countReordered: () => {
      reordered++;
    },
    countRedelivered: () => {
      redelivered++;
    },
  };
}

/** Send order everywhere, nothing repeated: for tests of other rules and `--ordered-delivery`. */
export function orderedDelivery(): DeliveryModel {
  return deliveryModel({ seed: 0, ordered: true });
}

/** A seed for a run that names none. */
export function drawSeed(): number {
  return randomInt(0, 2 ** 31);
}

export function isSeed(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= MAX_SEED;
}

/** `--seed N` as a command line gives it. */
export function parseSeed(raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !isSeed(value)) {
    throw new RangeError(`--seed takes an integer from 0 to ${MAX_SEED}, got ${raw}`);
  }
  return value;
}

/** The line a runtime prints at start, so a run can be repeated. */
export function deliverySeedLine(model: Pick<DeliveryModel, 'seed' | 'ordered'>): string {
  return model.ordered
    ? 'delivery in send order, nothing repeated (--ordered-delivery: for debugging only; AWS may reorder and repeat)'
    : `delivery seed ${model.seed} (repeat with --seed ${model.seed})`;
}

/** The stream's own seed: FNV-1a of its name, mixed with the run's seed. */
function streamSeed(seed: number, stream: string): number {
  let hash = 0x811c9dc5 ^ seed;
  for (let index = 0; index < stream.length; index++) {
    hash ^= stream.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Fisher-Yates with `random`: a new array, `items` untouched. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const result = [...items];
  for (let index = result.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [result[index], result[other]] = [result[other] as T, result[index] as T];
  }
  return result;
}

/**
 * Send order of one place (a queue, a rule target, a pipe) and whether a delivery breaks it:
 * `enter` when something is sent there, `deliver` when it is delivered (true: something that entered
 * before it still waits), `drop` when it leaves undelivered.
 */
export class SendOrder {
  private next = 0;
  private low = 0;
  private readonly waiting = new Set<number>();

  enter(): number {
    const position = this.next++;
    this.waiting.add(position);
    return position;
  }

  deliver(position: number): boolean {
    if (!this.waiting.delete(position)) return false;
    while (this.low < this.next && !this.waiting.has(this.low)) this.low++;
    return this.low < position;
  }

  drop(position: number): void {
    this.waiting.delete(position);
  }
}
