import type { EventBridgeEvent } from 'aws-lambda';
import type { AccessCheck } from './access.ts';
import type { LocalClock } from './clock.ts';
import { BUS_DELIVERY_MAX_DELAY_SECONDS, type DeliveryModel, SendOrder } from './delivery-model.ts';
import { invokeAsync, type LocalFunction } from './lambda.ts';
import type { SqsQueue } from './sqs.ts';

/**
 * An EventBridge event bus with its rules and targets, as the EventBridge user guide describes them:
 *
 * - "Amazon EventBridge rules": an event goes to every enabled rule of its bus whose pattern
 *   matches it, and to every target of that rule; a rule on another bus never sees it.
 * - "Sending events to an SQS queue": the target message body is the event as JSON.
 * - "Event retry policy and using dead-letter queues": a delivery that fails is retried with
 *   exponential back-off and jitter until MaximumRetryAttempts or MaximumEventAgeInSeconds is
 *   reached, then sent to the target's dead-letter queue (a standard SQS queue) with the message
 *   attributes RULE_ARN, TARGET_ARN, ERROR_CODE and ERROR_MESSAGE; without one it is dropped.
 * - Lambda targets are invoked asynchronously (lambda.ts `invokeAsync`).
 * - No delivery order: unless the runtime's delivery model is ordered (delivery-model.ts), each
 *   delivery to a target first waits a seeded random delay below BUS_DELIVERY_MAX_DELAY_SECONDS, so
 *   an event published later can reach a target first. EventBridge describes ordered delivery only for
 *   the FIFO subscribers of the other bus type ("Ordering and deduplicating events on a Custom Event
 *   Bus": "A subscriber's Type is UNORDERED or FIFO. An unordered subscriber delivers events in
 *   parallel for the highest throughput. A FIFO subscriber delivers events in the order that they were
 *   published within an event group."); rules and targets, the bus modeled here, have no such setting,
 *   and AWS's experts say so outright (re:Post, "AWS event Bridge": "Amazon EventBridge does not
 *   guarantee the order of the events."). A retried delivery lands after later ones as well ("Event
 *   retry policy and using dead-letter queues": "exponential back off and jitter, or randomized delay").
 *
 * - Permissions: EventBridge delivers as `events.amazonaws.com` on behalf of the rule, so the target's
 *   resource policy must allow it (a queue policy, a function's Lambda permission), and so must the
 *   dead-letter queue's. "For errors that result from missing permissions to a target … no retry
 *   attempts will happen … EventBridge sends these events directly to the target DLQ" with ERROR_CODE
 *   NO_PERMISSIONS ("Using dead-letter queues to process undelivered events in EventBridge", its list
 *   of error codes); an event the DLQ's policy refuses as well is lost. Each target carries its
 *   checks (`access`, from the deployment: access.ts).
 *
 * Back-off delays and the delivery delay are scaled by the clock (clock.ts).
 */

export type BusEvent = EventBridgeEvent<string, Record<string, unknown>>;

export interface RetryPolicy {
  readonly maximumRetryAttempts: number;
  readonly maximumEventAgeSeconds: number;
}

/** EventBridge's defaults when a target names no retry policy: 185 attempts over 24 hours. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maximumRetryAttempts: 185,
  maximumEventAgeSeconds: 86_400,
};

/** What EventBridge must be allowed to do for a target: deliver to it, and send to its DLQ. */
export interface TargetAccess {
  readonly deliver: AccessCheck;
  readonly deadLetter?: AccessCheck;
}

/** ERROR_CODE of an event EventBridge could not deliver for lack of permissions. */
export const NO_PERMISSIONS = 'NO_PERMISSIONS';

export type TargetDefinition =
  | {
      readonly id: string;
      readonly kind: 'sqs';
      readonly queue: SqsQueue;
      readonly retryPolicy: RetryPolicy;
      readonly deadLetterQueue?: SqsQueue;
      readonly access?: TargetAccess;
    }
  | {
      readonly id: string;
      readonly kind: 'lambda';
      readonly function: LocalFunction;
      readonly retryPolicy: RetryPolicy;
      readonly deadLetterQueue?: SqsQueue;
      readonly access?: TargetAccess;
    };

