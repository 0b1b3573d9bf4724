import { defineConfig } from 'vitest/config';

// Forks keep each file's servers (dynalite, the sandbox, the local AWS endpoint) in a process of its own.
export default defineConfig({
  test: {
    pool: 'forks',
    // The functions' deployed bundles are imported as Node imports them (local/function-bundles.ts),
    // not transformed again by Vitest, which would inline (transform and evaluate) each bundle anew.
    // A cloud assembly's function assets (`startLocalRuntime({ assembly })`) are loaded the same way.
    server: { deps: { external: [/\/\.tmp\/function-bundles\//, /\/asset\.[0-9a-f]{64}\//] } },
    // Three forks on CI's two cores: a test file spends part of its time waiting (on its servers,
    // queues and child processes), which a third file's work fills.
    poolOptions: { forks: { maxForks: 3, minForks: 1 } },
    // This machine runs Node 20; Lambda runs Node 24. The SDK's Node-version notice is noise here.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    testTimeout: 30_000,
    // Test results, not logs: what a test file writes (the handlers' Powertools logs and metrics, a
    // test's console) is shown only under a test that failed (test/support/quiet-output.ts).
    // Any call the template's IAM denied fails its test file (test/support/iam-denials.ts).
    setupFiles: ['test/support/quiet-output.ts', 'test/support/iam-denials.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    silent: 'passed-only',
    // One line per test file; a test is listed on its own only when it takes longer than this.
    slowTestThreshold: 30_000,
    hookTimeout: 60_000,
    // The JSON report lets .ci/run print a plain 'N passed, N failed' closing line.
    reporters: ['default', ['json', { outputFile: '.tmp/vitest-results.json' }]],
    projects: [
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'] } },
      {
        // Flow files that run one sandbox mode per process (test/flows/support/harness.ts
        // forEachSandboxMode onePerProcess) run again here in strict mode; every other flow file
        // runs both modes itself. test/foundation/layout.test.ts keeps this list true.
        extends: true,
        test: {
          name: 'strict-sandbox',
          include: [
            'test/flows/install/provision-location.test.ts',
            'test/flows/install/sync-employee.test.ts',
            'test/flows/install/timesheet-fields.test.ts',
            'test/flows/install/pay-rate-assigned.test.ts',
            'test/flows/provisioning/drift-watch.test.ts',
            'test/flows/provisioning/trial-watch-catch-up.test.ts',
            'test/flows/provisioning/trial-watch-scale.test.ts',
          ],
          env: { SANDBOX_STRICT: '1' },
        },
      },
    ],
  },
});
