import { PermanentError } from '#functions/domain/errors.ts';
import { MAX_ENTRY_BYTES } from '#functions/publisher/publisher.ts';

/**
 * Splitting an answer over several events when one would exceed EventBridge's entry limit.
 *
 * EventBridge refuses a PutEvents entry over 256 KB, counting the UTF-8 bytes of Source,
 * DetailType and Detail plus 14 bytes for Time (its "Calculating PutEvents event entry size"
 * page). An answer made of long lists is therefore published as parts: every part carries the
 * request's context, the lists are cut between entries, and `part` / `parts` number them.
 */

/** Time (14 bytes). The use cases put causationId (the event id) in the context themselves, so it is measured. */
const RUNTIME_ALLOWANCE_BYTES = 14;

/** Bytes a detail's JSON may take in an entry of this source and detail-type. */
export function detailRoomBytes(source: string, detailType: string): number {
  return (
    MAX_ENTRY_BYTES -
    Buffer.byteLength(source, 'utf8') -
    Buffer.byteLength(detailType, 'utf8') -
    RUNTIME_ALLOWANCE_BYTES
  );
}

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** One list entry (or the context) alone does not fit an event: no split helps, nor does a retry. */
export class EntryTooLargeError extends PermanentError {
  constructor(message: string) {
    super('ENTRY_TOO_LARGE', message);
  }
}

export type Parted<T> = T & { part: number; parts: number };

/**
 * Cuts `lists` over as few details as fit `roomBytes` each, keeping every list's order: part 1
 * holds the first entries, the last part the last ones. Each part is `base` plus every list
 * (possibly empty there) plus `firstPart` on part 1 only. An answer with no entries is one part.
 *
 * Sizes are added up rather than serialized per candidate: the empty lists and the largest
 * part numbers are counted in the fixed size, then each entry adds its own JSON and a comma,
 * which is an upper bound of the real detail's size.
 */
export function splitIntoParts<Base extends object, Lists extends Record<string, readonly unknown[]>>(
  base: Base,
  lists: Lists,
  roomBytes: number,
  firstPart: Record<string, unknown> = {},
): Array<Parted<Base & { [K in keyof Lists]: Lists[K][number][] }>> {
  const names = Object.keys(lists) as Array<keyof Lists & string>;
  const empty = Object.fromEntries(names.map((name) => [name, []]));
  // Part numbers are counted at their widest, so no part grows once they are filled in.
  const placeholder = { part: Number.MAX_SAFE_INTEGER, parts: Number.MAX_SAFE_INTEGER };
  const fixedBytes = jsonBytes({ ...base, ...empty, ...placeholder });
  const firstBytes = jsonBytes({ ...base, ...empty, ...firstPart, ...placeholder });
  if (firstBytes > roomBytes) {
    throw new EntryTooLargeError(
      `the answer's context takes ${firstBytes} bytes, more than an event's ${roomBytes}`,
    );
  }

  type Chunk = Record<string, unknown[]>;
  const chunks: Chunk[] = [];
  let current: Chunk = Object.fromEntries(names.map((name) => [name, [] as unknown[]]));
  let currentBytes = firstBytes;
  let currentCount = 0;
  for (const name of names) {
    for (const entry of lists[name] ?? []) {
      const bytes = jsonBytes(entry) + 1;
      // A part is closed when the entry does not fit and the part holds something (entries, or
      // part 1's own fields); an entry too large for an empty part cannot be published at all.
      if (currentBytes + bytes > roomBytes && (currentCount > 0 || currentBytes > fixedBytes)) {
        chunks.push(current);
        current = Object.fromEntries(names.map((other) => [other, [] as unknown[]]));
        currentBytes = fixedBytes;
        currentCount = 0;
      }
      if (currentBytes + bytes > roomBytes) {
        throw new EntryTooLargeError(
          `one ${name} entry takes ${bytes - 1} bytes, more than the ${roomBytes - fixedBytes} an event has beside the answer's context`,
        );
      }
      current[name]?.push(entry);
      currentBytes += bytes;
      currentCount += 1;
    }
  }
  chunks.push(current);
  return chunks.map(
    (chunk, index) =>
      ({
        ...base,
        ...chunk,
        ...(index === 0 ? firstPart : {}),
        part: index + 1,
        parts: chunks.length,
      }) as unknown as Parted<Base & { [K in keyof Lists]: Lists[K][number][] }>,
  );
}
