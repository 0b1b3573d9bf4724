import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isRetryable,
  RegionNotAvailableError,
  ServiceRejectedError,
  TokenRejectedError,
} from '#functions/domain/errors.ts';
import type { ServiceClient } from '#functions/service/client.ts';
import { type Harness, SANDBOX_TOKEN, startHarness, uniqueSignup } from './sandbox-harness.ts';

let harness: Harness;
let client: ServiceClient;

beforeAll(async () => {
  harness = await startHarness();
  client = harness.client();
});

afterAll(async () => {
  await harness.close();
});

async function rejection(promise: Promise<unknown>): Promise<ServiceRejectedError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ServiceRejectedError);
  expect(isRetryable(error)).toBe(false);
  return error as ServiceRejectedError;
}

describe('signup', () => {
  it('creates a business on a 30-day premium trial', async () => {
    const request = uniqueSignup('trial');

    const business = await client.provisioning.signup(request);

    expect(business).toMatchObject({
      status: 'ACTIVE',
      edition: 'SUBSCRIPTION_PRO_TRIAL',
      conversionDate: '',
      externalId: request.businessData.externalId,
      portfolioName: 'Shop trial',
    });
    expect(business.hostname).toMatch(/^shoptrial-\d+\.us\.sandbox\.test$/);
    const trialDays = (Date.parse(business.trialEndDate) - Date.now()) / 86_400_000;
    expect(Math.round(trialDays)).toBe(30);
  });

  it('is refused when the e-mail already belongs to an account', async () => {
    const first = uniqueSignup('email');
    await client.provisioning.signup(first);
    const second = uniqueSignup('email');
    second.userData.email = first.userData.email;

    const error = await rejection(client.provisioning.signup(second));

    expect(error).toMatchObject({
      status: 409,
      serviceCode: 'EMAIL_ALREADY_EXISTS',
      code: 'SERVICE_REJECTED',
    });
  });

  it('is refused when the mobile number is not valid', async () => {
    const request = uniqueSignup('mobile');
    request.userData.mobileNumber = 'call me';

    const error = await rejection(client.provisioning.signup(request));

    expect(error).toMatchObject({ status: 422, serviceCode: 'INVALID_MOBILE_NUMBER' });
  });

  it('is refused when the externalId was used before', async () => {
    const first = uniqueSignup('ext');
    await client.provisioning.signup(first);
    const second = uniqueSignup('ext');
    second.businessData.externalId = first.businessData.externalId;

    const error = await rejection(client.provisioning.signup(second));

    expect(error).toMatchObject({ status: 409, serviceCode: 'EXTERNAL_ID_NOT_UNIQUE' });
  });

  it.each([0, '-3'])('is refused when the employee count is %s', async (count) => {
    const request = uniqueSignup('count');
    request.businessData.estimatedEmployeeCount = count;

    const error = await rejection(client.provisioning.signup(request));

    expect(error).toMatchObject({ status: 422, serviceCode: 'INVALID_EMPLOYEE_COUNT' });
  });

  it('is refused with a wrong token as TOKEN_REJECTED, retryable once the token is fixed', async () => {
    const stranger = harness.client({ token: async () => 'wrong-token' });

    const error = await stranger.provisioning.signup(uniqueSignup('token')).then(
      () => expect.fail('a wrong token must be refused'),
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(TokenRejectedError);
    expect(isRetryable(error)).toBe(true);
    expect(error).toMatchObject({ code: 'TOKEN_REJECTED', status: 401, serviceCode: 'UNAUTHORIZED' });
  });

  it('reads the token again after a refusal and sends once more when it changed', async () => {
    let token = 'stale-token';
    let invalidated = 0;
    const client = harness.client({
      token: async () => token,
      onTokenRejected: () => {
        invalidated += 1;
        token = SANDBOX_TOKEN;
      },
    });

    const business = await client.provisioning.signup(uniqueSignup('rotated'));

    expect(business.hostname).toMatch(/sandbox\.test$/);
    expect(invalidated).toBe(1);
  });
});

describe('regions', () => {
  it('refuses a region without a configured root before calling the service', async () => {
    const before = (await harness.requests()).length;

    const error = await client.provisioning
      .signup(uniqueSignup('uk', { region: 'UK' }))
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RegionNotAvailableError);
    expect((error as Error).message).toBe('region UK is not available: no provisioning URL configured');
    expect((await harness.requests()).length).toBe(before);
  });

  it('creates the business in the region whose root is configured and called', async () => {
    const regional = harness.client({
      provisioningUrls: { US: harness.sandbox.url, UK: `${harness.sandbox.url}/regions/uk` },
    });

    const business = await regional.provisioning.signup(uniqueSignup('uk', { region: 'UK' }));
    const status = await regional.provisioning.subscriptionStatus(business.hostname, 'UK');

    expect(business.hostname).toMatch(/\.uk\.sandbox\.test$/);
    expect(status.edition).toBe('SUBSCRIPTION_PRO_TRIAL');
    expect((await harness.requests()).at(-1)?.path).toBe(
      '/regions/uk/connect/v1/partner/acme/subscription-status',
    );
  });
});

