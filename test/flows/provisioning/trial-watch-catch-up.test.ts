import type { Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { listAnnouncedThresholds } from '#functions/store/thresholds.ts';
import type { TrialWatchReport } from '#functions/trial-watch/trial-watch.ts';
import {
  flowDependencies,
  provisionAccount,
  runTrialWatch,
  sandboxNow,
  scheduledEvent,
  uniqueAccountId,
  useFlowHarness,
} from '#test/flows/support/harness.ts';
import { lambdaContext } from '#test/support/lambda-context.ts';

/**
 * A watch that runs late (first sight at 2 days left), runs out of time, and cannot publish. The
 * `it`s share the sandbox clock and run in order.
 */

const flow = useFlowHarness();
const accounts = Array.from({ length: 5 }, (_, index) => uniqueAccountId(`late-${index}`));

beforeAll(async () => {
  for (const accountId of accounts) await provisionAccount(flow, accountId);
});

/** A Lambda context with only `remainingMs` left. */
function contextWithRemaining(remainingMs: number): Context {
  return {
    ...lambdaContext('trial-watch', { timeoutMs: 300_000 }),
    getRemainingTimeInMillis: () => remainingMs,
  };
}

describe('trial watch catching up', () => {
  it('starts nothing when the Lambda is already short of time, leaving every due business to the next run', async () => {
    // Prepare
    await flow.sandbox('POST', '/_sandbox/clock', { advanceDays: 28 });

    // Act
    const report = (await flow.invoke(
      'trial-watch',
      scheduledEvent(await sandboxNow(flow)),
      contextWithRemaining(5_000),
    )) as TrialWatchReport;

    // Assess
    expect(report).toMatchObject({ processed: 0, remaining: 5, complete: false });
    expect(flow.published('TrialExpiring')).toEqual([]);
  });

  it('stops starting businesses once time runs low mid-page and reports the rest as remaining', async () => {
    // Prepare: one at a time, and the time check fails from the third business on.
    const { trialWatch } = await import('#functions/trial-watch/trial-watch.ts');
    let checks = 0;
    const remainingTimeMs = () => {
      checks += 1;
      return checks <= 2 ? 300_000 : 1_000;
    };

    // Act
    const report = await trialWatch(
      { runId: 'short-run', scheduledTime: await sandboxNow(flow), remainingTimeMs },
      await flowDependencies(),
      { concurrency: 1 },
    );

    // Assess
    expect(report).toMatchObject({ processed: 2, remaining: 3, complete: false, expiringAnnounced: 2 });
    expect(flow.published('TrialExpiring')).toHaveLength(2);
  });

  it('announces only the most urgent threshold crossed, with the real days left, and claims the larger one silently', async () => {
    // Act: the next run finishes the job.
    const report = await runTrialWatch(flow, await sandboxNow(flow));

    // Assess
    expect(report).toMatchObject({ processed: 5, remaining: 0, complete: true, expiringAnnounced: 3 });
    for (const accountId of accounts) {
      expect(flow.publishedFor(accountId, 'TrialExpiring').map((event) => event.detail['daysLeft'])).toEqual([
        2,
      ]);
      const trialEndDate = String(flow.publishedFor(accountId, 'TrialExpiring')[0]?.detail['trialEndDate']);
      expect((await listAnnouncedThresholds(flow.store, accountId, trialEndDate)).sort()).toEqual([3, 7]);
    }
  });

  it('releases the claim when publishing fails, so the next run announces it', async () => {
    // Prepare: the use case with the deployment's collaborators, but a bus that refuses every entry.
    await flow.sandbox('POST', '/_sandbox/clock', { advanceDays: 1 });
    const { RetryableError } = await import('#functions/domain/errors.ts');
    const { trialWatch } = await import('#functions/trial-watch/trial-watch.ts');
    const dependencies = await flowDependencies();
    const brokenBus = {
      ...dependencies,
      publisher: {
        publish: () => Promise.reject(new RetryableError('PUBLISH_FAILED', 'bus unavailable')),
      },
    };
    const now = await sandboxNow(flow);

    // Act
    const failed = await trialWatch(
      { runId: 'broken-run', scheduledTime: now, remainingTimeMs: () => 300_000 },
      brokenBus,
    );
    const retried = await runTrialWatch(flow, now);

    // Assess
    expect(failed).toMatchObject({ failed: 5, expiringAnnounced: 0 });
    expect(retried).toMatchObject({ failed: 0, expiringAnnounced: 5 });
    for (const accountId of accounts) {
      expect(flow.publishedFor(accountId, 'TrialExpiring').map((event) => event.detail['daysLeft'])).toEqual([
        2, 1,
      ]);
    }
  });

  it('falls back to the clock when the scheduled time cannot be read', async () => {
    // Prepare: real time is 29 days before the sandbox clock, so nothing is due by the real clock.
    const { trialWatch } = await import('#functions/trial-watch/trial-watch.ts');

    // Act
    const report = await trialWatch(
      { runId: 'clockless', scheduledTime: 'not-a-time', remainingTimeMs: () => 300_000 },
      await flowDependencies(),
    );

    // Assess
    expect(Date.parse(report.now)).toBeGreaterThan(Date.now() - 60_000);
    expect(report).toMatchObject({ itemsRead: 0, processed: 0 });
  });
});
