import { defineConfig } from 'vitest/config';

// Forks, not threads: a test file's servers (dynalite, the sandbox, the local AWS endpoint) and local
// runtime use process-wide state (process.env, signals) that worker threads do not have for their own.
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
    // it loaded, so the SDK, the CDK, Powertools and the project's modules load once per fork instead
    // of once per file (README, "Development"). What a file leaves behind is undone where it could
    // reach the next one: the environment
    // (test/support/restore-environment.ts), the SDK clients (one per endpoint,
    // functions/runtime/clients/), a local runtime's handler modules (one per runtime,
    // local/function-host.ts), the IAM guard's expectation (local/iam/denial-log.ts). The forks stay
    // up until the run ends (minForks = maxForks): with fewer, the pool tears a fork down when it
    // goes idle near the end, and every such run here ended in tinypool's unhandled "Terminating
    // worker thread", which fails the run.
    poolOptions: { forks: { maxForks: 3, minForks: 3, isolate: false } },
    // This machine runs Node 20; Lambda runs Node 24. The SDK's Node-version notice is noise here.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    testTimeout: 30_000,
    // Test results, not logs: what a test file writes (the handlers' Powertools logs and metrics, a
    // test's console) is shown only under a test that failed (test/support/quiet-output.ts).
    // Any call the template's IAM denied fails its test file (test/support/iam-denials.ts).
    // The environment a file changed is restored when it ends (test/support/restore-environment.ts).
    setupFiles: [
      'test/support/restore-environment.ts',
      'test/support/quiet-output.ts',
      'test/support/iam-denials.ts',
    ],
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
