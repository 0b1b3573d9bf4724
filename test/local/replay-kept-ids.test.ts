import { describeReplayEndToEnd } from './replay-end-to-end.ts';

/**
 * Replays from the archive through the connector run from its template, when a replayed event keeps
 * its original id (AWS does not document which): the route FIFO queues and the handlers must keep a
 * replay from applying anything twice either way. replay-new-ids.test.ts runs the default case.
 */
describeReplayEndToEnd(true);
