import { describeReplayEndToEnd } from './replay-end-to-end.ts';

/**
 * Replays from the archive through the connector run from its template, when a replayed event gets
 * a new id (the runtime's default): the handlers' content markers, not their id-keyed idempotency
 * records, keep a replay from applying anything twice. replay-kept-ids.test.ts runs the other case.
 */
describeReplayEndToEnd(false);
