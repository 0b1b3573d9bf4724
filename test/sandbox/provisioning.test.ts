import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { LENIENT_READING_NAMES } from '#sandbox/mode.ts';
import { startTestSandbox } from './harness.ts';

// Written for the sandbox's lenient readings (all on); what the spec reading does instead is
// tested in spec-readings.test.ts.
const { sandbox, call, signup } = await startTestSandbox({ lenient: LENIENT_READING_NAMES });

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function signupBody(
  overrides: { email?: string; externalId?: string; mobile?: string; count?: unknown } = {},
) {
  return {
    userData: {
      firstName: 'Grace',
      lastName: 'Hopper',
      email: overrides.email ?? 'grace@example.test',
      ...(overrides.mobile === undefined ? {} : { mobileNumber: overrides.mobile }),
    },
    businessData: {
      externalId: overrides.externalId ?? 'acct-grace',
      portfolioName: 'Grace Bakery & Co',
      ...(overrides.count === undefined ? {} : { estimatedEmployeeCount: overrides.count }),
    },
  };
}

const changePlan = (
  hostname: string,
  action: string,
  extra: Record<string, unknown> = {},
  partner = 'acme',
) => call('POST', `/connect/v1/partner/${partner}/change-plan`, { data: { hostname, action, ...extra } });
const status = (hostname: string, partner = 'acme', root = '') =>
  call('POST', `${root}/connect/v1/partner/${partner}/subscription-status`, { hostname });
const address = {
  address: { address1: '1 Main St', suburb: 'Springfield', state: 'IL', postcode: '62701', country: 'US' },
};

beforeEach(async () => {
  await call('POST', '/_sandbox/reset');
});
afterAll(() => sandbox.close());

describe('signup', () => {
  it('creates a business on a 30-day premium trial inside the success envelope', async () => {
    // Prepare
    const before = Date.parse((await call('GET', '/_sandbox/clock')).body.now);

    // Act
    const reply = await call('POST', '/connect/v1/partner/acme/signup', signupBody({ count: '12' }));

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body.success).toBe(true);
    expect(reply.body.error).toBeNull();
    expect(reply.body.data).toMatchObject({
      hostname: 'gracebakeryco-1.us.sandbox.test',
      portfolioName: 'Grace Bakery & Co',
      status: 'ACTIVE',
      edition: 'SUBSCRIPTION_PRO_TRIAL',
      conversionDate: '',
      externalId: 'acct-grace',
    });
    expect(reply.body.data.trialEndDate).toMatch(ISO_WITH_OFFSET);
    const trialDays = (Date.parse(reply.body.data.trialEndDate) - before) / 86_400_000;
    expect(trialDays).toBeGreaterThan(29.99);
    expect(trialDays).toBeLessThan(30.01);
  });

  it('creates UK and AU businesses with the region in the hostname when called on their roots', async () => {
    // Act
    const uk = await signup({ root: '/regions/uk', portfolioName: 'London Deli' });
    const au = await signup({ root: '/regions/au', portfolioName: 'Sydney Surf Shop Holdings Pty Ltd' });

    // Assess
    expect(uk).toBe('londondeli-1.uk.sandbox.test');
    expect(au).toBe('sydneysurfshopholdin-2.au.sandbox.test');
  });

  it('accepts an integer employee count and a well-formed mobile number with spaces and dashes', async () => {
    // Act
    const reply = await call(
      'POST',
      '/connect/v1/partner/acme/signup',
      signupBody({ count: 7, mobile: '+1 555-010-2030' }),
    );

    // Assess
    expect(reply.status).toBe(200);
  });

  it.each([
    ['missing userData', { businessData: { externalId: 'a', portfolioName: 'b' } }, 'userData is required'],
    [
      'missing e-mail',
      { userData: { firstName: 'a', lastName: 'b' }, businessData: { externalId: 'a', portfolioName: 'b' } },
      'userData.email is required',
    ],
    [
      'missing first name',
      {
        userData: { lastName: 'b', email: 'x@y.test' },
        businessData: { externalId: 'a', portfolioName: 'b' },
      },
      'userData.firstName is required',
    ],
    [
      'missing externalId',
      {
        userData: { firstName: 'a', lastName: 'b', email: 'x@y.test' },
        businessData: { portfolioName: 'b' },
      },
      'businessData.externalId is required',
    ],
    [
      'missing portfolioName',
      { userData: { firstName: 'a', lastName: 'b', email: 'x@y.test' }, businessData: { externalId: 'a' } },
      'businessData.portfolioName is required',
    ],
  ])('refuses a signup with %s and names the field', async (_case, body, message) => {
    // Act
    const reply = await call('POST', '/connect/v1/partner/acme/signup', body);

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ success: false, data: null, error: { code: 'VALIDATION_ERROR', message } });
  });

  it('refuses an e-mail already used by any partner, ignoring letter case', async () => {
    // Prepare
    await call('POST', '/connect/v1/partner/other/signup', signupBody({ email: 'Grace@Example.test' }));

    // Act
    const reply = await call('POST', '/connect/v1/partner/acme/signup', signupBody({ externalId: 'fresh' }));

    // Assess
    expect(reply.status).toBe(409);
    expect(reply.body.success).toBe(false);
    expect(reply.body.data).toBeNull();
    expect(reply.body.error.code).toBe('EMAIL_ALREADY_EXISTS');
  });

  it.each(['12345', 'not-a-number', '+1234567890123456'])(
    'refuses the invalid mobile number %s',
    async (mobile) => {
      // Act
      const reply = await call('POST', '/connect/v1/partner/acme/signup', signupBody({ mobile }));

      // Assess
      expect(reply.status).toBe(422);
      expect(reply.body.error.code).toBe('INVALID_MOBILE_NUMBER');
    },
  );

  it('refuses a reused externalId for the same partner but accepts it for another partner', async () => {
    // Prepare
    await call('POST', '/connect/v1/partner/acme/signup', signupBody({ email: 'one@example.test' }));

    // Act
    const same = await call(
      'POST',
      '/connect/v1/partner/acme/signup',
      signupBody({ email: 'two@example.test' }),
    );
    const other = await call(
      'POST',
      '/connect/v1/partner/other/signup',
      signupBody({ email: 'three@example.test' }),
    );

    // Assess
    expect(same.status).toBe(409);
    expect(same.body.error.code).toBe('EXTERNAL_ID_NOT_UNIQUE');
    expect(other.status).toBe(200);
  });

  it.each([0, -3, '0', '2.5', 'many'])('refuses the employee count %s', async (count) => {
    // Act
    const reply = await call('POST', '/connect/v1/partner/acme/signup', signupBody({ count }));

    // Assess
    expect(reply.status).toBe(422);
    expect(reply.body.error.code).toBe('INVALID_EMPLOYEE_COUNT');
  });
});

