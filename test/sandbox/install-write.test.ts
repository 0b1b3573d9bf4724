import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { LENIENT_READING_NAMES } from '#sandbox/mode.ts';
import { type Json, startTestSandbox } from './harness.ts';

// Written for the sandbox's lenient readings (all on); what the spec reading does instead is
// tested in spec-readings.test.ts.
const { sandbox, call, signup, install } = await startTestSandbox({ lenient: LENIENT_READING_NAMES });
afterAll(() => sandbox.close());

let api: ReturnType<typeof install>;
beforeEach(async () => {
  await call('POST', '/_sandbox/reset');
  api = install(await signup());
});

const simpleAgreedHour = {
  threshold: 38,
  applyThreshold: false,
  workPeriod: {
    cycle: 'WEEKLY',
    dayOfWeek: 'MONDAY',
    startDate: '2026-02-02T00:00:00Z',
    startCycleDate: '2026-02-02T00:00:00Z',
    endCycleDate: '2026-02-08T23:59:59Z',
  },
  workingDaysPerCycle: 5,
  details: { weeks: [] },
};

const fullAgreedHour = {
  ...simpleAgreedHour,
  threshold: 16,
  workPeriod: { ...simpleAgreedHour.workPeriod, cycle: 'TWO_WEEK' },
  details: {
    weeks: [
      {
        week: 'ONE',
        days: [
          {
            day: 1,
            shifts: [
              {
                startTime: '09:00',
                endTime: '17:00',
                breaks: [{ breakType: 'MEAL', breakDuration: '00:30', startBreakTime: '', endBreakTime: '' }],
                location: 1,
                area: 1,
                totalHours: 16,
              },
            ],
          },
        ],
      },
    ],
  },
};

describe('employee custom field data', () => {
  const path = (employee: number | string) => `/api/v1/resource/Employee/${employee}/CustomFieldDataObject`;

  it('creates a record on first write and links its id to the employee', async () => {
    // Act
    const reply = await api.call('POST', path(2), { System: 'Employee', F03: 'blue' });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      System: 'Employee',
      F03: 'blue',
      F01: null,
      _DPMetaData: { System: 'CustomFieldData' },
    });
    const [employee] = await api.query('Employee', { search: { s1: { field: 'Id', type: 'eq', data: 2 } } });
    expect(employee.CustomFieldData).toBe(reply.body.Id);
  });

  it('updates the same record on later writes', async () => {
    // Prepare
    const first = await api.call('POST', path(3), { System: 'Employee', F03: 'blue' });

    // Act
    const second = await api.call('POST', path(3), { System: 'Employee', F04: true });

    // Assess
    expect(second.body.Id).toBe(first.body.Id);
    expect(second.body).toMatchObject({ F03: 'blue', F04: true });
    expect((await api.query('CustomFieldData')).filter((record) => record.Id === first.body.Id)).toHaveLength(
      1,
    );
  });

  it('overwrites a slot that is already in use without complaint', async () => {
    // Act
    const reply = await api.call('POST', path(1), { System: 'Employee', F01: 'BADGE-9999' });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ Id: 1, F01: 'BADGE-9999', F02: true });
  });

  it.each([
    [{ System: 'Employee', F129: 'x' }, 'F129 is not a custom field slot (F01..F128)'],
    [{ System: 'Employee', F1: 'x' }, 'F1 is not a custom field slot (F01..F128)'],
    [{ System: 'Employee', F05: 3 }, 'F05 must be a string or a boolean'],
    [{ F05: 'x' }, 'System is required'],
    [{ System: 'Employee' }, 'at least one slot field (F01..F128) is required'],
  ])('refuses %j with a 400 that says why', async (body, message) => {
    // Act
    const reply = await api.call('POST', path(2), body);

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message });
  });

  it('answers 404 for an unknown employee', async () => {
    // Act
    const reply = await api.call('POST', path(77), { System: 'Employee', F05: 'x' });

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });
});

