import { describe, expect, it } from 'vitest';
import { restoreEnvironment } from '#test/support/worker-environment.ts';

/**
 * Test files share worker processes (vitest.config.ts); each starts from the environment its
 * process started with (test/support/file-start.ts), whatever an earlier file changed.
 */
describe('the environment a test file starts with', () => {
  it('is the worker’s first: what an earlier file added is gone, what it changed or removed is back', () => {
    // Prepare: the worker's first environment, and what an earlier file (its local runtime) left.
    const baseline = {
      PATH: '/usr/bin',
      HOME: '/root',
      LANG: 'C.UTF-8',
      VITEST_POOL_ID: '1',
      VITEST_WORKER_ID: '1',
    };
    const environment: Record<string, string | undefined> = {
      PATH: '/usr/bin',
      TABLE_NAME: 'acme-prod-connector',
      AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:4501',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      HOME: '/elsewhere',
      VITEST_POOL_ID: '1',
      VITEST_WORKER_ID: '7',
    };

    // Act
    restoreEnvironment(environment, baseline);

    // Assess: Vitest's id for the file now starting stays as Vitest set it.
    expect(environment).toEqual({
      PATH: '/usr/bin',
      HOME: '/root',
      LANG: 'C.UTF-8',
      VITEST_POOL_ID: '1',
      VITEST_WORKER_ID: '7',
    });
  });
});
