import { randomUUID } from 'node:crypto';
import { AwsApiError, type Operation } from '../aws-endpoint.ts';
import { type EventArchive, EventBridgeError, LocalArchives } from './archive.ts';
import { localClock } from './clock.ts';
import type { BusEvent, EventBus } from './event-bus.ts';
import { eventTime, LOCAL_ACCOUNT_ID } from './lambda.ts';
import type { PutEventsFaults } from './put-events-faults.ts';
import type { Replay } from './replay.ts';

/**
 * EventBridge PutEvents ("PutEvents" API reference, "Calculating Amazon EventBridge PutEvents
 * event entry size"): 1-10 entries; Source, DetailType and Detail required per entry, Detail a JSON
 * object; an entry naming no bus goes to the account's `default` bus; entries are answered one by
 * one and a failing entry does not stop the others.
 *
 * An entry whose Source starts with `aws.` is refused on its own, the call succeeding with
 * FailedEntryCount, as EventBridge does: the `aws.` prefix is reserved for AWS services'
 * events (EventBridge API reference, "PutEventsResultEntry": "NotAuthorizedForSourceException — You
 * do not have permissions to publish events with this source onto this event bus."; the Custom
 * Event Bus API reference, "PutEventsRequestEntry", Source: "The aws. value prefix is
 * service-reserved and cannot be used as a value."). The message is the one EventBridge answers
 * with ("Not authorized for the source.", as observed in aws-samples/serverless-patterns#3089).
 *
 * One deliberate difference: AWS is reported to accept an entry for a bus that does not exist and
 * drop it (aws/aws-cli#9186); locally such an entry is answered with ResourceNotFoundException, so
 * a mistyped bus name shows up on the first try instead of as silence.
 *
 * Also what `npm run replay` reads and starts, in the shapes of the EventBridge API reference
 * (AWS JSON 1.1; timestamps are epoch seconds as JSON numbers): ListRules, DescribeEventBus,
 * ListArchives, DescribeArchive, StartReplay, DescribeReplay, CancelReplay, ListReplays. Every
 * list fits in one page here (no NextToken).
 */

export const PUT_EVENTS_MAX_ENTRIES = 10;
/** The total entry size limit of a PutEvents request (256 KB in the API reference). */
export const PUT_EVENTS_MAX_BYTES = 256 * 1024;
/** Sources AWS services publish under; PutEvents refuses them (see above). */
export const RESERVED_SOURCE_PREFIX = 'aws.';

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
  /** The archives and replays (aws/archive.ts). @default none */
  readonly archives?: LocalArchives;
  /** Entries failed on purpose (put-events-faults.ts). @default none */
  readonly faults?: PutEventsFaults;
}

export function eventsApi(options: EventsApiOptions): Record<string, Operation> {
  const archives =
    options.archives ??
    new LocalArchives({ region: options.region, account: LOCAL_ACCOUNT_ID, clock: localClock() });
  const api: Record<string, Operation> = {
    'AWSEvents.PutEvents': (body) => putEvents(options, body),
    'AWSEvents.DescribeEventBus': (body) => describeEventBus(options, body),
    'AWSEvents.ListRules': (body) => listRules(options, body),
    'AWSEvents.ListArchives': (body) => listArchives(archives, body),
    'AWSEvents.DescribeArchive': (body) =>
      describeArchive(archives.archive(requiredString(body, 'ArchiveName'))),
    'AWSEvents.StartReplay': (body) => startReplay(archives, body),
    'AWSEvents.DescribeReplay': (body) => describeReplay(archives.replay(requiredString(body, 'ReplayName'))),
    'AWSEvents.CancelReplay': (body) => {
      const replay = archives.cancel(requiredString(body, 'ReplayName'));
      return { ReplayArn: replay.arn, State: replay.state };
    },
    'AWSEvents.ListReplays': (body) => listReplays(archives, body),
  };
  // The archive module refuses in EventBridge's terms; the endpoint answers with that error type.
  return Object.fromEntries(
    Object.entries(api).map(([target, operation]) => [
      target,
      async (body: Record<string, unknown>) => {
        try {
          return await operation(body);
        } catch (error) {
          if (error instanceof EventBridgeError) throw new AwsApiError(error.code, error.message);
          throw error;
        }
      },
    ]),
  );
}

