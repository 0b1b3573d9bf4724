import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import { getBusiness, TRIAL_EDITION, updateEdition } from '#functions/store/business.ts';
import { recordProvisioned } from '#functions/store/signup.ts';
import { reportSubscriptionStatus } from '#functions/subscription-status/report-subscription-status.ts';
import { useTestStore } from '#test/store/support.ts';

const store = useTestStore();
const PREMIUM = 'SUBSCRIPTION_PAID_PRO_PREMIUM';

/**
 * A status read and a plan change overlap: the read starts, the plan change finishes and records
 * its edition, then the read answers with what the service said before the change. The older
 * answer must not overwrite the newer edition (report-subscription-status.ts takes its time
 * before the call; change-plan takes its own after its call).
 */
describe('an older subscription-status answer and a newer plan change', () => {
  it('keeps the plan change', async () => {
    // Prepare
    const accountId = `acct-race-${randomUUID()}`;
    await recordProvisioned(store, {
      accountId,
      hostname: 'race-1.us.sandbox.test',
      edition: TRIAL_EDITION,
      trialEndDate: '2025-04-01T00:00:00Z',
      region: 'US',
      eventId: randomUUID(),
      at: new Date('2025-03-01T10:00:00Z'),
    });
    const times = ['2025-03-01T10:00:10Z', '2025-03-01T10:00:12Z'].map((time) => new Date(time));
    const dependencies = {
      store,
      clock: { now: () => times.shift() ?? new Date('2025-03-01T10:00:13Z') },
      service: {
        provisioning: {
          subscriptionStatus: async () => {
            // While the read is under way, the plan change lands, recorded after its own call.
            await updateEdition(store, accountId, {
              edition: PREMIUM,
              syncedAt: new Date('2025-03-01T10:00:11Z'),
            });
            return { edition: TRIAL_EDITION, trialEndDate: '2025-04-01T00:00:00Z', status: 'ACTIVE' };
          },
        },
      },
    } as unknown as Dependencies;

    // Act
    const answered = await reportSubscriptionStatus(
      {
        event: {
          id: randomUUID(),
          detailType: 'SubscriptionStatusRequested',
          time: '',
          source: 'partner.app',
        },
        detail: { accountId },
        receiveCount: 1,
      },
      dependencies,
    );

    // Assess: the partner hears what the service said; the mapping keeps the newer edition.
    expect(answered[0]?.detail).toMatchObject({ edition: TRIAL_EDITION });
    expect(await getBusiness(store, accountId)).toMatchObject({
      edition: PREMIUM,
      editionSyncedAt: '2025-03-01T10:00:11.000Z',
    });
  });
});
