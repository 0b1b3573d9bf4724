import {
  TIMESHEET_FIELD_LIMIT,
  type TimesheetFieldInput,
  type TimesheetFieldsDefinedDetail,
} from '#functions/contracts/inbound/timesheet-fields-defined.ts';
import type { TimesheetFieldsSyncedDetail } from '#functions/contracts/outbound/timesheet-fields-synced.ts';
import { OutcomeUnknownError, PermanentError, ServiceRejectedError } from '#functions/domain/errors.ts';
import { provisionedBusinessOf } from '#functions/domain/provisioned-business.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import type { UseCaseInput } from '#functions/runtime/use-case.ts';
import type { ListedTimesheetField, TimesheetFieldDefinition } from '#functions/service/assumed-calls.ts';
import type { InstallClient } from '#functions/service/install.ts';
import { recordSyncSuccess } from '#functions/store/business.ts';
import {
  claimTimesheetField,
  recordTimesheetFieldDefined,
  releaseTimesheetField,
  type TimesheetFieldMarker,
  takeOverTimesheetField,
  timesheetFieldMarkers,
} from '#functions/store/timesheet-fields.ts';

type Defined = TimesheetFieldsSyncedDetail['created'][number];
type Refused = TimesheetFieldsSyncedDetail['refused'][number];

/**
 * defineTimesheetFields — TimesheetFieldsDefined → the missing timesheet custom field definitions →
 * TimesheetFieldsSynced.
 *
 * Input: the TimesheetFieldsDefined detail (accountId, fields [{apiName, name, type, validation?,
 * valuelist?, areaIds?}] 1–128, apiNames distinct; types and list values checked by the contract).
 * Output: one `TimesheetFieldsSynced` {hostname, created, existing, refused, total, limit}.
 *
 * Steps:
 * 1. Resolve the account's install from the table (never from the event); no ACTIVE business →
 *    waits, fails or counts as provisionedBusinessOf says.
 * 2. Read the install's timesheet custom field definitions (one QUERY on the configured resource,
 *    which must be complete: a cut list would make a second definition of one apiName) and this
 *    install's markers (one Query).
 * 3. The event's fields the install has are `existing` (left as they are: the service shows no
 *    update), or `created` when this very event's marker names them (an earlier attempt created
 *    them and stopped before answering).
 * 4. Definitions after this event = listed + missing; over the service's 128 →
 *    TIMESHEET_FIELD_LIMIT naming the limit and the counts, before anything is created.
 * 5. Per missing field, in the event's order: claim its marker, create, record. A marker of
 *    another event is not taken while its claim is fresh and unanswered (its create may be in
 *    flight: the event is retried); otherwise the definitions are read again (found → existing)
 *    and only a definition still missing is taken over. A refusal → `refused` with the service's
 *    code (the marker is dropped, the other fields are still created); a lost answer → the
 *    definitions are read again: listed → created, not yet → retried with the marker kept (the
 *    redelivery reads again first).
 */
export async function defineTimesheetFields(
  { event, detail }: UseCaseInput<TimesheetFieldsDefinedDetail>,
  { store, service, clock, interruptions }: Dependencies,
): Promise<OutboundEvent[]> {
  const business = await provisionedBusinessOf(store, detail.accountId);
  const { hostname } = business;
  const install = service.install(hostname);
  const definitions = await install.listTimesheetFields();
  const listed = byApiName(definitions);
  // Every definition counts towards the limit, a namesake made outside the connector too.
  let total = definitions.length;
  const markers = await timesheetFieldMarkers(store, hostname);

  const created: Defined[] = [];
  const existing: Defined[] = [];
  const refused: Refused[] = [];
  const missing: TimesheetFieldInput[] = [];
  for (const field of detail.fields) {
    const found = listed.get(field.apiName);
    if (found === undefined) {
      missing.push(field);
      continue;
    }
    const ours = markers.get(field.apiName)?.eventId === event.id;
    (ours ? created : existing).push(definedOf(found, markers.get(field.apiName)));
  }

  if (total + missing.length > TIMESHEET_FIELD_LIMIT) {
    throw new PermanentError(
      'TIMESHEET_FIELD_LIMIT',
      `fields: the install would have ${total + missing.length} timesheet custom fields and the service allows ${TIMESHEET_FIELD_LIMIT}: ${total} exist, ${missing.length} of the ${detail.fields.length} asked for are new; nothing was created`,
    );
  }

  for (const field of missing) {
    const holding = await holdMarker(
      { store, install, hostname, eventId: event.id, at: clock.now() },
      field.apiName,
    );
    if (holding.kind === 'busy') {
      throw new OutcomeUnknownError(
        `the timesheet field ${field.apiName} is being defined by another event (${holding.by}); retried to read its outcome`,
      );
    }
    if (holding.kind === 'listed') {
      existing.push(definedOf(holding.listed, undefined));
      total += 1;
      continue;
    }
    const outcome = await createField(install, field);
    if (outcome.kind === 'refused') {
      await releaseTimesheetField(store, hostname, { apiName: field.apiName, eventId: event.id });
      refused.push({ apiName: field.apiName, code: outcome.code, message: outcome.message });
      continue;
    }
    // The create is done and not yet recorded: a redelivery finds the definition listed.
    interruptions?.at('define-timesheet-fields.after-create');
    await recordTimesheetFieldDefined(store, hostname, {
      apiName: field.apiName,
      eventId: event.id,
      ...(outcome.definitionId === undefined ? {} : { definitionId: outcome.definitionId }),
    });
    created.push({
      apiName: field.apiName,
      ...(outcome.definitionId === undefined ? {} : { definitionId: outcome.definitionId }),
    });
    total += 1;
  }

  if (created.length > 0) await recordSyncSuccess(store, detail.accountId, clock.now());
  const synced: Omit<TimesheetFieldsSyncedDetail, 'accountId' | 'causationId'> = {
    hostname,
    created,
    existing,
    refused,
    total,
    limit: TIMESHEET_FIELD_LIMIT,
  };
  return [{ detailType: 'TimesheetFieldsSynced', detail: synced }];
}

