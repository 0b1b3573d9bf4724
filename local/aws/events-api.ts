import { randomUUID } from 'node:crypto';
import { AwsApiError, type Operation } from '../aws-endpoint.ts';
import type { BusEvent, EventBus } from './event-bus.ts';
import { eventTime, LOCAL_ACCOUNT_ID } from './lambda.ts';

/**
 * EventBridge PutEvents ("PutEvents" API reference, "Calculating Amazon EventBridge PutEvents
 * event entry size"): 1-10 entries; Source, DetailType and Detail required per entry, Detail a JSON
 * object; an entry naming no bus goes to the account's `default` bus; entries are answered one by
 * one and a failing entry does not stop the others.
 *
 * One deliberate difference: AWS is reported to accept an entry for a bus that does not exist and
 * drop it (aws/aws-cli#9186); locally such an entry is answered with ResourceNotFoundException, so
 * a mistyped bus name shows up on the first try instead of as silence.
 */

export const PUT_EVENTS_MAX_ENTRIES = 10;
/** The total entry size limit of a PutEvents request (256 KB in the API reference). */
export const PUT_EVENTS_MAX_BYTES = 256 * 1024;

export interface PutEventsRequestEntry {
  Source?: unknown;
  DetailType?: unknown;
  Detail?: unknown;
  EventBusName?: unknown;
  Resources?: unknown;
  Time?: unknown;
}

export type PutEventsResultEntry = { EventId: string } | { ErrorCode: string; ErrorMessage: string };

export interface EventsApiOptions {
  readonly region: string;
  readonly buses: ReadonlyMap<string, EventBus>;
  readonly now?: () => Date;
  /** Called once per accepted entry, before it is routed. */
  readonly onAccepted?: (event: BusEvent, bus: EventBus) => void;
}

export function eventsApi(options: EventsApiOptions): Record<string, Operation> {
  return {
    'AWSEvents.PutEvents': (body) => putEvents(options, body),
  };
}

function putEvents(options: EventsApiOptions, body: Record<string, unknown>) {
  const entries = body['Entries'];
  if (!Array.isArray(entries)) {
    throw new AwsApiError(
      'ValidationException',
      "1 validation error detected: Value null at 'entries' failed to satisfy constraint: Member must not be null",
    );
  }
  if (entries.length < 1 || entries.length > PUT_EVENTS_MAX_ENTRIES) {
    const bound =
      entries.length < 1 ? 'greater than or equal to 1' : `less than or equal to ${PUT_EVENTS_MAX_ENTRIES}`;
    throw new AwsApiError(
      'ValidationException',
      `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length ${bound}`,
    );
  }
  const total = entries.reduce<number>((sum, entry) => sum + putEventsEntrySize(asEntry(entry)), 0);
  if (total > PUT_EVENTS_MAX_BYTES) {
    throw new AwsApiError(
      'ValidationException',
      'Total size of the entries in the request is over the limit.',
    );
  }
  const now = options.now?.() ?? new Date();
  const results: PutEventsResultEntry[] = [];
  const accepted: Array<{ event: BusEvent; bus: EventBus }> = [];
  for (const raw of entries) {
    const verdict = readEntry(asEntry(raw), options, now);
    if ('ErrorCode' in verdict) results.push(verdict);
    else {
      results.push({ EventId: verdict.event.id });
      accepted.push(verdict);
    }
  }
  // Routed only once the whole request is read, so a failing entry never leaves half a request delivered.
  for (const { event, bus } of accepted) {
    options.onAccepted?.(event, bus);
    bus.put(event);
  }
  return { FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length, Entries: results };
}

/** The size EventBridge charges an entry: Time 14 bytes, UTF-8 bytes of Source, DetailType, Detail, Resources. */
export function putEventsEntrySize(entry: PutEventsRequestEntry): number {
  let size = entry.Time === undefined || entry.Time === null ? 0 : 14;
  for (const value of [entry.Source, entry.DetailType, entry.Detail]) {
    if (typeof value === 'string') size += Buffer.byteLength(value, 'utf8');
  }
  if (Array.isArray(entry.Resources)) {
    for (const resource of entry.Resources) {
      if (typeof resource === 'string') size += Buffer.byteLength(resource, 'utf8');
    }
  }
  return size;
}

function readEntry(
  entry: PutEventsRequestEntry,
  options: EventsApiOptions,
  now: Date,
): { ErrorCode: string; ErrorMessage: string } | { event: BusEvent; bus: EventBus } {
  const named = entry.EventBusName;
  const busName =
    named === undefined || named === null || named === ''
      ? 'default'
      : String(named).slice(String(named).lastIndexOf('/') + 1);
  const bus = options.buses.get(busName);
  if (!bus) {
    return { ErrorCode: 'ResourceNotFoundException', ErrorMessage: `Event bus ${busName} does not exist.` };
  }
  for (const field of ['Source', 'DetailType', 'Detail'] as const) {
    const value = entry[field];
    if (typeof value !== 'string' || value.length === 0) {
      return {
        ErrorCode: 'InvalidArgument',
        ErrorMessage: `Parameter ${field} is not valid. Reason: ${field} is a required argument.`,
      };
    }
  }
  const detail = parseDetail(entry.Detail as string);
  if (!detail) return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  const time = entryTime(entry.Time, now);
  if (!time) return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Parameter Time is not valid.' };
  return {
    bus,
    event: {
      version: '0',
      id: randomUUID(),
      'detail-type': entry.DetailType as string,
      source: entry.Source as string,
      account: LOCAL_ACCOUNT_ID,
      time: eventTime(time),
      region: options.region,
      resources: Array.isArray(entry.Resources)
        ? entry.Resources.filter((item): item is string => typeof item === 'string')
        : [],
      detail,
    },
  };
}

/** EventBridge only accepts a JSON object as Detail. */
function parseDetail(detail: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(detail);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The SDK sends Time as epoch seconds (AWS JSON timestamps); an ISO string is accepted too. */
function entryTime(time: unknown, now: Date): Date | undefined {
  if (time === undefined || time === null) return now;
  const parsed =
    typeof time === 'number' ? new Date(time * 1000) : typeof time === 'string' ? new Date(time) : undefined;
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed : undefined;
}

function asEntry(raw: unknown): PutEventsRequestEntry {
  return typeof raw === 'object' && raw !== null ? (raw as PutEventsRequestEntry) : {};
}
