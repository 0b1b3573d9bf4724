import { afterAll, describe, expect, it } from 'vitest';
import { fromServiceStateMet, type ServiceRequestLike } from '#bench/service-state.ts';
import { startTestSandbox } from '#test/sandbox/harness.ts';

const { sandbox, call } = await startTestSandbox();
afterAll(() => sandbox.close());

/** A request as the recorder keeps it, from what was sent and how it was answered. */
const recorded = (path: string, body: unknown, status: number): ServiceRequestLike => ({
  system: 'service',
  status,
  http: { method: 'POST', path, body: JSON.stringify(body) },
});

const SIGNUP = '/connect/v1/partner/acme/signup';
const CHANGE_PLAN = '/connect/v1/partner/acme/change-plan';
const signupBody = (externalId: string) => ({
  userData: { firstName: 'Ada', lastName: 'Owner', email: `${externalId}@example.test` },
  businessData: { externalId, portfolioName: 'Replay Cafe' },
});
const editionOf = async (hostname: string) =>
  ((await call('GET', '/_sandbox/businesses')).body as Array<{ hostname: string; edition: string }>).find(
    (business) => business.hostname === hostname,
  )?.edition;

describe('the service a raw replay starts from', () => {
  it('lets a replayed signup create the business again, where the service would refuse it as a duplicate', async () => {
    // Prepare: the handler's signup.
    const handlerSignup = await call('POST', SIGNUP, signupBody('acct-replayed'));
    const request = recorded(SIGNUP, signupBody('acct-replayed'), handlerSignup.status);
    expect((await call('POST', SIGNUP, signupBody('acct-replayed'))).status).toBe(409);

    // Act
    const replayed = await fromServiceStateMet(sandbox.url, [request], () =>
      call('POST', SIGNUP, signupBody('acct-replayed')),
    );

    // Assess
    expect(handlerSignup.status).toBe(200);
    expect(replayed.status).toBe(200);
  });

  it('lets a replayed plan change move the plan again, then leaves the plan the handler left', async () => {
    // Prepare: the handler's upgrade, then its cancel.
    const signedUp = await call('POST', SIGNUP, signupBody('acct-plan'));
    const hostname = signedUp.body.data.hostname as string;
    const address = {
      address1: '1 Main St',
      suburb: 'Springfield',
      state: 'IL',
      postcode: '62701',
      country: 'US',
    };
    const upgrade = { data: { hostname, action: 'upgrade', address } };
    const cancel = { data: { hostname, action: 'cancel' } };
    const upgraded = await call('POST', CHANGE_PLAN, upgrade);
    expect((await call('POST', CHANGE_PLAN, upgrade)).status).toBe(409);

    // Act
    const upgradedAgain = await fromServiceStateMet(
      sandbox.url,
      [recorded(CHANGE_PLAN, upgrade, upgraded.status)],
      () => call('POST', CHANGE_PLAN, upgrade),
    );
    const afterUpgrade = await editionOf(hostname);
    const cancelled = await call('POST', CHANGE_PLAN, cancel);
    const cancelledAgain = await fromServiceStateMet(
      sandbox.url,
      [recorded(CHANGE_PLAN, cancel, cancelled.status)],
      () => call('POST', CHANGE_PLAN, cancel),
    );
    // A replay that leaves another plan: the handler's is still what is left.
    await fromServiceStateMet(sandbox.url, [recorded(CHANGE_PLAN, cancel, cancelled.status)], () =>
      call('POST', `/_sandbox/businesses/${hostname}/edition`, { edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM' }),
    );

    // Assess
    expect([upgraded.status, upgradedAgain.status]).toEqual([200, 200]);
    expect(afterUpgrade).toBe('SUBSCRIPTION_PAID_PRO_PREMIUM');
    expect([cancelled.status, cancelledAgain.status]).toEqual([200, 200]);
    expect(await editionOf(hostname)).toBe('SUBSCRIPTION_FREE');
  });

  it('touches nothing for requests a replay can repeat, nor for writes the service refused', async () => {
    // Prepare
    const signedUp = await call('POST', SIGNUP, signupBody('acct-untouched'));
    const hostname = signedUp.body.data.hostname as string;
    const refusedCancel = recorded(CHANGE_PLAN, { data: { hostname, action: 'cancel' } }, 409);
    const refusedSignup = recorded(SIGNUP, signupBody('acct-untouched'), 409);
    const status = recorded('/connect/v1/partner/acme/subscription-status', { hostname }, 200);

    // Act
    const during = await fromServiceStateMet(sandbox.url, [refusedCancel, refusedSignup, status], () =>
      editionOf(hostname),
    );

    // Assess
    expect(during).toBe('SUBSCRIPTION_PRO_TRIAL');
    expect(await editionOf(hostname)).toBe('SUBSCRIPTION_PRO_TRIAL');
  });
});