function byApiName(fields: readonly ListedTimesheetField[]): Map<string, ListedTimesheetField> {
  return new Map(fields.map((field) => [field.apiName, field]));
}

function definedOf(listed: ListedTimesheetField, marker: TimesheetFieldMarker | undefined): Defined {
  const definitionId = listed.definitionId ?? marker?.definitionId;
  return definitionId === undefined ? { apiName: listed.apiName } : { apiName: listed.apiName, definitionId };
}

/**
 * A claim of another event younger than this may still have its create in flight (a route
 * attempt lasts at most its 120 s timeout); an older one ended without recording an answer.
 * Two events of one account do not normally run at once: "Messages within the same message group
 * are always processed one at a time" (Amazon SQS Developer Guide, "Using the message group ID with
 * Amazon SQS FIFO Queues", docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/using-messagegroupid-property.html);
 * the claim covers what that does not (a redrive, a replay next to a live event).
 */
export const TIMESHEET_FIELD_CLAIM_STALE_MS = 15 * 60 * 1000;

type Holding =
  | { kind: 'held' }
  | { kind: 'busy'; by: string }
  | { kind: 'listed'; listed: ListedTimesheetField };

/**
 * Holds the marker of a definition the service did not list: a fresh claim, or this event's own
 * earlier claim (its create did nothing, as the list shows). Another event's marker is the
 * delicate case: while its claim is fresh and unanswered its create may be in flight (`busy`: the
 * event is retried); otherwise the definitions are read again, since the other event may have
 * created it after this event's read (`listed`), and only a definition still not listed is taken
 * over (its create did nothing, or the field was removed in the product).
 */
async function holdMarker(
  context: {
    store: Dependencies['store'];
    install: InstallClient;
    hostname: string;
    eventId: string;
    at: Date;
  },
  apiName: string,
): Promise<Holding> {
  const { store, install, hostname, eventId, at } = context;
  const claim = await claimTimesheetField(store, hostname, { apiName, eventId, at }, async () =>
    (await timesheetFieldMarkers(store, hostname)).get(apiName),
  );
  if (claim.claimed) return { kind: 'held' };
  const held = claim.existing;
  if (held.eventId === eventId && held.status === 'DEFINING') return { kind: 'held' };
  if (held.eventId !== eventId) {
    const age = at.getTime() - Date.parse(held.claimedAt);
    if (held.status === 'DEFINING' && age < TIMESHEET_FIELD_CLAIM_STALE_MS)
      return { kind: 'busy', by: held.eventId };
    const listedNow = (await install.listTimesheetFields()).find((listed) => listed.apiName === apiName);
    if (listedNow !== undefined) return { kind: 'listed', listed: listedNow };
  }
  return (await takeOverTimesheetField(store, hostname, held, { eventId, at }))
    ? { kind: 'held' }
    : { kind: 'busy', by: 'another delivery' };
}

type CreateResult =
  | { kind: 'created'; definitionId?: number | string }
  | { kind: 'refused'; code: string; message: string };

async function createField(install: InstallClient, field: TimesheetFieldInput): Promise<CreateResult> {
  try {
    return { kind: 'created', ...(await install.createTimesheetField(definitionOf(field))) };
  } catch (error) {
    if (error instanceof ServiceRejectedError) {
      return {
        kind: 'refused',
        code: error.serviceCode ?? error.code,
        message: error.message.slice(0, 1024),
      };
    }
    if (!(error instanceof OutcomeUnknownError)) throw error;
    // A lost answer: listed now is conclusive; not listed yet is not (the request may still be
    // applied), so the redelivery reads again with the marker kept.
    const listedNow = (await install.listTimesheetFields()).find(
      (listed) => listed.apiName === field.apiName,
    );
    if (listedNow === undefined) throw error;
    return listedNow.definitionId === undefined
      ? { kind: 'created' }
      : { kind: 'created', definitionId: listedNow.definitionId };
  }
}

/** The service's payload (spec: "Timesheet custom field definition"), without what the event leaves out. */
export function definitionOf(field: TimesheetFieldInput): TimesheetFieldDefinition {
  return {
    ApiName: field.apiName,
    Name: field.name,
    Type: field.type,
    ...(field.validation === undefined ? {} : { Validation: field.validation.join('\n') }),
    ...(field.valuelist === undefined ? {} : { Valuelist: [...field.valuelist] }),
    ...(field.areaIds === undefined ? {} : { OperationUnit: [...field.areaIds] }),
  };
}
