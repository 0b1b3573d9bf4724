import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { type Claim, claimMarker, releaseMarker, writeIfConditionHolds } from './claims.ts';
import { installPartition, TIMESHEET_FIELD_PREFIX, timesheetFieldKey } from './keys.ts';
import { queryAll } from './query-all.ts';
import { normalizeTimestamp, type Store } from './store.ts';

/**
 * Which event creates the timesheet custom field definition of an apiName in an install. The
 * service's definitions are the truth of what exists (they are read before every create); the
 * marker adds two things a read cannot: only one runner at a time may send the create of one
 * apiName, and a redelivery after a crash between the create and its record still reports the
 * definition as created by its own event, not as one it found.
 *
 * DEFINING: the create may have been sent. DEFINED: it was answered (definitionId when the answer
 * carried one). Kept without expiry: a definition is never removed by the connector.
 */

const markerSchema = z.object({
  apiName: z.string(),
  status: z.enum(['DEFINING', 'DEFINED']),
  eventId: z.string(),
  claimedAt: z.string(),
  definitionId: z.union([z.number(), z.string()]).optional(),
});

export type TimesheetFieldMarker = z.infer<typeof markerSchema>;

/** Every marker of the install, by apiName (one Query of its partition's prefix). */
export async function timesheetFieldMarkers(
  store: Store,
  hostname: string,
): Promise<Map<string, TimesheetFieldMarker>> {
  const markers = await queryAll(
    store,
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': installPartition(hostname), ':prefix': TIMESHEET_FIELD_PREFIX },
      ConsistentRead: true,
    },
    (item) => markerSchema.parse(item),
  );
  return new Map(markers.map((marker) => [marker.apiName, marker]));
}

/** Claims the create of `apiName` for `eventId`; the loser gets the marker it lost to. */
export function claimTimesheetField(
  store: Store,
  hostname: string,
  intent: { apiName: string; eventId: string; at: Date },
  read: () => Promise<TimesheetFieldMarker | undefined>,
): Promise<Claim<TimesheetFieldMarker>> {
  return claimMarker(
    store,
    {
      ...timesheetFieldKey(hostname, intent.apiName),
      type: 'TimesheetField',
      hostname,
      apiName: intent.apiName,
      status: 'DEFINING',
      eventId: intent.eventId,
      claimedAt: normalizeTimestamp(intent.at),
    },
    { parse: (item) => markerSchema.parse(item), read },
  );
}

/**
 * Takes over a marker whose definition the service does not list (its holder's create did
 * nothing, or the definition was removed in the product since), while the marker is still the
 * one examined. False when another runner changed it meanwhile: that one sends the create.
 */
export function takeOverTimesheetField(
  store: Store,
  hostname: string,
  held: TimesheetFieldMarker,
  next: { eventId: string; at: Date },
): Promise<boolean> {
  return writeIfConditionHolds(() =>
    store.doc.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: timesheetFieldKey(hostname, held.apiName),
        UpdateExpression: 'SET #status = :defining, eventId = :next, claimedAt = :at REMOVE definitionId',
        ConditionExpression: 'eventId = :held AND claimedAt = :heldAt',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':defining': 'DEFINING',
          ':next': next.eventId,
          ':at': normalizeTimestamp(next.at),
          ':held': held.eventId,
          ':heldAt': held.claimedAt,
        },
      }),
    ),
  );
}

/** Records the answered create; only the holding event may. */
export async function recordTimesheetFieldDefined(
  store: Store,
  hostname: string,
  marker: { apiName: string; eventId: string; definitionId?: number | string },
): Promise<void> {
  const withId = marker.definitionId !== undefined;
  await store.doc.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: timesheetFieldKey(hostname, marker.apiName),
      UpdateExpression: `SET #status = :defined${withId ? ', definitionId = :id' : ''}`,
      ConditionExpression: 'eventId = :eventId',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':defined': 'DEFINED',
        ':eventId': marker.eventId,
        ...(withId ? { ':id': marker.definitionId } : {}),
      },
    }),
  );
}

/** Drops this event's DEFINING marker after a refusal (the service created nothing). */
export function releaseTimesheetField(
  store: Store,
  hostname: string,
  marker: { apiName: string; eventId: string },
): Promise<boolean> {
  return releaseMarker(
    store,
    { key: timesheetFieldKey(hostname, marker.apiName) },
    { claimedStatus: 'DEFINING', eventId: marker.eventId },
  );
}
