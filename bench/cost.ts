import { routeFor, scheduledFunctions } from '#functions/routes.ts';
import type { FlowOverhead } from './overhead.ts';
import { DUE_PER_RUN, type TrialWatchScale } from './trial-watch-scale.ts';

/**
 * List prices, us-east-1 (the figures; DynamoDB on-demand as published since the
 * November 2024 price cut). Every message and event here is far below 64 KB, so each counts once.
 */
export const PRICES = {
  lambdaGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  sqsFifoRequest: 0.5 / 1e6,
  sqsStandardRequest: 0.4 / 1e6,
  pipesRequest: 0.4 / 1e6,
  eventBridgeEvent: 1 / 1e6,
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
} as const;

/** SQS requests per event on the route FIFO queue: the pipe's send, the event source mapping's receive and delete, unbatched. */
export const SQS_REQUESTS_PER_EVENT = 3;

/**
 * The intake hop of a queue-fed event, as deployed: its standard intake queue (EventBridge's send,
 * the pipe's receive and delete, unbatched) and one pipe request.
 */
export const INTAKE_REQUESTS_PER_EVENT = { standardQueue: 3, pipe: 1 } as const;

export interface CostPerMillion {
  readonly flow: string;
  readonly memoryMb: number;
  /** Billed duration per event: one record per invocation, rounded up to the millisecond. */
  readonly billedMs: number;
  readonly lambdaCompute: number;
  readonly lambdaRequests: number;
  readonly sqs: number;
  /** The intake queue and pipe in front of the route's FIFO queue. */
  readonly intake: number;
  readonly eventBridge: number;
  readonly dynamoDb: number;
  readonly total: number;
  /** The inputs, per event, so the arithmetic can be checked. */
  readonly perEvent: { writeUnits: number; readUnits: number; eventsPublished: number; serviceCalls: number };
}

function priced(
  flow: string,
  memoryMb: number,
  durationMs: number,
  units: { writeUnits: number; readUnits: number; eventsPublished: number; serviceCalls: number },
  queued: boolean,
): CostPerMillion {
  const billedMs = Math.ceil(durationMs);
  const million = 1e6;
  const lambdaCompute = (billedMs / 1000) * (memoryMb / 1024) * PRICES.lambdaGbSecond * million;
  const lambdaRequests = PRICES.lambdaRequest * million;
  const sqs = queued ? SQS_REQUESTS_PER_EVENT * PRICES.sqsFifoRequest * million : 0;
  const intake = queued
    ? (INTAKE_REQUESTS_PER_EVENT.standardQueue * PRICES.sqsStandardRequest +
        INTAKE_REQUESTS_PER_EVENT.pipe * PRICES.pipesRequest) *
      million
    : 0;
  // Inbound events are published once by the partner; outbound ones by the connector.
  const eventBridge = ((queued ? 1 : 0) + units.eventsPublished) * PRICES.eventBridgeEvent * million;
  const dynamoDb =
    (units.writeUnits * PRICES.dynamoWriteUnit + units.readUnits * PRICES.dynamoReadUnit) * million;
  return {
    flow,
    memoryMb,
    billedMs,
    lambdaCompute,
    lambdaRequests,
    sqs,
    intake,
    eventBridge,
    dynamoDb,
    total: lambdaCompute + lambdaRequests + sqs + intake + eventBridge + dynamoDb,
    perEvent: units,
  };
}

export function costPerMillionEvents(
  overhead: readonly FlowOverhead[],
  trialWatch: readonly TrialWatchScale[] = [],
): CostPerMillion[] {
  const costs = overhead.map((flow) =>
    priced(
      flow.flow,
      routeFor(flow.flow).memorySizeMb,
      flow.handlerMsMedian,
      {
        writeUnits: flow.writeUnits,
        readUnits: flow.readUnits,
        eventsPublished: flow.publishedEntries,
        serviceCalls: flow.serviceCalls,
      },
      true,
    ),
  );
  // Trial watch: per announced business, its share of a run (one invocation per run of 50).
  const largest = trialWatch.at(-1);
  const memoryMb = scheduledFunctions.find((fn) => fn.functionName === 'trial-watch')?.memorySizeMb ?? 256;
  if (largest) {
    const perBusiness = priced(
      `TrialExpiring (trial watch, ${largest.tracked} tracked)`,
      memoryMb,
      largest.timeMsMedian / DUE_PER_RUN,
      {
        writeUnits: largest.writeUnits / DUE_PER_RUN,
        readUnits: largest.readUnits / DUE_PER_RUN,
        eventsPublished: largest.putEventsEntries / DUE_PER_RUN,
        serviceCalls: largest.serviceCalls / DUE_PER_RUN,
      },
      false,
    );
    costs.push({
      ...perBusiness,
      lambdaRequests: perBusiness.lambdaRequests / DUE_PER_RUN,
      total: perBusiness.total - perBusiness.lambdaRequests + perBusiness.lambdaRequests / DUE_PER_RUN,
    });
  }
  return costs;
}
