import type { BusEvent, DeadLetterView, OutboundEvent } from './events-server.ts';
import { type BatchOutcome, type DeadLetter, FifoQueue, type QueuedMessage } from './fifo-queue.ts';
import {
  failedMessageIds,
  invokeFunction,
  type LambdaFunctionSettings,
  type LambdaHandler,
  type SqsQueueIdentity,
  toSqsEvent,
} from './lambda.ts';

/**
 * The deployed routing, run in one process: EventBridge rule per inbound detail-type → SQS FIFO
 * queue (MessageGroupId = detail.accountId, deduplication id = event id) → Lambda event source
 * (batch size, maximum concurrency) → redrive to a dead-letter queue. Events from the connector's
 * own source are recorded as outbound; anything else matches no rule, as on a real bus.
 */

/** One routed function, as the local runtime needs it (the route table plus a way to load the code). */
export interface LocalQueueRoute {
  readonly detailType: string;
  readonly functionName: string;
  readonly queueName: string;
  readonly batchSize: number;
  readonly maxConcurrency: number;
  readonly maxReceiveCount: number;
  readonly timeoutSeconds: number;
  readonly memorySizeMb?: number;
  readonly loadHandler: () => Promise<LambdaHandler>;
}

export type DeliveryActivity =
  | {
      readonly kind: 'published';
      readonly event: BusEvent;
      readonly direction: 'inbound' | 'outbound' | 'unrouted';
    }
  | { readonly kind: 'duplicate'; readonly event: BusEvent; readonly queue: string }
  | {
      readonly kind: 'batch';
      readonly functionName: string;
      readonly queue: string;
      readonly size: number;
      readonly failed: number;
      readonly reason?: string;
      readonly detailTypes: readonly string[];
    }
  | { readonly kind: 'dead-letter'; readonly deadLetter: DeadLetter };

export interface LocalBusOptions {
  readonly region: string;
  readonly inboundSource: string;
  readonly outboundSource: string;
  readonly routes: readonly LocalQueueRoute[];
  readonly visibilityDelayMs?: number;
  readonly now?: () => number;
  readonly onActivity?: (activity: DeliveryActivity) => void;
}

/** An inbound event the rule matched but could not turn into an SQS message (no accountId). */
const UNDELIVERABLE_QUEUE_SUFFIX = '-rule-dlq';

export class LocalBus {
  private readonly queues = new Map<string, FifoQueue>();
  private readonly routesByDetailType = new Map<string, { route: LocalQueueRoute; queue: FifoQueue }>();
  private readonly outboundEvents: OutboundEvent[] = [];
  private readonly publishedEvents: BusEvent[] = [];
  private readonly deadLetters: DeadLetter[] = [];
  private readonly options: LocalBusOptions;

  constructor(options: LocalBusOptions) {
    this.options = options;
    for (const route of options.routes) {
      let queue = this.queues.get(route.queueName);
      if (!queue) {
        queue = this.createQueue(route);
        this.queues.set(route.queueName, queue);
      }
      this.routesByDetailType.set(route.detailType, { route, queue });
    }
  }

  /** Where the events server hands every accepted PutEvents entry. */
  readonly dispatch = (event: BusEvent): void => {
    this.publishedEvents.push(event);
    if (event.source === this.options.outboundSource) {
      this.outboundEvents.push({
        id: event.id,
        source: event.source,
        'detail-type': event['detail-type'],
        time: event.time,
        detail: event.detail,
      });
      this.options.onActivity?.({ kind: 'published', event, direction: 'outbound' });
      return;
    }
    const target =
      event.source === this.options.inboundSource
        ? this.routesByDetailType.get(event['detail-type'])
        : undefined;
    if (!target) {
      this.options.onActivity?.({ kind: 'published', event, direction: 'unrouted' });
      return;
    }
    this.options.onActivity?.({ kind: 'published', event, direction: 'inbound' });
    const groupId = event.detail['accountId'];
    if (typeof groupId !== 'string' || groupId.length === 0 || groupId.length > 128) {
      // The SQS target's MessageGroupId path finds nothing usable: EventBridge cannot deliver the
      // event and, with a rule dead-letter queue, parks it there.
      this.recordDeadLetter({
        queue: `${target.queue.name}${UNDELIVERABLE_QUEUE_SUFFIX}`,
        body: JSON.stringify(event),
        attempts: 0,
        reason: 'MessageGroupId $.detail.accountId is missing or not a 1-128 character string',
        messageId: event.id,
        groupId: '',
      });
      return;
    }
    const sent = target.queue.send({ body: JSON.stringify(event), groupId, deduplicationId: event.id });
    if (sent.duplicate) this.options.onActivity?.({ kind: 'duplicate', event, queue: target.queue.name });
  };

