import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandOutput,
  type PutEventsRequestEntry,
  type PutEventsResultEntry,
} from '@aws-sdk/client-eventbridge';
import { describeIssues } from '#functions/contracts/issues.ts';
import type { EventContract, OutboundDetailType } from '#functions/contracts/registry.ts';
import { PermanentError, RetryableError } from '#functions/domain/errors.ts';

/**
 * The only module that builds EventBridge entries. Every detail is checked against its outbound
 * contract before it leaves, so a partner never receives an event that breaks the published schema.
 * A publisher holds the contracts of what its function publishes (not the registry), so a
 * function's bundle builds those schemas only (tests and tools may pass the registry's
 * `outboundContracts`).
 */

/** The outbound contracts a publisher may publish, keyed by detail-type. */
export type OutboundContracts = { readonly [K in OutboundDetailType]?: EventContract<K> };

export interface OutboundEvent {
  detailType: string;
  detail: object;
}

export interface Publisher {
  /** Resolves once EventBridge accepted every entry; throws RetryableError when some never were. */
  publish(events: readonly OutboundEvent[]): Promise<void>;
}

export interface PublisherOptions {
  /** What this publisher may publish; any other detail-type is an OutboundEventError. */
  contracts: OutboundContracts;
  client: EventBridgeClient;
  busName: string;
  source: string;
  /** PutEvents rounds for entries EventBridge reports as failed, including the first. @default 4 */
  maxAttempts?: number;
  /** Backoff base: retry n waits random() * min(maxDelayMs, baseDelayMs * 2^(n-1)). @default 100 */
  baseDelayMs?: number;
  /** @default 2000 */
  maxDelayMs?: number;
  /** Injected for fast tests. @default setTimeout-based sleep */
  sleep?: (ms: number) => Promise<void>;
  /** @default Math.random */
  random?: () => number;
  /** Timestamp of the entries. @default () => new Date() */
  now?: () => Date;
}

/** EventBridge's limit on one entry, and on a whole PutEvents request. */
export const MAX_ENTRY_BYTES = 256 * 1024;
/** PutEvents accepts at most 10 entries per call. */
export const MAX_ENTRIES_PER_PUT = 10;

/**
 * An outbound event the connector built breaks its contract or EventBridge's size limit: a retry
 * builds the same event, so it is permanent (the record ends in SyncFailed OUTBOUND_EVENT_INVALID).
 */
export class OutboundEventError extends PermanentError {
  readonly detailType: string;
  constructor(detailType: string, message: string) {
    super('OUTBOUND_EVENT_INVALID', message);
    this.name = 'OutboundEventError';
    this.detailType = detailType;
  }
}

/**
 * Entry size as EventBridge measures it: 14 bytes when Time is set, plus the UTF-8 bytes of
 * Source, DetailType, Detail and each resource ARN. EventBusName does not count.
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevent-size.html
 */
export function entrySize(entry: PutEventsRequestEntry): number {
  let size = entry.Time === undefined ? 0 : 14;
  size += Buffer.byteLength(entry.Source ?? '', 'utf8');
  size += Buffer.byteLength(entry.DetailType ?? '', 'utf8');
  size += Buffer.byteLength(entry.Detail ?? '', 'utf8');
  for (const resource of entry.Resources ?? []) size += Buffer.byteLength(resource, 'utf8');
  return size;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface SizedEntry {
  entry: PutEventsRequestEntry;
  size: number;
}

/** Up to 10 entries per call, and no call over the request limit either. */
function toBatches(entries: readonly SizedEntry[]): SizedEntry[][] {
  const batches: SizedEntry[][] = [];
  let current: SizedEntry[] = [];
  let currentBytes = 0;
  for (const item of entries) {
    if (current.length === MAX_ENTRIES_PER_PUT || currentBytes + item.size > MAX_ENTRY_BYTES) {
      batches.push(current);
      current = [];
      currentBytes = 0;
    }
    current.push(item);
    currentBytes += item.size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Keys a contract set by its modules' own detail-types. */
export function outboundContractsOf(
  modules: readonly EventContract<OutboundDetailType>[],
): OutboundContracts {
  const contracts: Partial<Record<OutboundDetailType, EventContract<OutboundDetailType>>> = {};
  for (const contract of modules) contracts[contract.detailType] = contract;
  return contracts as OutboundContracts;
}

export function createPublisher(options: PublisherOptions): Publisher {
  const { contracts } = options;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const baseDelayMs = options.baseDelayMs ?? 100;
  const maxDelayMs = options.maxDelayMs ?? 2000;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? (() => new Date());

  function buildEntry(event: OutboundEvent, time: Date): SizedEntry {
    const contract = Object.hasOwn(contracts, event.detailType)
      ? contracts[event.detailType as OutboundDetailType]
      : undefined;
    if (contract === undefined) {
      throw new OutboundEventError(
        event.detailType,
        `no outbound contract for detail-type ${event.detailType}`,
      );
    }
    const parsed = contract.schema.safeParse(event.detail);
    if (!parsed.success) {
      // Paths and messages only (describeIssues never prints values): they may be personal data.
      const problems = describeIssues(parsed.error.issues, 'detail');
      throw new OutboundEventError(
        event.detailType,
        `${event.detailType} detail breaks its contract: ${problems}`,
      );
    }
    const entry: PutEventsRequestEntry = {
      Source: options.source,
      DetailType: event.detailType,
      Detail: JSON.stringify(parsed.data),
      EventBusName: options.busName,
      Time: time,
    };
    const size = entrySize(entry);
    if (size > MAX_ENTRY_BYTES) {
      throw new OutboundEventError(
        event.detailType,
        `${event.detailType} entry is ${size} bytes, over EventBridge's ${MAX_ENTRY_BYTES}-byte limit`,
      );
    }
    return { entry, size };
  }

  async function putBatch(batch: SizedEntry[]): Promise<void> {
    let pending = batch;
    let lastFailures: PutEventsResultEntry[] = [];
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      if (attempt > 1) {
        const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 2));
        await sleep(Math.floor(random() * ceiling));
      }
      let result: PutEventsCommandOutput;
      try {
        result = await options.client.send(
          new PutEventsCommand({ Entries: pending.map((item) => item.entry) }),
        );
      } catch (error) {
        // The SDK already retried throttling and network errors with its own backoff.
        throw new RetryableError('PUBLISH_FAILED', `PutEvents failed: ${(error as Error).message}`, {
          cause: error,
        });
      }
      if (!result.FailedEntryCount) return;
      const results = result.Entries ?? [];
      // Result entries are positional: entry i of the answer belongs to entry i of the request.
      const failedIndexes = pending.flatMap((_, index) => (results[index]?.ErrorCode ? [index] : []));
      // A count without per-entry codes gives nothing to select by: resend the whole call.
      const stillPending = failedIndexes.length > 0 ? failedIndexes.map((index) => pending[index]!) : pending;
      lastFailures = failedIndexes.map((index) => results[index]!);
      pending = stillPending;
    }
    const codes = [...new Set(lastFailures.map((failure) => failure.ErrorCode ?? 'unknown'))].join(', ');
    throw new RetryableError(
      'PUBLISH_FAILED',
      `EventBridge refused ${pending.length} of ${batch.length} entries after ${maxAttempts} attempts (${codes || 'no error codes'})`,
    );
  }

  return {
    async publish(events) {
      if (events.length === 0) return;
      const time = now();
      // Every entry is built (and checked) before the first is sent, so a contract bug publishes nothing.
      const entries = events.map((event) => buildEntry(event, time));
      for (const batch of toBatches(entries)) await putBatch(batch);
    },
  };
}
