import { randomUUID } from 'node:crypto';
import { routeFor } from '#functions/routes.ts';
import type { BusEvent } from '#local/events-server.ts';
import type { QueuedMessage } from '#local/fifo-queue.ts';
import { failedMessageIds, invokeFunction, toSqsEvent } from '#local/lambda.ts';
import { loadHandler } from '#local/runtime.ts';

/**
 * Second deliveries of an event with the same event id, as SQS gives them when a consumer's
 * delete is lost (the message comes back after its visibility timeout) or EventBridge delivers a
 * rule target twice. The local FIFO queue drops a repeated deduplication id for five minutes, as
 * SQS does, so the chaos run hands the copy to the route's handler itself — only after the first
 * delivery was handled, which is when SQS could redeliver it — and retries it like the queue
 * would (a failed copy waits and comes back, up to the route's maxReceiveCount).
 */

export interface RedeliveryResult {
  /** Acknowledged by the handler (processed, or recognised as already done). */
  readonly acknowledged: boolean;
  /** Receives the copy needed, the first included. */
  readonly receives: number;
}

export interface RedeliveryOptions {
  readonly region: string;
  /** Delay before a failed copy is received again. */
  readonly visibilityDelayMs: number;
}

export async function redeliver(event: BusEvent, options: RedeliveryOptions): Promise<RedeliveryResult> {
  const route = routeFor(event['detail-type']);
  const groupId = event.detail['accountId'];
  if (!route || typeof groupId !== 'string') return { acknowledged: false, receives: 0 };
  const handler = await loadHandler(route);
  const queue = { queueName: `workforce-connector-${route.functionName}.fifo`, region: options.region };
  const sentAt = Date.now();
  const message: QueuedMessage = {
    messageId: randomUUID(),
    body: JSON.stringify(event),
    groupId,
    deduplicationId: event.id,
    sequenceNumber: String(sentAt).padStart(20, '0'),
    sentTimestamp: sentAt,
    receiveCount: 0,
    firstReceiveTimestamp: undefined,
  };
  for (let receive = 1; receive <= route.maxReceiveCount; receive++) {
    message.receiveCount = receive;
    message.firstReceiveTimestamp ??= Date.now();
    try {
      const response = await invokeFunction(handler, toSqsEvent([message], queue), {
        functionName: route.functionName,
        region: options.region,
        timeoutMs: route.timeoutSeconds * 1000,
        memoryMb: route.memorySizeMb,
      });
      if (failedMessageIds(response, [message]).length === 0)
        return { acknowledged: true, receives: receive };
    } catch {
      // A thrown invocation fails the copy, exactly like a reported item failure.
    }
    await new Promise((resolve) => setTimeout(resolve, options.visibilityDelayMs));
  }
  return { acknowledged: false, receives: route.maxReceiveCount };
}
