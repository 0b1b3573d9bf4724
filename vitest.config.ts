import { defineConfig } from 'vitest/config';

// Two cores on CI: forks keep dynalite/sandbox servers isolated per file.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // This machine runs Node 20; Lambda runs Node 24. The SDK's Node-version notice is noise here.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The JSON report lets .ci/run print a plain 'N passed, N failed' closing line.
    reporters: ['default', ['json', { outputFile: '.tmp/vitest-results.json' }]],
  },
});
