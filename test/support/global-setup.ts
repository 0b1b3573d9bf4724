import { queueRoutes, refusalFunction, scheduledFunctions } from '#functions/routes.ts';
import { functionBundle } from '#local/function-bundles.ts';

/**
 * Once before any test file runs (vitest.config.ts `globalSetup`): the deployed bundle of every
 * function the template has, which every local runtime of the run imports in its execution
 * environments (local/function-bundles.ts). Built here, in one process and all at once, instead
 * of by whichever test worker needs one first (both workers at once on a clean clone).
 */
export default async function buildFunctionBundles(): Promise<void> {
  const entries = [...queueRoutes, ...scheduledFunctions, refusalFunction].map((fn) => fn.entry);
  await Promise.all(entries.map((entry) => functionBundle(entry)));
}
