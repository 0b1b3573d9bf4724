import { describe, expect, it } from 'vitest';
import {
  claimPayRateApplication,
  getPayRateApplication,
  reclaimPayRateApplication,
  recordPayRateApplied,
  releasePayRateClaim,
} from '#functions/store/pay-rate-applications.ts';
import { useTestStore } from './support.ts';

const store = useTestStore();

const hostname = 'cafe-1.us.sandbox.test';
const intent = { employeeId: 2, awardCode: 'RetailAssoc2024x', at: new Date('2030-01-01T00:00:00Z') };

describe('pay-rate application guard', () => {
  it('lets only one of two concurrent claims for an event call the service', async () => {
    // Act
    const claims = await Promise.all([
      claimPayRateApplication(store, hostname, { ...intent, eventId: 'evt-race' }),
      claimPayRateApplication(store, hostname, { ...intent, eventId: 'evt-race' }),
    ]);

    // Assess
    expect(claims.filter((claim) => claim.claimed)).toHaveLength(1);
    expect(claims.find((claim) => !claim.claimed)).toMatchObject({
      existing: { status: 'APPLYING', employeeId: 2, awardCode: 'RetailAssoc2024x' },
    });
  });

  it('hands the recorded agreement id to a later claim of the same event', async () => {
    // Prepare
    await claimPayRateApplication(store, hostname, { ...intent, eventId: 'evt-done' });
    await recordPayRateApplied(store, hostname, 'evt-done', 41);

    // Act
    const again = await claimPayRateApplication(store, hostname, { ...intent, eventId: 'evt-done' });

    // Assess
    expect(again).toEqual({
      claimed: false,
      existing: expect.objectContaining({ status: 'APPLIED', agreementId: 41 }),
    });
  });

  it('refuses to record a second, different agreement id for one event', async () => {
    // Prepare
    await claimPayRateApplication(store, hostname, { ...intent, eventId: 'evt-other' });
    await recordPayRateApplied(store, hostname, 'evt-other', 7);

    // Act & Assess
    await expect(recordPayRateApplied(store, hostname, 'evt-other', 8)).rejects.toThrow();
    expect(await getPayRateApplication(store, hostname, 'evt-other')).toMatchObject({ agreementId: 7 });
  });

  it('releases an APPLYING marker so the event can claim again, but never an APPLIED one', async () => {
    // Prepare
    await claimPayRateApplication(store, hostname, { ...intent, eventId: 'evt-release' });
    await claimPayRateApplication(store, hostname, { ...intent, eventId: 'evt-kept' });
    await recordPayRateApplied(store, hostname, 'evt-kept', 9);

    // Act
    const released = await releasePayRateClaim(store, hostname, 'evt-release');
    const kept = await releasePayRateClaim(store, hostname, 'evt-kept');

    // Assess
    expect(released).toBe(true);
    expect(kept).toBe(false);
    expect(await claimPayRateApplication(store, hostname, { ...intent, eventId: 'evt-release' })).toEqual({
      claimed: true,
    });
    expect(await getPayRateApplication(store, hostname, 'evt-kept')).toMatchObject({ status: 'APPLIED' });
  });

  it('keeps markers of different installs apart', async () => {
    // Prepare
    await claimPayRateApplication(store, hostname, { ...intent, eventId: 'evt-shared' });

    // Act
    const elsewhere = await claimPayRateApplication(store, 'other-2.us.sandbox.test', {
      ...intent,
      eventId: 'evt-shared',
    });

    // Assess
    expect(elsewhere).toEqual({ claimed: true });
  });
});

describe('pay-rate application reconciliation', () => {
  it('marks the call as possibly sent with a new claim time, once', async () => {
    // Prepare
    await claimPayRateApplication(store, hostname, { ...intent, eventId: 'evt-sending' });
    const held = { eventId: 'evt-sending', claimedAt: intent.at.toISOString() };
    const before = new Date('2030-01-01T00:00:02Z');

    // Act
    const marked = await reclaimPayRateApplication(store, hostname, held, before);
    const stale = await reclaimPayRateApplication(store, hostname, held, before);

    // Assess
    expect([marked, stale]).toEqual([true, false]);
    expect(await getPayRateApplication(store, hostname, 'evt-sending')).toMatchObject({
      status: 'APPLYING',
      claimedAt: before.toISOString(),
      callMayHaveBeenSent: true,
    });
  });

  it('reads a fresh claim as never sent', async () => {
    // Act
    await claimPayRateApplication(store, hostname, { ...intent, eventId: 'evt-fresh' });

    // Assess
    expect(await getPayRateApplication(store, hostname, 'evt-fresh')).toMatchObject({
      callMayHaveBeenSent: false,
    });
  });
});
