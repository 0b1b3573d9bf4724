import { createHash } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { appliedEventKey } from './keys.ts';
import { epochSeconds, type Store } from './store.ts';

/**
 * What makes a replay from the EventBridge archive change nothing that was already applied.
 *
 * A replayed event carries `replay-name` ("When EventBridge sends an event from an archive to the
 * source event bus during a replay, it adds a metadata field to the event, replay-name", EventBridge
 * user guide, "Archiving and replaying events"). Whether it keeps its original `id` is not
 * documented, so the idempotency records (keyed on the id) cannot be relied on: every applied
 * event also leaves a marker keyed on what identifies it apart from its id — detail-type, event
 * `time` and detail — and a replayed event (or a late one, such as a redrive of a record that gave
 * up after a replay applied it) whose marker exists is acknowledged without running again. The
 * marker lives as long as the archive keeps events (`REPLAY_MARKER_TTL_SECONDS`).
 *
 * The `time` is part of the key because replays select on it ("based on the time in the event",
 * StartReplay: "Only events that occurred between the EventStartTime and EventEndTime are
 * replayed"), so a replayed event carries its original time; and without it two events of the
 * same content (A, B, then A again) would be taken for one. Should a replay ever change `time`,
 * its events would run again: the use cases' own guards (claims, slots, markers around creates)
 * still hold, but a plan or a field could be set back to an older value (docs/reliability.md).
 */

/** Canonical JSON: object keys sorted at every level, so equal details give equal digests. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonical(field)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function contentDigest(detailType: string, time: string, detail: unknown): string {
  return createHash('sha256')
    .update(detailType)
    .update('\n')
    .update(new Date(time).toISOString())
    .update('\n')
    .update(canonical(detail))
    .digest('hex');
}

export async function markApplied(
  store: Store,
  event: { id: string; detailType: string; time: string; detail: unknown },
  options: { at: Date; ttlSeconds: number },
): Promise<void> {
  await store.doc.send(
    new PutCommand({
      TableName: store.tableName,
      Item: {
        ...appliedEventKey(event.detailType, contentDigest(event.detailType, event.time, event.detail)),
        eventId: event.id,
        appliedAt: options.at.toISOString(),
        ttl: epochSeconds(options.at) + options.ttlSeconds,
      },
    }),
  );
}

/** The id of the event that applied this content, when one did (and its marker has not expired). */
export async function appliedEventId(
  store: Store,
  event: { detailType: string; time: string; detail: unknown },
  now: Date,
): Promise<string | undefined> {
  const { Item } = await store.doc.send(
    new GetCommand({
      TableName: store.tableName,
      Key: appliedEventKey(event.detailType, contentDigest(event.detailType, event.time, event.detail)),
      ConsistentRead: true,
    }),
  );
  // DynamoDB deletes expired items lazily ("typically within a few days"): read the TTL too.
  if (!Item || (typeof Item['ttl'] === 'number' && Item['ttl'] < epochSeconds(now))) return undefined;
  return typeof Item['eventId'] === 'string' ? Item['eventId'] : 'unknown';
}
