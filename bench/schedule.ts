/**
 * The order a raw replay keeps (bench/recorder.ts replay, and the generated raw references of
 * bench/first-invocation.ts, which import this module): no imports, so a generated module bundles it
 * as it is.
 */

/** A recorded request, and the earlier ones (their indexes in the same order) it waits for. */
export interface ScheduledRequest<T> {
  readonly request: T;
  readonly after: readonly number[];
}

/** A request never answered while recording (endedAt unset, 0) never ended. */
export function ended(request: { startedAt: number; endedAt: number }): boolean {
  return request.endedAt >= request.startedAt;
}

/**
 * The order a replay keeps: by start time, each request waiting for every request that had ended
 * when it started in the recording (it may have needed its answer: a budget take before its service
 * call), and for no other (requests that were in flight together are sent together). Grouping every
 * chain of overlapping requests instead sent a request before the one it had waited for: two
 * timesheets read at once, each a take then a query, went out as four requests at once, quicker
 * than any client that must wait for the take.
 */
export function replaySchedule<T extends { startedAt: number; endedAt: number }>(
  requests: readonly T[],
): ScheduledRequest<T>[] {
  const sorted = [...requests].sort((a, b) => a.startedAt - b.startedAt);
  // Nothing waited for a request that never ended.
  return sorted.map((request, index) => ({
    request,
    after: sorted.flatMap((earlier, at) =>
      at < index && ended(earlier) && earlier.endedAt <= request.startedAt ? [at] : [],
    ),
  }));
}

/**
 * Runs `send` over a schedule: each request once those it waits for are answered. Settles only
 * when every request has (a failed one fails its waiters, the rest still go out), then throws the
 * first failure: a replay never returns with requests still in flight.
 */
export async function runSchedule<T, R>(
  schedule: readonly ScheduledRequest<T>[],
  send: (request: T) => Promise<R>,
): Promise<R[]> {
  const sent: Promise<R>[] = [];
  for (const { request, after } of schedule) {
    sent.push(Promise.all(after.map((at) => sent[at])).then(() => send(request)));
  }
  const settled = await Promise.allSettled(sent);
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<R>).value);
}