describe('bearer token', () => {
  it.each([
    ['missing', null],
    ['wrong', 'not-the-token'],
  ])('answers 401 UNAUTHORIZED when the token is %s', async (_case, token) => {
    // Act
    const reply = await call('POST', '/connect/v1/partner/acme/signup', signupBody(), { token });

    // Assess
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ success: false, data: null, error: { code: 'UNAUTHORIZED' } });
    expect((await call('GET', '/_sandbox/businesses')).body).toEqual([]);
  });
});

describe('edition state machine', () => {
  it('upgrades a trial to paid premium and keeps the trial end date', async () => {
    // Prepare
    const hostname = await signup();
    const trialEndDate = (await status(hostname)).body.data.trialEndDate;

    // Act
    const reply = await changePlan(hostname, 'upgrade', address);

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      success: true,
      data: { hostname, trialEndDate, edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM' },
      error: null,
    });
    expect((await status(hostname)).body.data.edition).toBe('SUBSCRIPTION_PAID_PRO_PREMIUM');
  });

  it('refuses an upgrade of a business that is already premium', async () => {
    // Prepare
    const hostname = await signup();
    await changePlan(hostname, 'upgrade', address);

    // Act
    const reply = await changePlan(hostname, 'upgrade', address);

    // Assess
    expect(reply.status).toBe(409);
    expect(reply.body.error.code).toBe('ALREADY_PREMIUM');
  });

  it('refuses a US upgrade without a billing address and leaves the trial running', async () => {
    // Prepare
    const hostname = await signup();

    // Act
    const missing = await changePlan(hostname, 'upgrade');
    const empty = await changePlan(hostname, 'upgrade', { address: {} });

    // Assess
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe('ADDRESS_REQUIRED');
    expect(empty.body.error.code).toBe('ADDRESS_REQUIRED');
    expect((await status(hostname)).body.data.edition).toBe('SUBSCRIPTION_PRO_TRIAL');
  });

  it('upgrades a UK business without an address', async () => {
    // Prepare
    const hostname = await signup({ root: '/regions/uk' });

    // Act
    const reply = await call('POST', '/regions/uk/connect/v1/partner/acme/change-plan', {
      data: { hostname, action: 'upgrade' },
    });

    // Assess
    expect(reply.body.data.edition).toBe('SUBSCRIPTION_PAID_PRO_PREMIUM');
  });

  it('refuses to cancel a trial', async () => {
    // Prepare
    const hostname = await signup();

    // Act
    const reply = await changePlan(hostname, 'cancel');

    // Assess
    expect(reply.status).toBe(409);
    expect(reply.body.error.code).toBe('CANNOT_CANCEL');
  });

  it('cancels paid premium to free, refuses a second cancel, and upgrades free back to paid', async () => {
    // Prepare
    const hostname = await signup();
    await changePlan(hostname, 'upgrade', address);

    // Act
    const cancelled = await changePlan(hostname, 'cancel');
    const cancelledAgain = await changePlan(hostname, 'cancel');
    const upgraded = await changePlan(hostname, 'upgrade', address);

    // Assess
    expect(cancelled.body.data).toMatchObject({ hostname, edition: 'SUBSCRIPTION_FREE' });
    expect(cancelled.body.data.trialEndDate).toMatch(ISO_WITH_OFFSET);
    expect(cancelledAgain.body.error.code).toBe('CANNOT_CANCEL');
    expect(upgraded.body.data.edition).toBe('SUBSCRIPTION_PAID_PRO_PREMIUM');
  });

  it('turns a trial into free once the sandbox clock passes the trial end', async () => {
    // Prepare
    const hostname = await signup();
    await call('POST', '/_sandbox/clock', { advanceDays: 29 });
    const stillTrial = (await status(hostname)).body.data.edition;

    // Act
    await call('POST', '/_sandbox/clock', { advanceDays: 1.01 });
    const reply = await status(hostname);

    // Assess
    expect(stillTrial).toBe('SUBSCRIPTION_PRO_TRIAL');
    expect(reply.body.data).toMatchObject({
      status: 'ACTIVE',
      edition: 'SUBSCRIPTION_FREE',
      conversionDate: '',
    });
    expect((await call('GET', '/_sandbox/businesses')).body[0].edition).toBe('SUBSCRIPTION_FREE');
  });

  it('treats an expired trial as free for plan changes: cancel is refused, upgrade converts', async () => {
    // Prepare
    const hostname = await signup();
    await call('POST', '/_sandbox/clock', { advanceDays: 31 });

    // Act
    const cancel = await changePlan(hostname, 'cancel');
    const upgrade = await changePlan(hostname, 'upgrade', address);

    // Assess
    expect(cancel.body.error.code).toBe('CANNOT_CANCEL');
    expect(upgrade.body.data.edition).toBe('SUBSCRIPTION_PAID_PRO_PREMIUM');
  });

  it('never expires a trial that was converted before its end', async () => {
    // Prepare
    const hostname = await signup();
    await changePlan(hostname, 'upgrade', address);

    // Act
    await call('POST', '/_sandbox/clock', { advanceDays: 45 });

    // Assess
    expect((await status(hostname)).body.data.edition).toBe('SUBSCRIPTION_PAID_PRO_PREMIUM');
  });

  it('names the missing change-plan field', async () => {
    // Act
    const noAction = await call('POST', '/connect/v1/partner/acme/change-plan', { data: { hostname: 'x' } });
    const noData = await call('POST', '/connect/v1/partner/acme/change-plan', {
      hostname: 'x',
      action: 'cancel',
    });
    const noHostname = await call('POST', '/connect/v1/partner/acme/subscription-status', {});

    // Assess
    expect(noAction.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'data.action is required' });
    expect(noData.body.error.message).toBe('data is required');
    expect(noHostname.status).toBe(400);
    expect(noHostname.body.error.message).toBe('hostname is required');
  });
});