describe('change-plan and subscription status', () => {
  it('upgrades a US trial only with a billing address, then refuses a second upgrade', async () => {
    const { hostname } = await client.provisioning.signup(uniqueSignup('upgrade'));

    const missing = await rejection(client.provisioning.upgrade(hostname));
    const upgraded = await client.provisioning.upgrade(hostname, { address1: '1 Main St', country: 'US' });
    const again = await rejection(client.provisioning.upgrade(hostname, { address1: '1 Main St' }));

    expect(missing).toMatchObject({ status: 422, serviceCode: 'ADDRESS_REQUIRED' });
    expect(upgraded).toMatchObject({ hostname, edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM' });
    expect(again).toMatchObject({ status: 409, serviceCode: 'ALREADY_PREMIUM' });
  });

  it('refuses to cancel a trial', async () => {
    const { hostname } = await client.provisioning.signup(uniqueSignup('cancel-trial'));

    const error = await rejection(client.provisioning.cancel(hostname));

    expect(error).toMatchObject({ status: 409, serviceCode: 'CANNOT_CANCEL' });
  });

  it('cancels a paid business to free, then refuses to cancel the free one', async () => {
    const { hostname } = await client.provisioning.signup(uniqueSignup('cancel-paid'));
    await client.provisioning.changePlan({ hostname, action: 'upgrade', address: { postcode: '62701' } });

    const cancelled = await client.provisioning.cancel(hostname);
    const status = await client.provisioning.subscriptionStatus(hostname);
    const again = await rejection(client.provisioning.cancel(hostname));

    // The cancel answer is "not shown": the sandbox answers data null, read as success without fields.
    expect(cancelled.edition).toBeUndefined();
    expect(status.edition).toBe('SUBSCRIPTION_FREE');
    expect(again).toMatchObject({ serviceCode: 'CANNOT_CANCEL' });
  });

  it('reports the subscription of a linked business', async () => {
    const business = await client.provisioning.signup(uniqueSignup('status'));

    const status = await client.provisioning.subscriptionStatus(business.hostname);

    expect(status).toMatchObject({
      status: 'ACTIVE',
      hostname: business.hostname,
      portfolioName: 'Shop status',
      edition: 'SUBSCRIPTION_PRO_TRIAL',
      trialEndDate: business.trialEndDate,
    });
  });

  it('refuses status and plan changes for a hostname the partner did not create', async () => {
    const { hostname } = await client.provisioning.signup(uniqueSignup('other'));
    const otherPartner = harness.client({ partnerName: 'globex' });

    const status = await rejection(otherPartner.provisioning.subscriptionStatus(hostname));
    const plan = await rejection(otherPartner.provisioning.upgrade(hostname, { address1: 'x' }));
    const unknown = await rejection(client.provisioning.subscriptionStatus('nobody-1.us.sandbox.test'));

    expect(status).toMatchObject({ status: 403, serviceCode: 'HOSTNAME_NOT_LINKED' });
    expect(plan).toMatchObject({ status: 403, serviceCode: 'HOSTNAME_NOT_LINKED' });
    expect(unknown).toMatchObject({ serviceCode: 'HOSTNAME_NOT_LINKED' });
  });
});

describe('the shared request budget', () => {
  it("takes from the provisioning root's bucket in the table before every request it sends", async () => {
    // Prepare
    const tatBefore = await harness.budgetTat('root#US');
    const startedAt = Date.now();
    const takesBefore = harness.budget.takes;
    const requestsBefore = (await harness.requests()).length;

    // Act
    const business = await client.provisioning.signup(uniqueSignup('budget'));
    await client.provisioning.subscriptionStatus(business.hostname);
    const finishedAt = Date.now();

    // Assess: one take per request the sandbox saw, and the US root's bucket moved in the table:
    // each take sets tat := max(tat, now) + T, so `sent` takes move it on by sent × T from where
    // it stood (or from the clock, for an idle bucket) during the calls.
    const sent = (await harness.requests()).length - requestsBefore;
    expect(sent).toBe(2);
    expect(harness.budget.takes - takesBefore).toBe(sent);
    const tatAfter = await harness.budgetTat('root#US');
    const intervalMs = 1000 / (harness.budgetSettings.provisioning?.ratePerSecond ?? Number.NaN);
    expect(tatAfter).toBeGreaterThan(startedAt);
    expect(tatAfter).toBeGreaterThanOrEqual(Math.max(tatBefore ?? 0, startedAt) + sent * intervalMs);
    expect(tatAfter).toBeLessThanOrEqual(Math.max(tatBefore ?? 0, finishedAt) + sent * intervalMs);
  });
});
