import { describe, expect, it } from 'vitest';
import { getBusiness } from '#functions/store/business.ts';
import {
  accountCreatedDetail,
  inboundEvent,
  provisioningCalls,
  sqsFifoBatch,
  uniqueAccountId,
  useFlowHarness,
} from '#test/flows/support/harness.ts';

// As in production today: only the US provisioning root exists.
const flow = useFlowHarness({ provisioningRegions: ['US'] });

describe('AccountCreated for a region that is not running', () => {
  for (const region of ['UK', 'AU']) {
    it(`fails a ${region} account with REGION_NOT_AVAILABLE, making no call and leaving no claim: the account FAILED, naming the event`, async () => {
      // Prepare
      const accountId = uniqueAccountId(region.toLowerCase());
      const callsBefore = (await provisioningCalls(flow, 'signup')).length;

      // Act
      const event = inboundEvent('AccountCreated', accountCreatedDetail(accountId, { region }));
      const response = await flow.invokeBatch('provision-business', sqsFifoBatch([event]));

      // Assess
      expect(response.batchItemFailures).toEqual([]);
      expect((await provisioningCalls(flow, 'signup')).length).toBe(callsBefore);
      expect(flow.publishedFor(accountId, 'SyncFailed')).toEqual([
        expect.objectContaining({
          detail: expect.objectContaining({
            code: 'REGION_NOT_AVAILABLE',
            message: expect.stringContaining(region),
          }),
        }),
      ]);
      // No claim (nothing was sent); FAILED so the account's other events end at once, naming it.
      const business = await getBusiness(flow.store, accountId);
      expect(business).toMatchObject({
        status: 'FAILED',
        failure: { eventId: event.id, code: 'REGION_NOT_AVAILABLE' },
      });
      expect(business?.attempts).toBeUndefined();
      expect(business?.signupMayHaveCommitted).toBeUndefined();
    });
  }

  it('still provisions a US account in the same deployment', async () => {
    // Prepare
    const accountId = uniqueAccountId('us');

    // Act
    await flow.invokeBatch(
      'provision-business',
      sqsFifoBatch([inboundEvent('AccountCreated', accountCreatedDetail(accountId))]),
    );

    // Assess
    expect(flow.publishedFor(accountId, 'BusinessProvisioned')).toEqual([
      expect.objectContaining({ detail: expect.objectContaining({ region: 'US' }) }),
    ]);
  });
});
