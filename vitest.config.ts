import { defineConfig } from 'vitest/config';

// Forks, not threads: the tests' last-resort cleanup of the child processes they start listens for
// SIGTERM and SIGINT (test/support/process-groups.ts), which a worker thread never receives.
export default defineConfig({
  test: {
    pool: 'forks',
    // The functions' deployed bundles are imported as Node imports them (local/function-bundles.ts),
    // not transformed again by Vitest, which would inline (transform and evaluate) each bundle anew.
    // A cloud assembly's function assets (`startLocalRuntime({ assembly })`) are loaded the same way.
    server: { deps: { external: [/\/\.tmp\/function-bundles\//, /\/asset\.[0-9a-f]{64}\//] } },
    // Three forks on CI's two cores: a test file spends part of its time waiting (on its servers,
    // queues and child processes), which a third file's work fills.
    //
    // Test files share the forks (`isolate: false`): each fork runs file after file with the modules
    // it loaded; what one file could leave to the next is undone or kept apart (README,
    // "Development"). The forks stay up until the run ends (minForks = maxForks): with fewer, the
    // pool tears a fork down when it goes idle near the end, and every such run here ended in
    // tinypool's unhandled "Terminating worker thread", which fails the run.
    poolOptions: { forks: { maxForks: 3, minForks: 3, isolate: false } },
    // This machine runs Node 20; Lambda runs Node 24. The SDK's Node-version notice is noise here.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    testTimeout: 30_000,
    // Test results, not logs: what a test file writes (the handlers' Powertools logs and metrics, a
    // test's console) is shown only under a test that failed (test/support/quiet-output.ts).
    // Any call the template's IAM denied fails its test file (test/support/iam-denials.ts).
    // What a test file finds when it starts in a fork that earlier files used (test/support/file-start.ts).
    setupFiles: ['test/support/file-start.ts', 'test/support/quiet-output.ts', 'test/support/iam-denials.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    silent: 'passed-only',
    // One line per test file; a test is listed on its own only when it takes longer than this.
    slowTestThreshold: 30_000,
    hookTimeout: 60_000,
    // The JSON report lets .ci/run print a plain 'N passed, N failed' closing line.
    reporters: ['default', ['json', { outputFile: '.tmp/vitest-results.json' }]],
    include: ['test/**/*.test.ts'],
  },
});