describe('partner isolation', () => {
  it('refuses status checks and plan changes on a hostname another partner created', async () => {
    // Prepare
    const hostname = await signup({ partner: 'acme' });

    // Act
    const foreignStatus = await status(hostname, 'globex');
    const foreignUpgrade = await changePlan(hostname, 'upgrade', address, 'globex');
    const unknown = await status('nobody-9.us.sandbox.test');

    // Assess
    expect(foreignStatus.status).toBe(403);
    expect(foreignStatus.body).toMatchObject({
      success: false,
      data: null,
      error: { code: 'HOSTNAME_NOT_LINKED' },
    });
    expect(foreignUpgrade.body.error.code).toBe('HOSTNAME_NOT_LINKED');
    expect(unknown.body.error.code).toBe('HOSTNAME_NOT_LINKED');
    expect((await status(hostname)).body.data.edition).toBe('SUBSCRIPTION_PRO_TRIAL');
  });

  it('answers a status check only on the regional root the business was created on', async () => {
    // Prepare
    const hostname = await signup({ root: '/regions/au' });

    // Act
    const onAu = await status(hostname, 'acme', '/regions/au');
    const onUs = await status(hostname, 'acme');

    // Assess
    expect(onAu.body.data.hostname).toBe(hostname);
    expect(onUs.body.error.code).toBe('HOSTNAME_NOT_LINKED');
  });

  it('lists every business with its partner through the control API', async () => {
    // Prepare
    const hostname = await signup({ partner: 'globex', email: 'g@globex.test', externalId: 'g-1' });

    // Act
    const reply = await call('GET', '/_sandbox/businesses');

    // Assess
    expect(reply.body).toEqual([
      expect.objectContaining({
        hostname,
        partner: 'globex',
        externalId: 'g-1',
        email: 'g@globex.test',
        edition: 'SUBSCRIPTION_PRO_TRIAL',
        conversionDate: '',
      }),
    ]);
  });
});