export interface TargetOutcome {
  readonly target: string;
  /** What a Lambda target returned. */
  readonly result?: unknown;
  /** Failed attempts (the last one decided, when the delivery gave up). */
  readonly errors: readonly string[];
}

export interface RuleDefinition {
  readonly name: string;
  readonly arn: string;
  readonly busName: string;
  readonly enabled: boolean;
  /** Compiled event pattern; schedule rules have none. */
  readonly matches?: (event: unknown) => boolean;
  /** The pattern as the template gives it, a JSON string (ListRules answers with it). */
  readonly eventPattern?: string;
  readonly description?: string;
  readonly scheduleExpression?: string;
  readonly targets: readonly TargetDefinition[];
}

export type BusActivity =
  | {
      readonly kind: 'put';
      readonly bus: string;
      readonly event: BusEvent;
      readonly rules: readonly string[];
    }
  | {
      readonly kind: 'target-failed';
      readonly rule: string;
      readonly target: string;
      readonly event: BusEvent;
      readonly error: string;
      readonly deadLettered: boolean;
    }
  | {
      readonly kind: 'lambda-async';
      readonly function: string;
      readonly event: BusEvent;
      readonly result?: unknown;
      readonly errors: readonly string[];
    };

export class EventBus {
  readonly name: string;
  readonly arn: string;
  private readonly rules: RuleDefinition[] = [];
  private readonly clock: LocalClock;
  private readonly delivery: DeliveryModel;
  private readonly random: () => number;
  private readonly onActivity: ((activity: BusActivity) => void) | undefined;
  private readonly deliveries = new Set<Promise<void>>();
  private readonly putListeners: Array<(event: BusEvent) => void> = [];
  /** Publish order per rule target, to count the deliveries that overtook an earlier event. */
  private readonly targetOrder = new Map<TargetDefinition, SendOrder>();

  constructor(options: {
    name: string;
    arn: string;
    clock: LocalClock;
    delivery: DeliveryModel;
    onActivity?: (activity: BusActivity) => void;
  }) {
    this.name = options.name;
    this.arn = options.arn;
    this.clock = options.clock;
    this.delivery = options.delivery;
    this.random = options.delivery.random(`events:${options.name}`);
    this.onActivity = options.onActivity;
  }

  addRule(rule: RuleDefinition): void {
    this.rules.push(rule);
  }

  /** Rules of this bus, in template order. */
  ruleList(): readonly RuleDefinition[] {
    return this.rules;
  }

  /** Called with every event put on this bus, before it is routed: the bus's archives (archive.ts). */
  onPut(listener: (event: BusEvent) => void): void {
    this.putListeners.push(listener);
  }

  /** Routes an accepted event to every matching rule's targets; returns the names of those rules. */
  put(event: BusEvent): string[] {
    for (const listener of this.putListeners) listener(event);
    const matched = this.rules.filter((rule) => rule.enabled && rule.matches?.(event));
    this.onActivity?.({ kind: 'put', bus: this.name, event, rules: matched.map((rule) => rule.name) });
    for (const rule of matched) void this.deliverToTargets(rule, event);
    return matched.map((rule) => rule.name);
  }

  /** Sends an event to one rule's targets (schedules and replays use this); resolves when delivered. */
  deliverToTargets(rule: RuleDefinition, event: BusEvent): Promise<TargetOutcome[]> {
    return Promise.all(
      rule.targets.map((target) => {
        const order = this.targetOrder.get(target) ?? new SendOrder();
        this.targetOrder.set(target, order);
        const position = order.enter();
        const delayMs = this.delivery.ordered
          ? undefined
          : this.clock.delayMs(this.random() * BUS_DELIVERY_MAX_DELAY_SECONDS);
        const delivery = this.deliver(rule, target, event, {
          delayMs,
          delivered: () => {
            if (order.deliver(position)) this.delivery.countReordered();
          },
          gaveUp: () => order.drop(position),
        });
        const tracked = delivery.then(
          () => undefined,
          () => undefined,
        );
        this.deliveries.add(tracked);
        void tracked.finally(() => this.deliveries.delete(tracked));
        return delivery;
      }),
    );
  }