/** DescribeEventBus: the bus by name or ARN; `default` when none is named. */
function describeEventBus(options: EventsApiOptions, body: Record<string, unknown>) {
  const bus = busNamed(options, body['Name']);
  return { Name: bus.name, Arn: bus.arn };
}

/** ListRules: the rules of one bus (`default` when none is named), by name prefix. */
function listRules(options: EventsApiOptions, body: Record<string, unknown>) {
  const bus = busNamed(options, body['EventBusName']);
  const prefix = optionalString(body, 'NamePrefix') ?? '';
  return {
    Rules: bus
      .ruleList()
      .filter((rule) => rule.name.startsWith(prefix))
      .map((rule) => ({
        Name: rule.name,
        Arn: rule.arn,
        ...(rule.eventPattern === undefined ? {} : { EventPattern: rule.eventPattern }),
        ...(rule.scheduleExpression === undefined ? {} : { ScheduleExpression: rule.scheduleExpression }),
        State: rule.enabled ? 'ENABLED' : 'DISABLED',
        ...(rule.description === undefined ? {} : { Description: rule.description }),
        EventBusName: bus.name,
      })),
  };
}

/** ListArchives and ListReplays: "Filter parameters are exclusive" (their API references). */
function exclusiveFilters(body: Record<string, unknown>, operation: string) {
  const prefix = optionalString(body, 'NamePrefix');
  const source = optionalString(body, 'EventSourceArn');
  const state = optionalString(body, 'State');
  if ([prefix, source, state].filter((filter) => filter !== undefined).length > 1) {
    throw new AwsApiError(
      'ValidationException',
      `At most one filter is allowed for ${operation}. Use either : State, EventSourceArn, or NamePrefix.`,
    );
  }
  return { prefix, source, state };
}

/** ListArchives, filtered by one of NamePrefix, EventSourceArn, State. */
function listArchives(archives: LocalArchives, body: Record<string, unknown>) {
  const { prefix, source, state } = exclusiveFilters(body, 'ListArchives');
  return {
    Archives: archives
      .archives()
      .filter(
        (archive) =>
          (prefix === undefined || archive.name.startsWith(prefix)) &&
          (source === undefined || archive.bus.arn === source) &&
          (state === undefined || state === 'ENABLED'),
      )
      .map((archive) => ({
        ArchiveName: archive.name,
        EventSourceArn: archive.bus.arn,
        State: 'ENABLED',
        RetentionDays: archive.retentionDays,
        SizeBytes: archive.sizeBytes,
        EventCount: archive.eventCount,
        CreationTime: epochSeconds(archive.creationTime),
      })),
  };
}

function describeArchive(archive: EventArchive) {
  return {
    ArchiveArn: archive.arn,
    ArchiveName: archive.name,
    EventSourceArn: archive.bus.arn,
    ...(archive.description === undefined ? {} : { Description: archive.description }),
    ...(archive.eventPattern === undefined ? {} : { EventPattern: archive.eventPattern }),
    State: 'ENABLED',
    RetentionDays: archive.retentionDays,
    SizeBytes: archive.sizeBytes,
    EventCount: archive.eventCount,
    CreationTime: epochSeconds(archive.creationTime),
  };
}

function startReplay(archives: LocalArchives, body: Record<string, unknown>) {
  const destination = body['Destination'];
  if (typeof destination !== 'object' || destination === null || Array.isArray(destination)) {
    throw new AwsApiError(
      'ValidationException',
      "1 validation error detected: Value null at 'destination' failed to satisfy constraint: Member must not be null",
    );
  }
  const { Arn: destinationArn, FilterArns: filterArns } = destination as Record<string, unknown>;
  if (typeof destinationArn !== 'string' || destinationArn === '') {
    throw new AwsApiError(
      'ValidationException',
      "1 validation error detected: Value null at 'destination.arn' failed to satisfy constraint: Member must not be null",
    );
  }
  if (
    filterArns !== undefined &&
    (!Array.isArray(filterArns) || filterArns.some((arn) => typeof arn !== 'string'))
  ) {
    throw new AwsApiError('ValidationException', 'Destination.FilterArns must be a list of rule ARNs');
  }
  const description = optionalString(body, 'Description');
  const replay = archives.start({
    name: requiredString(body, 'ReplayName'),
    ...(description === undefined ? {} : { description }),
    archiveArn: requiredString(body, 'EventSourceArn'),
    eventStartTime: requiredTime(body, 'EventStartTime'),
    eventEndTime: requiredTime(body, 'EventEndTime'),
    destinationArn,
    ...(filterArns === undefined ? {} : { filterArns: filterArns as string[] }),
  });
  return {
    ReplayArn: replay.arn,
    State: replay.state,
    ...(replay.stateReason === undefined ? {} : { StateReason: replay.stateReason }),
    ReplayStartTime: epochSeconds(replay.replayStartTime),
  };
}