describe('agreed hours', () => {
  const path = (employee: number) => `/api/management/v2/agreed_hour/${employee}`;

  it('answers null before any profile is set', async () => {
    // Act
    const reply = await api.call('GET', path(2));

    // Assess
    expect(reply.body).toEqual({ success: true, data: { employeeId: 2, agreedHour: null } });
  });

  it.each([
    ['simple', simpleAgreedHour],
    ['full', fullAgreedHour],
  ])('stores the %s form and returns it on GET', async (_form, agreedHour) => {
    // Act
    const saved = await api.call('POST', path(2), { agreedHour });
    const read = await api.call('GET', path(2));

    // Assess
    expect(saved.body).toEqual({ success: true, data: { employeeId: 2, agreedHour } });
    expect(read.body.data.agreedHour).toEqual(agreedHour);
  });

  it('replaces the previous profile', async () => {
    // Prepare
    await api.call('POST', path(2), { agreedHour: simpleAgreedHour });

    // Act
    await api.call('POST', path(2), { agreedHour: { ...simpleAgreedHour, threshold: 20 } });

    // Assess
    expect((await api.call('GET', path(2))).body.data.agreedHour.threshold).toBe(20);
    expect((await api.dump()).AgreedHour).toHaveLength(1);
  });

  it.each([
    [{}, 'agreedHour is required'],
    [{ agreedHour: { ...simpleAgreedHour, threshold: 'lots' } }, 'agreedHour.threshold must be a number'],
    [{ agreedHour: { threshold: 10 } }, 'agreedHour.workPeriod is required'],
    [
      {
        agreedHour: {
          ...simpleAgreedHour,
          workPeriod: { ...simpleAgreedHour.workPeriod, cycle: 'TWO_WEEK' },
        },
      },
      'agreedHour.workPeriod.cycle must be one of WEEKLY, TWO_WEEKLY, FOUR_WEEKLY in the simple form',
    ],
  ])('refuses %j', async (body, message) => {
    // Act
    const reply = await api.call('POST', path(2), body);

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toBe(message);
  });
});

describe('metrics (budgets)', () => {
  const item = (overrides: Record<string, unknown> = {}) => ({
    timestamp: 1_767_225_600,
    type: 'budget_wage',
    value: 2000,
    location: 1,
    area: 1,
    reference: 'weekly plan',
    ...overrides,
  });

  it('saves a metric with the response shape of the spec', async () => {
    // Act
    const reply = await api.call('POST', '/api/v2/metrics', { data: [item()] });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body.success).toBe(true);
    const [metric] = reply.body.data;
    expect(metric).toMatchObject({
      timestamp: '1767225600',
      employee: 0,
      area: 1,
      type: 'budget_wage',
      reference: 'weekly plan',
      value: 2000,
      state: 'ACTUAL',
      location: 1,
      modified: '',
    });
    expect(typeof metric.id).toBe('string');
    expect(metric.created).toMatch(/\+00:00$|Z$/);
    expect(JSON.parse(metric.payload)).toEqual(item());
  });

  it('replaces the value of the same location, area, type and timestamp instead of adding', async () => {
    // Prepare
    const first = await api.call('POST', '/api/v2/metrics', { data: [item({ value: 2000 })] });

    // Act
    const second = await api.call('POST', '/api/v2/metrics', { data: [item({ value: 10000 })] });

    // Assess
    expect(second.body.data[0].id).toBe(first.body.data[0].id);
    expect(second.body.data[0].value).toBe(10000);
    expect(second.body.data[0].modified).not.toBe('');
    expect((await api.dump()).Metric).toHaveLength(1);
  });

  it('treats hour budget spellings case-insensitively and keeps distinct identities apart in bulk', async () => {
    // Act
    const reply = await api.call('POST', '/api/v2/metrics:bulk', {
      data: [
        item({ type: 'budget_StaffHour', value: 40 }),
        item({ type: 'budget_staffhour', value: 45 }),
        item({ type: 'budget_hour', value: 38 }),
        item({ area: undefined, location: 2 }),
        item({ timestamp: 1_767_312_000 }),
      ],
    });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((metric: Json) => metric.type)).toEqual([
      'budget_staffhour',
      'budget_staffhour',
      'budget_hour',
      'budget_wage',
      'budget_wage',
    ]);
    expect(reply.body.data[3].area).toBe(0);
    const stored = (await api.dump()).Metric;
    expect(stored).toHaveLength(4);
    expect(stored.find((metric: Json) => metric.type === 'budget_staffhour').value).toBe(45);
  });

  it('accepts a location created through the API', async () => {
    // Prepare
    const location = await api.call('PUT', '/api/v1/supervise/company', {
      CompanyName: 'Pop-up',
      IsWorkplace: 1,
    });

    // Act
    const reply = await api.call('POST', '/api/v2/metrics', {
      data: [item({ location: location.body.Id, area: undefined })],
    });

    // Assess
    expect(reply.status).toBe(200);
  });

  it.each([
    [item({ location: 99 }), 404, 'NOT_FOUND'],
    [item({ area: 99 }), 404, 'NOT_FOUND'],
    [item({ type: 'budget_sales' }), 400, 'VALIDATION_ERROR'],
    [item({ timestamp: '2026-01-01' }), 400, 'VALIDATION_ERROR'],
    [item({ value: undefined }), 400, 'VALIDATION_ERROR'],
  ])('refuses %j and saves nothing', async (bad, status, code) => {
    // Act
    const reply = await api.call('POST', '/api/v2/metrics', { data: [item({ timestamp: 1 }), bad] });

    // Assess
    expect(reply.status).toBe(status);
    expect(reply.body.error.code).toBe(code);
    expect((await api.dump()).Metric).toEqual([]);
  });

  it('names the missing field of an item', async () => {
    // Act
    const reply = await api.call('POST', '/api/v2/metrics', { data: [item({ location: undefined })] });

    // Assess
    expect(reply.body.error.message).toBe('data[0].location is required');
  });
});

