import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type Json, startTestSandbox } from './harness.ts';

// Started strict: `POST /_sandbox/reset` (before each test) returns to strict mode.
const { sandbox, call, signup, install } = await startTestSandbox({ strict: true });
afterAll(() => sandbox.close());
beforeEach(async () => {
  await call('POST', '/_sandbox/reset');
});

const setMode = async (mode: Record<string, unknown>) => {
  const reply = await call('POST', '/_sandbox/mode', mode);
  if (reply.status !== 200) throw new Error(`mode refused: ${JSON.stringify(reply.body)}`);
  return reply.body;
};
const advanceSeconds = (seconds: number) =>
  call('POST', '/_sandbox/clock', { advanceDays: seconds / 86_400 });
const ids = (records: Json[]) => records.map((record) => record.Id);

describe('the mode switch', () => {
  it('reads the mode the sandbox started with, with the strict defaults of every knob', async () => {
    // Act
    const reply = await call('GET', '/_sandbox/mode');

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      strict: true,
      regions: ['US'],
      bulkMetricsDelaySeconds: 60,
      freeBusinessDeletionDays: 30,
      notLinkedErrorCode: 'HOSTNAME_NOT_LINKED',
      otherPayRuleOverrides: false,
    });
  });

  it('switches to the default mode, whose knobs follow it, and answers the new mode', async () => {
    // Act
    const reply = await call('POST', '/_sandbox/mode', { strict: false });

    // Assess
    expect(reply.body).toEqual({
      strict: false,
      regions: ['US', 'UK', 'AU'],
      bulkMetricsDelaySeconds: 0,
      freeBusinessDeletionDays: null,
      notLinkedErrorCode: 'HOSTNAME_NOT_LINKED',
      otherPayRuleOverrides: false,
    });
    expect((await call('GET', '/_sandbox/mode')).body.strict).toBe(false);
  });

  it('keeps a knob set explicitly across mode changes until it is set back to null', async () => {
    // Act
    const set = await setMode({ regions: ['au', 'US'], bulkMetricsDelaySeconds: 5 });
    const lenient = await setMode({ strict: false });
    const cleared = await setMode({ regions: null, bulkMetricsDelaySeconds: null });

    // Assess
    expect(set).toMatchObject({ regions: ['US', 'AU'], bulkMetricsDelaySeconds: 5 });
    expect(lenient).toMatchObject({ strict: false, regions: ['US', 'AU'], bulkMetricsDelaySeconds: 5 });
    expect(cleared).toMatchObject({ regions: ['US', 'UK', 'AU'], bulkMetricsDelaySeconds: 0 });
  });

  it('refuses an invalid mode as a whole, changing nothing', async () => {
    // Act
    const replies = await Promise.all([
      call('POST', '/_sandbox/mode', { strict: 'yes' }),
      call('POST', '/_sandbox/mode', { strict: false, regions: ['US', 'EU'] }),
      call('POST', '/_sandbox/mode', { bulkMetricsDelaySeconds: -1 }),
      call('POST', '/_sandbox/mode', { lenient: true }),
      call('POST', '/_sandbox/mode', { notLinkedErrorCode: 'not a code' }),
      call('POST', '/_sandbox/mode', [true]),
    ]);

    // Assess
    for (const reply of replies) {
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect(replies[1]?.body.error.message).toContain('EU');
    expect((await call('GET', '/_sandbox/mode')).body).toMatchObject({ strict: true, regions: ['US'] });
  });

  it('returns to the start-up mode on reset', async () => {
    // Prepare
    await setMode({ strict: false, regions: ['UK'] });

    // Act
    await call('POST', '/_sandbox/reset');

    // Assess
    expect((await call('GET', '/_sandbox/mode')).body).toMatchObject({ strict: true, regions: ['US'] });
  });

  it('seeds an install with the mode of its signup; a later switch does not re-seed it', async () => {
    // Prepare
    const strictInstall = await signup();
    await setMode({ strict: false });
    const defaultInstall = await signup();

    // Act
    const strictCountries = await install(strictInstall).query('Country');
    const defaultCountries = await install(defaultInstall).query('Country');

    // Assess
    expect(ids(strictCountries)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(ids(defaultCountries)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('strict QUERY', () => {
  it('answers a full-name lk with every record containing it, case-insensitively', async () => {
    // Prepare
    const api = install(await signup());

    // Act
    const unitedStates = await api.query('Country', {
      search: { s1: { field: 'Country', type: 'lk', data: 'united states' } },
    });
    const wales = await api.query('State', { search: { s1: { field: 'State', type: 'lk', data: 'Wales' } } });

    // Assess
    expect(unitedStates.map((country: Json) => country.Country)).toEqual([
      'United States',
      'United States Minor Outlying Islands',
    ]);
    expect(wales.map((state: Json) => state.State)).toEqual(['New South Wales', 'Wales']);
  });

  it('reads % anywhere as any run of characters and _ as any one character', async () => {
    // Prepare
    const api = install(await signup());

    // Act
    const newAnything = await api.query('State', {
      search: { s1: { field: 'State', type: 'lk', data: 'new%o' } },
    });
    const oneLetter = await api.query('State', { search: { s1: { field: 'Code', type: 'lk', data: 'N_' } } });

    // Assess
    expect(newAnything.map((state: Json) => state.State)).toEqual([
      'New York',
      'New Mexico',
      'New South Wales',
    ]);
    expect(oneLetter.map((state: Json) => state.Code)).toEqual(['NY', 'NJ', 'NM', 'NSW', 'ENG', 'NIR']);
  });

  it('keeps eq exact, so a state code shared by two countries answers both and a wrong case none', async () => {
    // Prepare
    const api = install(await signup());

    // Act
    const wa = await api.query('State', { search: { s1: { field: 'Code', type: 'eq', data: 'WA' } } });
    const lower = await api.query('State', { search: { s1: { field: 'Code', type: 'eq', data: 'wa' } } });

    // Assess
    expect(wa.map((state: Json) => [state.State, state.Country])).toEqual([
      ['Washington', 1],
      ['Western Australia', 2],
    ]);
    expect(lower).toEqual([]);
  });

  it('ORs several conditions (the default mode ANDs them)', async () => {
    // Prepare
    const hostname = await signup();
    const search = {
      search: {
        s1: { field: 'State', type: 'lk', data: 'Victoria' },
        s2: { field: 'Country', type: 'eq', data: 4 },
      },
    };

    // Act
    const strictAnswer = await install(hostname).query('State', search);
    await setMode({ strict: false });
    const defaultAnswer = await install(hostname).query('State', search);

    // Assess
    expect(strictAnswer.map((state: Json) => state.State)).toEqual(['Victoria', 'Auckland', 'Wellington']);
    expect(defaultAnswer).toEqual([]);
  });

  it('answers at most 500 records, silently', async () => {
    // Prepare
    const hostname = await signup();
    const extra = Array.from({ length: 520 }, (_, index) => ({ Name: `Leave ${index}` }));
    await call('POST', `/_sandbox/installs/${hostname}/records/LeaveRule`, extra);

    // Act
    const strictAnswer = await install(hostname).query('LeaveRule');
    await setMode({ strict: false });
    const defaultAnswer = await install(hostname).query('LeaveRule');

    // Assess
    expect(strictAnswer).toHaveLength(500);
    expect(defaultAnswer).toHaveLength(524);
  });

  it('expands a joined timesheet custom field data into the record', async () => {
    // Prepare
    const hostname = await signup();
    const body = {
      search: { s1: { field: 'Timesheet', type: 'eq', data: 1003 } },
      join: ['TimesheetObject', 'PayRuleObject'],
    };

    // Act
    const strictLines = await install(hostname).query('TimesheetPayReturn', body);
    await setMode({ strict: false });
    const defaultLines = await install(hostname).query('TimesheetPayReturn', body);

    // Assess
    expect(strictLines[0].TimesheetObject.CustomFieldData).toMatchObject({ Id: 3, System: 'Timesheet' });
    expect(defaultLines[0].TimesheetObject.CustomFieldData).toBe(3);
  });
});

describe('strict timesheet custom field data', () => {
  it('holds every listed spelling, values the spec does not list and values of the other type', async () => {
    // Prepare
    const api = install(await signup());

    // Act
    const records = await api.query('CustomFieldData', {
      search: { s1: { field: 'System', type: 'eq', data: 'Timesheet' } },
    });
    const timesheets = await api.query('Timesheet');

    // Assess
    const values = records.flatMap((record: Json) =>
      Object.entries(record)
        .filter(([key]) => key.startsWith('fww'))
        .map(([, value]) => value),
    );
    expect(values).toEqual(
      expect.arrayContaining([
        "No, I don't consent",
        "No I don't consent",
        'Yes, Schedule Change Accepted',
        'Yes, I requested this',
        'true',
        '',
        true,
        false,
      ]),
    );
    expect(records.map((record: Json) => [record.F01, record.F02])).toEqual([
      ['Yes, Manager Requested', true],
      ['', false],
    ]);
    expect(records.every((record: Json) => record.F03 === null)).toBe(true);
    expect(timesheets.map((timesheet: Json) => timesheet.CustomFieldData)).toEqual([2, null, 3, null]);
  });
});

describe('strict pay rates', () => {
  it('gives agreements a BaseRate on US installs only', async () => {
    // Prepare
    await setMode({ regions: ['US', 'UK', 'AU'] });
    const us = await signup();
    const au = await signup({ root: '/regions/au' });
    const uk = await signup({ root: '/regions/uk' });

    // Act
    const baseRates = async (hostname: string) =>
      (await install(hostname).query('EmployeeAgreement')).map((agreement: Json) => agreement.BaseRate);

    // Assess
    expect(await baseRates(us)).toEqual([22.5, null, 21, null, 19.75]);
    expect(await baseRates(au)).toEqual([null, null, null, null, null]);
    expect(await baseRates(uk)).toEqual([null, null, null, null, null]);
  });

  it('keeps a rate set from the library on a non-US install on a pay rule reached through the contract', async () => {
    // Prepare
    await setMode({ regions: ['US', 'AU'] });
    const api = install(await signup({ root: '/regions/au' }));
    const assign = (employee: number, rate: number) =>
      api.call('POST', `/api/v1/supervise/employee/${employee}/setAwardFromLibrary`, {
        strCountryCode: 'au',
        strAwardCode: 'MA000004',
        arrOverridePayRules: [{ Id: 'lib_MA000004_base', HourlyRate: rate }],
      });

    // Act
    const first = await assign(2, 27.5);
    const second = await assign(3, 28);

    // Assess
    const agreements = await api.query('EmployeeAgreement', {
      search: { s1: { field: 'Id', type: 'eq', data: first.body.data.AgreementId } },
    });
    expect(agreements[0]).toMatchObject({ BaseRate: null, Active: true });
    const [contract] = await api.query('EmploymentContract', {
      search: { s1: { field: 'Id', type: 'eq', data: agreements[0].Contract } },
    });
    const [payRule] = await api.query('PayRule', {
      search: { s1: { field: 'Id', type: 'eq', data: contract.BasePayRule } },
    });
    expect(payRule.HourlyRate).toBe(27.5);
    const [other] = await api.query('EmployeeAgreement', {
      search: { s1: { field: 'Id', type: 'eq', data: second.body.data.AgreementId } },
    });
    expect(other.Contract).not.toBe(agreements[0].Contract);
  });
});

describe('strict provisioning regions', () => {
  it('answers 503 REGION_NOT_RUNNING on the UK and AU roots, before the token and the route', async () => {
    // Act
    const replies = await Promise.all([
      call('POST', '/regions/uk/connect/v1/partner/acme/signup', {}),
      call('POST', '/regions/au/connect/v1/partner/acme/subscription-status', {}, { token: null }),
      call('GET', '/regions/au/anything'),
    ]);

    // Assess
    for (const reply of replies) {
      expect(reply.status).toBe(503);
      expect(reply.body).toEqual({
        success: false,
        data: null,
        error: { code: 'REGION_NOT_RUNNING', message: expect.stringContaining('not running') },
      });
      expect(reply.headers.get('retry-after')).toBeNull();
    }
  });

  it('runs a region once it is enabled, while the US root runs throughout', async () => {
    // Prepare
    const us = await signup();

    // Act
    await setMode({ regions: ['US', 'UK'] });
    const uk = await signup({ root: '/regions/uk' });
    const au = await call('POST', '/regions/au/connect/v1/partner/acme/signup', {});

    // Assess
    expect(us).toContain('.us.');
    expect(uk).toContain('.uk.');
    expect(au.status).toBe(503);
  });
});

describe('strict bulk metrics', () => {
  const budget = (value: number, day = 0) => ({
    timestamp: 1_772_841_600 + day * 86_400,
    type: 'budget_wage',
    value,
    location: 1,
    area: 1,
  });

  it('become visible 60 s of sandbox clock after the request, with the ids the answer gave', async () => {
    // Prepare
    const hostname = await signup();
    const api = install(hostname);

    // Act
    const saved = await api.call('POST', '/api/v2/metrics:bulk', { data: [budget(100), budget(200, 1)] });
    const before = await api.dump();
    await advanceSeconds(61);
    const after = await api.dump();

    // Assess
    expect(saved.status).toBe(200);
    const savedIds = saved.body.data.map((metric: Json) => metric.id);
    expect(savedIds).toEqual(['mt_000001', 'mt_000002']);
    expect(before.Metric).toEqual([]);
    expect(before._pendingMetrics.map((pending: Json) => pending.record.id)).toEqual(savedIds);
    expect(after.Metric.map((metric: Json) => [metric.id, metric.value])).toEqual([
      ['mt_000001', 100],
      ['mt_000002', 200],
    ]);
    expect(after._pendingMetrics).toBeUndefined();
  });

  it('keeps the real-time metrics URL immediate', async () => {
    // Prepare
    const api = install(await signup());

    // Act
    await api.call('POST', '/api/v2/metrics', { data: [budget(100)] });

    // Assess
    expect((await api.dump()).Metric).toHaveLength(1);
  });

  it('lands a late bulk value over a real-time value sent for the same day in the meantime', async () => {
    // Prepare
    const api = install(await signup());
    await api.call('POST', '/api/v2/metrics:bulk', { data: [budget(100)] });

    // Act
    await api.call('POST', '/api/v2/metrics', { data: [budget(999)] });
    await advanceSeconds(61);

    // Assess
    expect((await api.dump()).Metric.map((metric: Json) => metric.value)).toEqual([100]);
  });

  it('takes its delay from bulkMetricsDelaySeconds (0: immediate)', async () => {
    // Prepare
    await setMode({ bulkMetricsDelaySeconds: 0 });
    const api = install(await signup());

    // Act
    await api.call('POST', '/api/v2/metrics:bulk', { data: [budget(100)] });

    // Assess
    expect((await api.dump()).Metric).toHaveLength(1);
  });
});

describe('strict answers the spec does not show', () => {
  it('answers cancel with success and no data', async () => {
    // Prepare
    const hostname = await signup();
    await call('POST', '/connect/v1/partner/acme/change-plan', {
      data: { hostname, action: 'upgrade', address: { country: 'US' } },
    });

    // Act
    const reply = await call('POST', '/connect/v1/partner/acme/change-plan', {
      data: { hostname, action: 'cancel' },
    });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ success: true, data: null, error: null });
  });

  it('answers an agreed-hours write with 204 and no body, and still stores it', async () => {
    // Prepare
    const api = install(await signup());
    const agreedHour = {
      threshold: 38,
      workPeriod: { cycle: 'WEEKLY', dayOfWeek: 'MONDAY' },
      details: { weeks: [] },
    };

    // Act
    const reply = await api.call('POST', '/api/management/v2/agreed_hour/2', { agreedHour });

    // Assess
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expect((await api.call('GET', '/api/management/v2/agreed_hour/2')).body.data.agreedHour).toEqual(
      agreedHour,
    );
  });

  it("writes install record timestamps with the install's local UTC offset", async () => {
    // Prepare
    await setMode({ regions: ['US', 'AU'] });
    await call('POST', '/_sandbox/clock', { now: '2026-07-01T12:00:00Z' });
    const us = install(await signup());
    const au = install(await signup({ root: '/regions/au' }));
    const location = { CompanyName: 'Dock', IsWorkplace: 1 };

    // Act
    const usLocation = await us.call('PUT', '/api/v1/supervise/company', location);
    const auLocation = await au.call('PUT', '/api/v1/supervise/company', location);
    const [seededCountry] = await us.query('Country');

    // Assess
    expect(usLocation.body.Created).toMatch(/^2026-07-01T08:00:0\d-04:00$/);
    expect(auLocation.body.Created).toMatch(/^2026-07-01T22:00:0\d\+10:00$/);
    expect(seededCountry.Created).toBe('2026-01-05T04:00:00-05:00');
  });
});

describe('strict deletion of free businesses', () => {
  const status = (hostname: string) =>
    call('POST', '/connect/v1/partner/acme/subscription-status', { hostname });

  it('deletes a business 30 days after its trial ran out, with its install', async () => {
    // Prepare
    const hostname = await signup();
    await call('POST', '/_sandbox/clock', { advanceDays: 31 });
    const free = await status(hostname);

    // Act
    await call('POST', '/_sandbox/clock', { advanceDays: 30 });

    // Assess
    expect(free.body.data.edition).toBe('SUBSCRIPTION_FREE');
    expect((await status(hostname)).body.error.code).toBe('HOSTNAME_NOT_LINKED');
    expect((await install(hostname).call('POST', '/api/v1/resource/Country/QUERY')).status).toBe(404);
    expect((await call('GET', '/_sandbox/businesses')).body).toEqual([]);
  });

  it('counts from the cancel for a cancelled business and never deletes a paid one', async () => {
    // Prepare
    const cancelled = await signup();
    const paid = await signup();
    for (const hostname of [cancelled, paid]) {
      await call('POST', '/connect/v1/partner/acme/change-plan', {
        data: { hostname, action: 'upgrade', address: { country: 'US' } },
      });
    }
    await call('POST', '/_sandbox/clock', { advanceDays: 20 });
    await call('POST', '/connect/v1/partner/acme/change-plan', {
      data: { hostname: cancelled, action: 'cancel' },
    });

    // Act
    await call('POST', '/_sandbox/clock', { advanceDays: 29 });
    const stillThere = await status(cancelled);
    await call('POST', '/_sandbox/clock', { advanceDays: 2 });

    // Assess
    expect(stillThere.status).toBe(200);
    expect((await status(cancelled)).status).toBe(403);
    expect((await status(paid)).body.data.edition).toBe('SUBSCRIPTION_PAID_PRO_PREMIUM');
  });

  it('never deletes in the default mode', async () => {
    // Prepare
    await setMode({ strict: false });
    const hostname = await signup();

    // Act
    await call('POST', '/_sandbox/clock', { advanceDays: 400 });

    // Assess
    expect((await status(hostname)).body.data.edition).toBe('SUBSCRIPTION_FREE');
  });
});
