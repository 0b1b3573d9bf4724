import * as z from 'zod';

/**
 * `part` / `parts` of an answer that may not fit one event: EventBridge refuses an entry over
 * 256 KB, so a long answer is published as several events of the same detail-type, numbered
 * 1..parts, each complete in itself (the request's context repeated, the lists split). A consumer
 * has the whole answer once it holds parts 1..parts of the same `answerId`.
 */
export const partFields = {
  /**
   * One id per answer, the same on each of its parts: a request answered again (a retry after a
   * failed publish) gets a new one, so parts of different attempts are never put together.
   */
  answerId: z.uuid(),
  /** 1-based number of this event among the answer's events. */
  part: z.int().min(1),
  /** How many events the answer was split into (1 when it fit one). */
  parts: z.int().min(1),
};

/** A refinement for a schema with `partFields`: a part number never exceeds the count. */
export function checkPartNumber(detail: { part: number; parts: number }, ctx: z.RefinementCtx): void {
  if (detail.part > detail.parts) {
    ctx.addIssue({ code: 'custom', path: ['part'], message: 'must not exceed parts' });
  }
}