describe('locations and areas', () => {
  it('creates a location whose address text becomes an address record id, without an area', async () => {
    // Act
    const reply = await api.call('PUT', '/api/v1/supervise/company', {
      Code: 'NORTH',
      Active: true,
      CompanyName: 'North Store',
      TradingName: 'North',
      IsWorkplace: 1,
      IsPayrollEntity: 0,
      PayrollExportCode: 'N-01',
      Address: '9 North Road, Springfield',
    });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      Id: 3,
      CompanyName: 'North Store',
      Code: 'NORTH',
      _DPMetaData: { System: 'Company' },
    });
    expect(Number.isInteger(reply.body.Address)).toBe(true);
    const dump = await api.dump();
    expect(dump.Address.find((address: Json) => address.Id === reply.body.Address).Address).toBe(
      '9 North Road, Springfield',
    );
    expect(dump.Area.filter((area: Json) => area.Company === 3)).toEqual([]);
  });

  it.each([
    [
      { CompanyName: 'Ghost', IsWorkplace: 0, IsPayrollEntity: 0 },
      'at least one of IsWorkplace and IsPayrollEntity must be 1',
    ],
    [{ CompanyName: 'Ghost' }, 'at least one of IsWorkplace and IsPayrollEntity must be 1'],
    [{ IsWorkplace: 1 }, 'CompanyName is required'],
    [{ CompanyName: 'Ghost', IsWorkplace: 2 }, 'IsWorkplace must be 0 or 1'],
  ])('refuses the location %j', async (body, message) => {
    // Act
    const reply = await api.call('PUT', '/api/v1/supervise/company', body);

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message });
  });

  it.each([
    ['strOpunitName', 'intOpunitType'],
    ['strOpUnitName', 'intOpUnitType'],
  ])('creates an area under a location using %s / %s', async (nameKey, typeKey) => {
    // Act
    const reply = await api.call('PUT', '/api/v1/supervise/department', {
      intCompanyId: 2,
      [nameKey]: 'Loading Dock',
      [typeKey]: 1,
      strExportName: 'DOCK',
    });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      Id: 3,
      Company: 2,
      OperationalUnitName: 'Loading Dock',
      OperationalUnitType: 1,
      ExportName: 'DOCK',
      _DPMetaData: { System: 'OperationalUnit' },
    });
    expect((await api.query('OperationalUnit')).map((area) => area.Id)).toEqual([1, 2, 3]);
  });

  it('refuses an area for a location that does not exist', async () => {
    // Act
    const reply = await api.call('PUT', '/api/v1/supervise/department', {
      intCompanyId: 42,
      strOpunitName: 'Nowhere',
    });

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });

  it('refuses an area without a name', async () => {
    // Act
    const reply = await api.call('PUT', '/api/v1/supervise/department', { intCompanyId: 1 });

    // Assess
    expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'strOpunitName is required' });
  });
});