  outbound(): readonly OutboundEvent[] {
    return [...this.outboundEvents];
  }

  /** Every accepted entry, whatever its source, in arrival order. */
  published(): readonly BusEvent[] {
    return [...this.publishedEvents];
  }

  dlq(): readonly DeadLetterView[] {
    return this.deadLetters.map(({ queue, body, attempts, reason }) => ({ queue, body, attempts, reason }));
  }

  queueDepths(): Record<string, number> {
    return Object.fromEntries([...this.queues].map(([name, queue]) => [name, queue.depth()]));
  }

  /** Resolves when every queue is drained (including redeliveries waiting out their delay). */
  async waitForIdle(): Promise<void> {
    // A handler may publish an event that routes to another queue; loop until nothing moved.
    while (![...this.queues.values()].every((queue) => queue.isIdle())) {
      await Promise.all([...this.queues.values()].map((queue) => queue.waitForIdle()));
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }

  private createQueue(route: LocalQueueRoute): FifoQueue {
    const identity = { queueName: route.queueName, region: this.options.region };
    const settings = {
      functionName: route.functionName,
      region: this.options.region,
      timeoutMs: route.timeoutSeconds * 1000,
      ...(route.memorySizeMb === undefined ? {} : { memoryMb: route.memorySizeMb }),
    };
    return new FifoQueue({
      name: route.queueName,
      batchSize: route.batchSize,
      maxConcurrency: route.maxConcurrency,
      maxReceiveCount: route.maxReceiveCount,
      ...(this.options.visibilityDelayMs === undefined
        ? {}
        : { visibilityDelayMs: this.options.visibilityDelayMs }),
      ...(this.options.now === undefined ? {} : { now: this.options.now }),
      onDeadLetter: (deadLetter) => this.recordDeadLetter(deadLetter),
      consume: async (batch) => {
        const outcome = await invokeRoute(route, batch, identity, settings);
        this.options.onActivity?.({
          kind: 'batch',
          functionName: route.functionName,
          queue: route.queueName,
          size: batch.length,
          failed: outcome.failedMessageIds.length,
          detailTypes: batch.map((message) => detailTypeOf(message.body)),
          ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
        });
        return outcome;
      },
    });
  }

  private recordDeadLetter(deadLetter: DeadLetter): void {
    this.deadLetters.push(deadLetter);
    this.options.onActivity?.({ kind: 'dead-letter', deadLetter });
  }
}

async function invokeRoute(
  route: LocalQueueRoute,
  batch: readonly QueuedMessage[],
  identity: SqsQueueIdentity,
  settings: LambdaFunctionSettings,
): Promise<BatchOutcome> {
  try {
    const handler = await route.loadHandler();
    const response = await invokeFunction(handler, toSqsEvent(batch, identity), settings);
    const failed = failedMessageIds(response, batch);
    return failed.length > 0
      ? { failedMessageIds: failed, reason: `${route.functionName} reported the record in batchItemFailures` }
      : { failedMessageIds: failed };
  } catch (error) {
    const reason = `${route.functionName} failed: ${error instanceof Error ? error.message : String(error)}`;
    return { failedMessageIds: batch.map((message) => message.messageId), reason };
  }
}

function detailTypeOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { 'detail-type'?: unknown };
    return typeof parsed['detail-type'] === 'string' ? parsed['detail-type'] : '?';
  } catch {
    return '?';
  }
}
