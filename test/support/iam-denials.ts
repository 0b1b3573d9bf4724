import { afterAll } from 'vitest';
import { unexpectedDenials } from '#local/iam/denial-log.ts';

/**
 * Every test runs its local runtimes with the template's IAM enforced (local/iam/), and a test file
 * none of whose calls AWS would have refused is the only kind that passes: after each file, any call
 * the enforcement denied fails it, naming who was denied what, unless the file denies on purpose
 * (`expectDenials()`, local/iam/denial-log.ts: the tests of a template with a grant removed).
 * A handler that swallows an AccessDenied and goes on would otherwise pass here and fail on AWS.
 */
// What an earlier file in this worker process left (its guard did not run: another of its
// `afterAll` hooks failed first) is not this file's, nor is its `expectDenials()`.
unexpectedDenials();

afterAll(() => {
  const denials = unexpectedDenials();
  if (denials.length === 0) return;
  const shown = denials
    .slice(0, 5)
    .map(({ principal, action, resource, reason }) => `  - ${principal}: ${action} on ${resource} ${reason}`);
  throw new Error(
    `${denials.length} AWS call(s) denied by the template's IAM (local/iam/):\n${shown.join('\n')}${
      denials.length > 5 ? `\n  … and ${denials.length - 5} more` : ''
    }`,
  );
});