describe('setAwardFromLibrary', () => {
  const path = (employee: number) => `/api/v1/supervise/employee/${employee}/setAwardFromLibrary`;
  const request = (overrides: Record<string, unknown> = {}) => ({
    strCountryCode: 'us',
    strAwardCode: 'RetailAssoc2024x',
    arrOverridePayRules: [{ Id: 'lib_RetailAssoc2024x_base', HourlyRate: 21.75 }],
    ...overrides,
  });

  it('creates a new agreement with the override rate and ends the previous one', async () => {
    // Act
    const reply = await api.call('POST', path(2), request());

    // Assess
    expect(reply.status).toBe(200);
    const agreementId = reply.body.data.AgreementId;
    expect(Number.isInteger(agreementId)).toBe(true);
    const agreements = await api.query('EmployeeAgreement', {
      search: { s1: { field: 'EmployeeId', type: 'eq', data: 2 } },
    });
    const created = agreements.find((agreement) => agreement.Id === agreementId);
    const previous = agreements.find((agreement) => agreement.Id === 2);
    expect(created).toMatchObject({ Active: true, BaseRate: 21.75, EndDate: null });
    expect(previous.Active).toBe(false);
    expect(previous.EndDate).not.toBeNull();
    const [contract] = await api.query('EmploymentContract', {
      search: { s1: { field: 'Id', type: 'eq', data: created.Contract } },
    });
    expect(contract.BasePayRule).toBe('lib_RetailAssoc2024x_base');
  });

  it.each([
    [request({ strCountryCode: 'au' }), 400],
    // A pay rule the install does not have (another of its pay rules: lenient other-pay-rule-overrides).
    [request({ arrOverridePayRules: [{ Id: 'pr_no_such_rule', HourlyRate: 20 }] }), 400],
    [request({ arrOverridePayRules: undefined }), 400],
    [request({ strAwardCode: 'NoSuchAward1' }), 404],
  ])('refuses %j', async (body, status) => {
    // Act
    const reply = await api.call('POST', path(2), body);

    // Assess
    expect(reply.status).toBe(status);
    expect(reply.body.success).toBe(false);
    expect((await api.query('EmployeeAgreement')).filter((agreement) => agreement.Active)).toHaveLength(5);
  });

  it('works for an old-format Australian award code', async () => {
    // Act
    const reply = await api.call(
      'POST',
      path(3),
      request({
        strCountryCode: 'au',
        strAwardCode: 'MA000004',
        arrOverridePayRules: [{ Id: 'lib_MA000004_base', HourlyRate: 28 }],
      }),
    );

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body.data.AgreementId).toBeGreaterThan(5);
  });
});

describe('leave accruals', () => {
  const path = '/api/v1/resource/LeaveAccrual';

  it('overwrites the balance destructively: earlier accruals for the employee and rule are removed', async () => {
    // Act
    const reply = await api.call('POST', path, {
      Employee: 1,
      LeaveRule: 1,
      TransactionDate: 'now',
      Hours: 24,
    });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      Employee: 1,
      LeaveRule: 1,
      Hours: 24,
      Comment: null,
      FkId: null,
      BalanceCalculatedAt: null,
      _DPMetaData: { System: 'LeaveAccrual' },
    });
    const accruals = await api.query('LeaveAccrual');
    expect(accruals.filter((accrual) => accrual.Employee === 1 && accrual.LeaveRule === 1)).toEqual([
      reply.body,
    ]);
    expect(accruals.filter((accrual) => accrual.Employee === 2)).toHaveLength(1);
  });

  it('records the clock time for now and the given time otherwise', async () => {
    // Prepare
    const clock = (await call('GET', '/_sandbox/clock')).body.now;

    // Act
    const now = await api.call('POST', path, { Employee: 2, LeaveRule: 1, TransactionDate: 'now', Hours: 8 });
    const given = await api.call('POST', path, {
      Employee: 2,
      LeaveRule: 3,
      TransactionDate: '2026-03-01T00:00:00Z',
      Hours: 8,
    });

    // Assess
    expect(Math.abs(Date.parse(now.body.TransactionDate) - Date.parse(clock))).toBeLessThan(5000);
    expect(given.body.TransactionDate).toBe('2026-03-01T00:00:00+00:00');
  });

  it.each(['Employee', 'LeaveRule', 'TransactionDate', 'Hours'])(
    'names the missing field %s',
    async (field) => {
      // Prepare
      const body: Record<string, unknown> = { Employee: 1, LeaveRule: 1, TransactionDate: 'now', Hours: 1 };
      delete body[field];

      // Act
      const reply = await api.call('POST', path, body);

      // Assess
      expect(reply.status).toBe(400);
      expect(reply.body.error).toEqual({ code: 'VALIDATION_ERROR', message: `${field} is required` });
    },
  );

  it('answers 404 for an unknown leave rule', async () => {
    // Act
    const reply = await api.call('POST', path, {
      Employee: 1,
      LeaveRule: 99,
      TransactionDate: 'now',
      Hours: 1,
    });

    // Assess
    expect(reply.status).toBe(404);
  });

  it('refuses leave overwrites on UK installs and keeps their balances', async () => {
    // Prepare
    const uk = install(await signup({ root: '/regions/uk' }));

    // Act
    const reply = await uk.call('POST', path, {
      Employee: 1,
      LeaveRule: 1,
      TransactionDate: 'now',
      Hours: 24,
    });

    // Assess
    expect(reply.status).toBe(422);
    expect(reply.body.error.code).toBe('LEAVE_NOT_SUPPORTED');
    expect((await uk.query('LeaveAccrual')).filter((accrual) => accrual.Employee === 1)).toHaveLength(2);
  });
});