  /** Deliveries still retrying or running (Lambda targets run to completion here). */
  get pending(): number {
    return this.deliveries.size;
  }

  async settle(): Promise<void> {
    while (this.deliveries.size > 0) await Promise.allSettled([...this.deliveries]);
  }

  private async deliver(
    rule: RuleDefinition,
    target: TargetDefinition,
    event: BusEvent,
    progress: {
      /** The wait before the first attempt; undefined (ordered delivery): it is made before `put` returns. */
      readonly delayMs: number | undefined;
      readonly delivered: () => void;
      readonly gaveUp: () => void;
    },
  ): Promise<TargetOutcome> {
    if (progress.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, progress.delayMs));
    const answer = target.access?.deliver();
    const denied = answer instanceof Promise ? await answer : answer;
    if (denied !== undefined) {
      // Not retried: straight to the dead-letter queue (see above).
      progress.gaveUp();
      return this.deadLetter(rule, target, event, NO_PERMISSIONS, denied);
    }
    if (target.kind === 'lambda') {
      // The Invoke call is accepted at once; errors of the function are Lambda's to retry.
      progress.delivered();
      const outcome = await invokeAsync(target.function, event, this.clock);
      this.onActivity?.({ kind: 'lambda-async', function: target.function.name, event, ...outcome });
      return { target: target.id, ...outcome };
    }
    const started = this.clock.now();
    for (let attempt = 0; ; attempt++) {
      try {
        target.queue.send({ body: JSON.stringify(event) });
        progress.delivered();
        return { target: target.id, errors: [] };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const code = (error as { code?: unknown }).code;
        const ageSeconds = (this.clock.now() - started) / 1000;
        const exhausted =
          attempt >= target.retryPolicy.maximumRetryAttempts ||
          ageSeconds >= target.retryPolicy.maximumEventAgeSeconds;
        if (!exhausted) {
          // Exponential back-off with jitter, capped at a few minutes between attempts.
          const backoffSeconds = Math.min(300, 2 ** attempt) * (0.5 + this.random() / 2);
          await new Promise((resolve) => setTimeout(resolve, this.clock.delayMs(backoffSeconds)));
          continue;
        }
        progress.gaveUp();
        return this.deadLetter(rule, target, event, typeof code === 'string' ? code : 'SQSError', message);
      }
    }
  }

  /** Gives up on a delivery: the event to the target's DLQ with EventBridge's attributes, when it has one it may send to. */
  private async deadLetter(
    rule: RuleDefinition,
    target: TargetDefinition,
    event: BusEvent,
    errorCode: string,
    message: string,
  ): Promise<TargetOutcome> {
    let deadLettered = false;
    let error = message;
    if (target.deadLetterQueue) {
      const refused = await target.access?.deadLetter?.();
      if (refused === undefined) {
        target.deadLetterQueue.send({
          body: JSON.stringify(event),
          messageAttributes: {
            RULE_ARN: rule.arn,
            TARGET_ARN: target.kind === 'sqs' ? target.queue.arn : target.function.arn,
            ERROR_CODE: errorCode,
            ERROR_MESSAGE: message,
          },
        });
        deadLettered = true;
      } else error = `${message}; the dead-letter queue refused it too: ${refused}`;
    }
    this.onActivity?.({
      kind: 'target-failed',
      rule: rule.name,
      target: target.id,
      event,
      error,
      deadLettered,
    });
    return { target: target.id, errors: [error] };
  }
}
