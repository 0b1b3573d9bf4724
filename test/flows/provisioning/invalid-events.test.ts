import { describe, expect, it } from 'vitest';
import {
  accountCreatedDetail,
  inboundEvent,
  provisioningCalls,
  sqsFifoBatch,
  uniqueAccountId,
  useFlowHarness,
} from '#test/flows/support/harness.ts';

const flow = useFlowHarness();

const serviceCalls = async () => (await flow.sandbox<unknown[]>('GET', '/_sandbox/requests')).length;

describe('invalid inbound events on the provisioning routes', () => {
  const cases = [
    {
      name: 'AccountCreated with a malformed owner e-mail',
      functionName: 'provision-business',
      detailType: 'AccountCreated',
      detail: (accountId: string) =>
        accountCreatedDetail(accountId, {
          owner: { firstName: 'A', lastName: 'B', email: 'not-an-email' },
        }),
      field: 'owner.email',
    },
    {
      name: 'AccountCreated without a business name',
      functionName: 'provision-business',
      detailType: 'AccountCreated',
      detail: (accountId: string) => {
        const { businessName: _omitted, ...rest } = accountCreatedDetail(accountId);
        return rest;
      },
      field: 'businessName',
    },
    {
      name: 'AccountCreated with an unknown region',
      functionName: 'provision-business',
      detailType: 'AccountCreated',
      detail: (accountId: string) => accountCreatedDetail(accountId, { region: 'NZ' }),
      field: 'region',
    },
    {
      name: 'PlanChosen with an unknown plan',
      functionName: 'change-plan',
      detailType: 'PlanChosen',
      detail: (accountId: string) => ({ accountId, plan: 'GOLD' }),
      field: 'plan',
    },
    {
      name: 'PlanChosen with an unexpected billing address field',
      functionName: 'change-plan',
      detailType: 'PlanChosen',
      detail: (accountId: string) => ({ accountId, plan: 'PREMIUM', billingAddress: { street: '1 Main' } }),
      field: 'billingAddress',
    },
    {
      name: 'SubscriptionStatusRequested with an unexpected field',
      functionName: 'subscription-status',
      detailType: 'SubscriptionStatusRequested',
      detail: (accountId: string) => ({ accountId, hostname: 'evil.example.com' }),
      field: 'hostname',
    },
  ];

  for (const testCase of cases) {
    it(`answers ${testCase.name} with SyncFailed naming ${testCase.field}, without calling the service`, async () => {
      // Prepare
      const accountId = uniqueAccountId('invalid');
      const event = inboundEvent(testCase.detailType, testCase.detail(accountId));
      const callsBefore = await serviceCalls();

      // Act
      const response = await flow.invokeBatch(testCase.functionName, sqsFifoBatch([event]));

      // Assess
      expect(response.batchItemFailures).toEqual([]);
      expect(await serviceCalls()).toBe(callsBefore);
      const failures = flow.publishedFor(accountId, 'SyncFailed').map((published) => published.detail);
      expect(failures).toEqual([
        expect.objectContaining({
          code: 'INVALID_DETAIL',
          sourceEventId: event.id,
          detailType: testCase.detailType,
          message: expect.stringContaining(testCase.field),
        }),
      ]);
    });
  }

  it('answers a message that is not JSON with SyncFailed INVALID_JSON for its message group', async () => {
    // Prepare
    const accountId = uniqueAccountId('garbage');
    const callsBefore = (await provisioningCalls(flow, 'signup')).length;

    // Act
    const response = await flow.invokeBatch(
      'provision-business',
      sqsFifoBatch([{ rawBody: '{not json', detailType: 'AccountCreated', groupId: accountId }]),
    );

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect((await provisioningCalls(flow, 'signup')).length).toBe(callsBefore);
    expect(flow.publishedFor(accountId, 'SyncFailed')).toEqual([
      expect.objectContaining({ detail: expect.objectContaining({ code: 'INVALID_JSON' }) }),
    ]);
  });
});
