import { metrics } from '#functions/runtime/observability.ts';
import { restoreEnvironment } from './worker-environment.ts';

/**
 * What a test file finds when it starts in a worker process that earlier files used (test files
 * share worker processes, vitest.config.ts): a setup file, run before each test file.
 *
 * - The environment the process started with. Whatever an earlier file changed (a local runtime
 *   writes its functions' variables, a test names its fake endpoints) is undone here, when the
 *   next file starts, rather than in the earlier file's `afterAll`: a file whose hook fails runs
 *   none of its later ones. Vitest's own variables for the file (`VITEST_*`) stay as it set them.
 * - No metrics left in the functions' process-wide buffer (functions/runtime/observability.ts) by
 *   a use case an earlier file ran in the test process, which nothing published. That module is
 *   loaded here, so its logger and metrics are made with the environment the process started
 *   with, whichever file comes first.
 */
restoreEnvironment(process.env);
metrics.clearMetrics();