function describeReplay(replay: Replay) {
  return {
    ReplayName: replay.name,
    ReplayArn: replay.arn,
    ...(replay.description === undefined ? {} : { Description: replay.description }),
    ...replaySummary(replay),
    Destination: {
      Arn: replay.destination.arn,
      ...(replay.destination.filterArns ? { FilterArns: [...replay.destination.filterArns] } : {}),
    },
  };
}

/** ListReplays, filtered by one of NamePrefix, EventSourceArn, State. */
function listReplays(archives: LocalArchives, body: Record<string, unknown>) {
  const { prefix, source, state } = exclusiveFilters(body, 'ListReplays');
  return {
    Replays: archives
      .replays()
      .filter(
        (replay) =>
          (prefix === undefined || replay.name.startsWith(prefix)) &&
          (source === undefined || replay.archive.arn === source) &&
          (state === undefined || replay.state === state),
      )
      .map((replay) => ({ ReplayName: replay.name, ...replaySummary(replay) })),
  };
}

function replaySummary(replay: Replay) {
  return {
    EventSourceArn: replay.archive.arn,
    State: replay.state,
    ...(replay.stateReason === undefined ? {} : { StateReason: replay.stateReason }),
    EventStartTime: epochSeconds(replay.eventStartTime),
    EventEndTime: epochSeconds(replay.eventEndTime),
    ...(replay.eventLastReplayedTime === undefined
      ? {}
      : { EventLastReplayedTime: epochSeconds(replay.eventLastReplayedTime) }),
    ReplayStartTime: epochSeconds(replay.replayStartTime),
    ...(replay.replayEndTime === undefined ? {} : { ReplayEndTime: epochSeconds(replay.replayEndTime) }),
  };
}

function busNamed(options: EventsApiOptions, named: unknown): EventBus {
  const name =
    typeof named === 'string' && named !== '' ? named.slice(named.lastIndexOf('/') + 1) : 'default';
  const bus = options.buses.get(name);
  if (!bus) throw new AwsApiError('ResourceNotFoundException', `Event bus ${name} does not exist.`);
  return bus;
}

/** AWS JSON 1.1 timestamps: epoch seconds (fractions allowed). */
function epochSeconds(at: Date): number {
  return at.getTime() / 1000;
}

function requiredString(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') {
    throw new AwsApiError(
      'ValidationException',
      `1 validation error detected: Value null at '${field.charAt(0).toLowerCase()}${field.slice(1)}' failed to satisfy constraint: Member must not be null`,
    );
  }
  return value;
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A timestamp field: epoch seconds as the SDK sends them, or an ISO string. */
function requiredTime(body: Record<string, unknown>, field: string): Date {
  const value = body[field];
  const at =
    typeof value === 'number'
      ? new Date(value * 1000)
      : typeof value === 'string'
        ? new Date(value)
        : undefined;
  if (!at || Number.isNaN(at.getTime())) {
    throw new AwsApiError(
      'ValidationException',
      `1 validation error detected: Value at '${field.charAt(0).toLowerCase()}${field.slice(1)}' failed to satisfy constraint: Member must be a timestamp`,
    );
  }
  return at;
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
    const verdict = options.faults?.take(asEntry(raw)) ?? readEntry(asEntry(raw), options, now);
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
  if ((entry.Source as string).startsWith(RESERVED_SOURCE_PREFIX)) {
    return { ErrorCode: 'NotAuthorizedForSourceException', ErrorMessage: 'Not authorized for the source.' };
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
